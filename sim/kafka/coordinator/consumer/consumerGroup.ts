/**
 * A consumer group of the KIP-848 protocol as its coordinator holds it: the group epoch, the target assignment
 * and its epoch, every member, and which member epoch owns each partition. It changes only by replaying its
 * records (consumerGroupRecords.ts), at run time and when a new coordinator loads the partition, so the two can
 * never differ. [group-coordinator/.../modern/consumer/ConsumerGroup.java, modern/ModernGroup.java]
 */
import { compareStrings } from '../../topicPartition';
import { EMPTY_ASSIGNMENT, type Assignment } from './assignment';
import { isReconciledTo, type CurrentAssignment } from './currentAssignmentBuilder';
import { assignmentHas } from './assignment';
import { newMember, usesClassicProtocol, type ConsumerGroupMember, type MemberSubscription } from './consumerGroupMember';

/** [ConsumerGroup.ConsumerGroupState] */
export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

export class ConsumerGroup {
  groupEpoch = 0;
  /** A digest of the subscribed topics' partition counts when the epoch last moved (ConsumerGroupMetadataValue.MetadataHash). */
  metadataHash = 0;
  /** The epoch of the target assignment. */
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id -> member id. */
  readonly staticMembers = new Map<string, string>();
  /** member id -> its target assignment. */
  readonly targetAssignment = new Map<string, Assignment>();
  /** topic -> partition -> epoch of the member that owns it (assigned or pending revocation). */
  private readonly partitionEpochs = new Map<string, Map<number, number>>();

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** -1 when no member owns the partition. [ConsumerGroup.java `currentPartitionEpoch`] */
  currentPartitionEpoch(topic: string, partition: number): number {
    return this.partitionEpochs.get(topic)?.get(partition) ?? -1;
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  /** The target of a member, or of the static member it replaces. [ConsumerGroup.java `targetAssignment(memberId, instanceId)`] */
  targetOf(memberId: string, instanceId: string | null): Assignment {
    const own = this.targetAssignment.get(memberId);
    if (own) return own;
    if (instanceId !== null) {
      const previous = this.staticMembers.get(instanceId);
      if (previous !== undefined) return this.targetAssignment.get(previous) ?? EMPTY_ASSIGNMENT;
    }
    return EMPTY_ASSIGNMENT;
  }

  // ---- members of the classic protocol (an online migration) [ConsumerGroup.java] ----

  numClassicProtocolMembers(): number {
    let n = 0;
    for (const m of this.members.values()) if (usesClassicProtocol(m)) n++;
    return n;
  }

  /**
   * A classic member may join when the group is empty and it names a protocol, or when one of its protocols is
   * supported by every classic member already in. [ConsumerGroup.java `supportsClassicProtocols`]
   */
  supportsClassicProtocols(protocolType: string, protocols: readonly string[]): boolean {
    if (protocolType !== 'consumer') return false;
    if (this.isEmpty()) return protocols.length > 0;
    const classic = [...this.members.values()].filter(usesClassicProtocol);
    return protocols.some((name) => classic.every((m) => m.classicMemberMetadata!.supportedProtocols.some((p) => p.name === name)));
  }

  /** Every member but `memberId` speaks the classic protocol, and `memberId` does not. [`allMembersUseClassicProtocolExcept`] */
  allMembersUseClassicProtocolExcept(memberId: string): boolean {
    const m = this.members.get(memberId);
    return m !== undefined && !usesClassicProtocol(m) && this.numClassicProtocolMembers() === this.members.size - 1;
  }

  /** A member in UNRELEASED_PARTITIONS still waits for a partition another member holds. [`waitingOnUnreleasedPartition`] */
  waitingOnUnreleasedPartition(m: ConsumerGroupMember): boolean {
    if (m.state !== 'UNRELEASED_PARTITIONS') return false;
    for (const [t, ps] of this.targetAssignment.get(m.memberId) ?? EMPTY_ASSIGNMENT) {
      for (const p of ps) if (!assignmentHas(m.assignedPartitions, t, p) && this.currentPartitionEpoch(t, p) !== -1) return true;
    }
    return false;
  }

  /** Topic name -> how many members subscribe to it, after replacing `oldMember` by `newMember` (either may be null). */
  subscribedTopicCounts(oldMember: ConsumerGroupMember | null, updated: MemberSubscription | null): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (topics: readonly string[], d: number): void => {
      for (const t of topics) {
        const n = (counts.get(t) ?? 0) + d;
        if (n === 0) counts.delete(t);
        else counts.set(t, n);
      }
    };
    for (const m of this.members.values()) add(m.subscribedTopicNames, 1);
    if (oldMember) add(oldMember.subscribedTopicNames, -1);
    if (updated) add(updated.subscribedTopicNames, 1);
    return counts;
  }

