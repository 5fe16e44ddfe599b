import type { KafkaError } from '../errors';
import type { JoinGroupMember, TopicPartition } from '../protocol';
import { candidateProtocols, selectProtocol } from './protocolVote';
import { isValidTransition, canRebalance, type ClassicGroupState } from './classicGroupState';
import type { ClassicGroupMember, JoinGroupResult, SyncGroupResult } from './classicGroupMember';

/**
 * A classic consumer group's membership, generation and state: the data of Kafka's ClassicGroup. The
 * coordinator (groupCoordinator.ts) drives it; this class only keeps the bookkeeping consistent (who is
 * awaiting a join, who must still sync, who leads, which static instance maps to which member id).
 * [group-coordinator/.../classic/ClassicGroup.java]
 *
 * Members are kept in join order (Kafka uses a HashMap): the next leader after the leader leaves is the
 * oldest remaining member.
 */
export class ClassicGroup {
  state: ClassicGroupState;
  previousState: ClassicGroupState;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leaderId: string | null;
  /** Simulated time (us) of the last state change. */
  stateTimestampUs: number;
  /** Set when a member joins during the initial (delayed) rebalance, to extend the delay once more. */
  newMemberAdded = false;
  /** Why the current rebalance started (for the trace). */
  rebalanceReason = '';
  readonly members = new Map<string, ClassicGroupMember>();
  private readonly staticMembers = new Map<string, string>();
  private readonly pendingJoinMembers = new Set<string>();
  private readonly pendingSyncMembers = new Set<string>();
  private numMembersAwaitingJoin = 0;
  /** How many members support each protocol name. */
  private readonly supportedProtocols = new Map<string, number>();

  constructor(
    readonly groupId: string,
    nowUs: number,
    init: { state?: ClassicGroupState; generationId?: number; protocolType?: string | null; protocolName?: string | null; leaderId?: string | null } = {},
  ) {
    this.state = init.state ?? 'Empty';
    this.previousState = this.state;
    this.generationId = init.generationId ?? 0;
    this.protocolType = init.protocolType ?? null;
    this.protocolName = init.protocolName ?? null;
    this.leaderId = init.leaderId ?? null;
    this.stateTimestampUs = nowUs;
  }

  is(state: ClassicGroupState): boolean {
    return this.state === state;
  }

  /** Asserts the transition is one Kafka allows. [ClassicGroup.java `transitionTo`, `assertValidTransition`] */
  transitionTo(to: ClassicGroupState, nowUs: number): void {
    if (!isValidTransition(this.state, to)) throw new Error(`group ${this.groupId}: invalid transition ${this.state} -> ${to}`);
    this.previousState = this.state;
    this.state = to;
    this.stateTimestampUs = nowUs;
  }

  canRebalance(): boolean {
    return canRebalance(this.state);
  }

  get size(): number {
    return this.members.size;
  }

  hasMember(memberId: string): boolean {
    return this.members.has(memberId);
  }

  member(memberId: string): ClassicGroupMember {
    const m = this.members.get(memberId);
    if (!m) throw new Error(`group ${this.groupId} has no member ${memberId}`);
    return m;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  // ---- membership ----

  add(member: ClassicGroupMember, join: ClassicGroupMember['awaitingJoin'] = null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) throw new Error(`static member ${member.groupInstanceId} is already in group ${this.groupId}`);
      this.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = 'consumer';
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.countProtocols(member, 1);
    member.awaitingJoin = join;
    if (member.isAwaitingJoin) this.numMembersAwaitingJoin++;
    this.pendingJoinMembers.delete(member.memberId);
  }

  /** Removes a member (or a pending one); the oldest remaining member leads if it led. [ClassicGroup.java `remove`] */
  remove(memberId: string): ClassicGroupMember | undefined {
    const removed = this.members.get(memberId);
    if (removed) {
      this.members.delete(memberId);
      this.countProtocols(removed, -1);
      if (removed.isAwaitingJoin) this.numMembersAwaitingJoin--;
      if (removed.groupInstanceId !== null) this.staticMembers.delete(removed.groupInstanceId);
    }
    if (this.isLeader(memberId)) {
      const next = this.members.keys().next();
      this.leaderId = next.done ? null : next.value;
    }
    this.pendingJoinMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    return removed;
  }

