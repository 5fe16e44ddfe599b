/**
 * The bytes of group members' subscriptions and assignments as their clients sent them. A group coordinator
 * never reads these (they belong to the client-side assignor); the simulated coordinator reads their decoded
 * form, so the wire front end keeps the originals here and hands them back unchanged: the leader's JoinGroup
 * answer carries each member's own metadata bytes, a member's SyncGroup answer the leader's bytes for it.
 * When the coordinator moved (its state was reloaded from __consumer_offsets on another broker) the bytes are
 * rebuilt from the decoded form.
 */
export class GroupBytes {
  /** group -> member -> protocol name -> metadata bytes */
  private readonly subscriptions = new Map<string, Map<string, Map<string, Uint8Array>>>();
  /** group -> generation -> member -> assignment bytes (only the newest generation is kept) */
  private readonly assignments = new Map<string, { generation: number; byMember: Map<string, Uint8Array> }>();

  rememberSubscription(group: string, member: string, protocols: readonly { name: string; metadata: Uint8Array }[]): void {
    if (member === '') return;
    let g = this.subscriptions.get(group);
    if (!g) this.subscriptions.set(group, (g = new Map()));
    g.set(member, new Map(protocols.map((p) => [p.name, p.metadata])));
  }

  subscription(group: string, member: string, protocol: string): Uint8Array | undefined {
    return this.subscriptions.get(group)?.get(member)?.get(protocol);
  }

  rememberAssignments(group: string, generation: number, assignments: readonly { memberId: string; assignment: Uint8Array }[]): void {
    this.assignments.set(group, { generation, byMember: new Map(assignments.map((a) => [a.memberId, a.assignment])) });
  }

  assignment(group: string, generation: number, member: string): Uint8Array | undefined {
    const g = this.assignments.get(group);
    return g && g.generation === generation ? g.byMember.get(member) : undefined;
  }

  /** The protocol a group's last successful join chose (SyncGroup v5 answers it). */
  private readonly protocols = new Map<string, { protocolType: string; protocolName: string }>();

  rememberProtocol(group: string, protocolType: string, protocolName: string): void {
    this.protocols.set(group, { protocolType, protocolName });
  }

  protocol(group: string): { protocolType: string; protocolName: string } | undefined {
    return this.protocols.get(group);
  }

  forgetMember(group: string, member: string): void {
    this.subscriptions.get(group)?.delete(member);
  }
}