  /**
   * The assignor most members ask for once `oldMember` is replaced by `updated` (null = none asked for); ties go
   * to the name first in sort order. [ConsumerGroup.java `computePreferredServerAssignor`: Kafka takes the max of a
   * HashMap, whose tie order is the map's]
   */
  preferredServerAssignor(oldMember: ConsumerGroupMember | null, updated: MemberSubscription | null): string | null {
    const counts = new Map<string, number>();
    const bump = (name: string | null, d: number): void => {
      if (name !== null) counts.set(name, (counts.get(name) ?? 0) + d);
    };
    for (const m of this.members.values()) bump(m.serverAssignor, 1);
    if (oldMember) bump(oldMember.serverAssignor, -1);
    if (updated) bump(updated.serverAssignor, 1);
    let best: string | null = null;
    let bestN = 0;
    for (const name of [...counts.keys()].sort(compareStrings)) {
      const n = counts.get(name)!;
      if (n > bestN) {
        best = name;
        bestN = n;
      }
    }
    return best;
  }

  // ---- replay [GroupMetadataManager.java `replay(ConsumerGroup*Key, ...)`] ----

  /** ConsumerGroupMemberMetadata: creates the member if needed and sets its subscription. */
  replayMemberMetadata(memberId: string, sub: MemberSubscription): void {
    const old = this.members.get(memberId) ?? newMember(memberId);
    this.updateMember({ ...old, ...sub, memberId });
  }

  /** ConsumerGroupCurrentMemberAssignment. */
  replayCurrentAssignment(memberId: string, a: CurrentAssignment): void {
    const old = this.members.get(memberId) ?? newMember(memberId);
    this.updateMember({ ...old, ...a });
  }

  /** A tombstone of the current assignment: the member owns nothing any more (its epoch is -1). */
  replayCurrentAssignmentTombstone(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.updateMember({
      ...old,
      memberEpoch: -1,
      previousMemberEpoch: -1,
      state: 'STABLE',
      assignedPartitions: EMPTY_ASSIGNMENT,
      partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    });
  }

  /** A tombstone of the member metadata: the member is gone. */
  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.members.delete(memberId);
    this.releasePartitions(old);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId) this.staticMembers.delete(old.instanceId);
  }

  replayTargetMember(memberId: string, a: Assignment | null): void {
    if (a === null) this.targetAssignment.delete(memberId);
    else this.targetAssignment.set(memberId, a);
  }

  private updateMember(m: ConsumerGroupMember): void {
    const old = this.members.get(m.memberId);
    if (old) this.releasePartitions(old);
    this.members.set(m.memberId, m);
    this.claimPartitions(m);
    if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId);
  }

  private releasePartitions(m: ConsumerGroupMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation]) {
      for (const [t, ps] of a) {
        const epochs = this.partitionEpochs.get(t);
        if (!epochs) continue;
        for (const p of ps) if (epochs.get(p) === m.memberEpoch) epochs.delete(p);
        if (epochs.size === 0) this.partitionEpochs.delete(t);
      }
    }
  }

  private claimPartitions(m: ConsumerGroupMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation]) {
      for (const [t, ps] of a) {
        let epochs = this.partitionEpochs.get(t);
        if (!epochs) this.partitionEpochs.set(t, (epochs = new Map()));
        for (const p of ps) {
          // Revocation before assignment guarantees this never happens; Kafka throws IllegalStateException too.
          const holder = epochs.get(p);
          if (holder !== undefined) throw new Error(`group ${this.groupId}: ${t}-${p} is still owned at epoch ${holder}, cannot give it to ${m.memberId} at epoch ${m.memberEpoch}`);
          epochs.set(p, m.memberEpoch);
        }
      }
    }
  }

  /** A copy to restore when a write fails before it reaches the log (Kafka reverts its timeline snapshot). */
  clone(): ConsumerGroup {
    const c = new ConsumerGroup(this.groupId);
    c.groupEpoch = this.groupEpoch;
    c.metadataHash = this.metadataHash;
    c.assignmentEpoch = this.assignmentEpoch;
    for (const [k, v] of this.members) c.members.set(k, v);
    for (const [k, v] of this.staticMembers) c.staticMembers.set(k, v);
    for (const [k, v] of this.targetAssignment) c.targetAssignment.set(k, v);
    for (const [t, m] of this.partitionEpochs) c.partitionEpochs.set(t, new Map(m));
    return c;
  }
}