  /**
   * A static member rejoined with a new member id: the new id takes over the old member's protocols, timeouts
   * and assignment; whatever the old id had parked is fenced. [ClassicGroup.java `replaceStaticMember`]
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMember: ClassicGroupMember): ClassicGroupMember {
    const old = this.members.get(oldMemberId);
    if (!old) throw new Error(`cannot replace missing member ${oldMemberId} of group ${this.groupId}`);
    this.members.delete(oldMemberId);
    this.countProtocols(old, -1);
    this.completeJoin(old, { error: 'FENCED_INSTANCE_ID', generationId: -1, protocolName: null, leader: '', skipAssignment: false, memberId: oldMemberId, members: [] });
    this.completeSync(old, { error: 'FENCED_INSTANCE_ID', partitions: [] });
    this.members.set(newMember.memberId, newMember);
    this.countProtocols(newMember, 1);
    if (this.isLeader(oldMemberId)) this.leaderId = newMember.memberId;
    this.staticMembers.set(groupInstanceId, newMember.memberId);
    return newMember;
  }

  updateMember(
    member: ClassicGroupMember,
    protocols: ClassicGroupMember['protocols'],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    join: ClassicGroupMember['awaitingJoin'],
  ): void {
    this.countProtocols(member, -1);
    member.setProtocols(protocols);
    this.countProtocols(member, 1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    if (join !== null && !member.isAwaitingJoin) this.numMembersAwaitingJoin++;
    else if (join === null && member.isAwaitingJoin) this.numMembersAwaitingJoin--;
    member.awaitingJoin = join;
  }

  // ---- pending members ----

  isPendingMember(memberId: string): boolean {
    return this.pendingJoinMembers.has(memberId);
  }

  addPendingMember(memberId: string): void {
    if (this.members.has(memberId)) throw new Error(`pending member ${memberId} is already a member of group ${this.groupId}`);
    this.pendingJoinMembers.add(memberId);
  }

  addPendingSyncMember(memberId: string): void {
    this.pendingSyncMembers.add(memberId);
  }

  removePendingSyncMember(memberId: string): void {
    this.pendingSyncMembers.delete(memberId);
  }

  hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSyncMembers.size === 0;
  }

  pendingSyncMemberIds(): string[] {
    return [...this.pendingSyncMembers];
  }

  clearPendingSyncMembers(): void {
    this.pendingSyncMembers.clear();
  }

  /** [ClassicGroup.java `hasAllMembersJoined`] */
  hasAllMembersJoined(): boolean {
    return this.members.size === this.numMembersAwaitingJoin && this.pendingJoinMembers.size === 0;
  }

  notYetRejoinedMembers(): ClassicGroupMember[] {
    return [...this.members.values()].filter((m) => !m.isAwaitingJoin);
  }

  /** max over members of rebalanceTimeoutMs. [ClassicGroup.java `rebalanceTimeoutMs`] */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /**
   * If the leader did not rejoin, the first member that did leads instead; false when nobody rejoined.
   * [ClassicGroup.java `maybeElectNewJoinedLeader`]
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader && leader.isAwaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.isAwaitingJoin) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  // ---- protocols ----

  private countProtocols(member: ClassicGroupMember, delta: number): void {
    for (const name of member.protocolNames()) this.supportedProtocols.set(name, (this.supportedProtocols.get(name) ?? 0) + delta);
  }

  /** An empty group takes any protocol; otherwise one of the member's must be supported by everyone. [ClassicGroup.java `supportsProtocols`] */
  supportsProtocols(protocolType: string, names: readonly string[]): boolean {
    if (this.state === 'Empty') return protocolType.length > 0 && names.length > 0;
    return this.protocolType === protocolType && names.some((n) => (this.supportedProtocols.get(n) ?? 0) === this.members.size);
  }

  /** The vote of reference 9.1. [ClassicGroup.java `selectProtocol`] */
  selectProtocol(): string {
    return selectProtocol([...this.members.values()].map((m) => ({ memberId: m.memberId, protocols: m.protocolNames() })));
  }

  candidateProtocols(): Set<string> {
    return candidateProtocols([...this.members.values()].map((m) => ({ memberId: m.memberId, protocols: m.protocolNames() })));
  }

  /** Generation + 1, the protocol chosen, and CompletingRebalance (or Empty when nobody is left). [ClassicGroup.java `initNextGeneration`] */
  initNextGeneration(nowUs: number): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.transitionTo('CompletingRebalance', nowUs);
    } else {
      this.protocolName = null;
      this.transitionTo('Empty', nowUs);
    }
    this.pendingSyncMembers.clear();
  }

  /** What the leader receives in its JoinGroup response: every member's metadata for the chosen protocol. */
  currentMembers(): JoinGroupMember[] {
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata(this.protocolName) }));
  }

  // ---- parked requests ----

  completeJoin(member: ClassicGroupMember, result: JoinGroupResult): boolean {
    const reply = member.awaitingJoin;
    if (!reply) return false;
    member.awaitingJoin = null;
    this.numMembersAwaitingJoin--;
    reply(result);
    return true;
  }

  completeSync(member: ClassicGroupMember, result: SyncGroupResult): boolean {
    const reply = member.awaitingSync;
    if (!reply) return false;
    member.awaitingSync = null;
    reply(result);
    return true;
  }

  completeAllJoins(error: KafkaError): void {
    for (const m of [...this.members.values()]) this.completeJoin(m, { error, generationId: -1, protocolName: null, leader: '', skipAssignment: false, memberId: m.memberId, members: [] });
  }

  completeAllSyncs(error: KafkaError): void {
    for (const m of [...this.members.values()]) this.completeSync(m, { error, partitions: [] });
  }

  assignmentOf(memberId: string): readonly TopicPartition[] {
    return this.members.get(memberId)?.assignment ?? [];
  }
}
