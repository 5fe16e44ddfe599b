/**
 * Bytes of a real client connection as they cross the simulated network: one message per chunk the socket
 * wrote, in order (the network keeps one direction of a connection in order). A trace of every message prints
 * the chunk's size, not its bytes.
 */
export class WireData {
  readonly type = 'WireData';
  /** Not a request: nothing correlates with it. */
  readonly correlationId = -1;
  constructor(readonly data: Uint8Array) {}
  toJSON(): { type: string; bytes: number } {
    return { type: this.type, bytes: this.data.length };
  }
}

export function isWireData(m: unknown): m is WireData {
  return m instanceof WireData;
}
