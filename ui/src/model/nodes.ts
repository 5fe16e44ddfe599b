/** The broker id in a node name ("broker-3" -> 3), or -1. */
export function brokerOfNode(node: string): number {
  const m = /^broker-(\d+)$/.exec(node);
  return m ? Number(m[1]) : -1;
}
