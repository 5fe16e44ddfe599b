/**
 * The classic consumer group's client-side assignment: the group leader runs the chosen assignor over every
 * member's subscription and sends each member its partitions in SyncGroup. Types follow Kafka's
 * ConsumerPartitionAssignor (Subscription, GroupSubscription, Assignment), as plain data.
 * [clients/.../consumer/ConsumerPartitionAssignor.java; consumer/internals/AbstractPartitionAssignor.java]
 */

import { compareStrings, compareTopicPartitions, type TopicPartition } from '../../../topicPartition';

export { compareStrings, compareTopicPartitions, type TopicPartition };

/** ConsumerPartitionAssignor.RebalanceProtocol: EAGER revokes everything before each rebalance; COOPERATIVE only what moves. */
export type RebalanceProtocol = 'EAGER' | 'COOPERATIVE';

/** The built-in assignors, by the names they register under in `partition.assignment.strategy`. */
export type AssignorName = 'range' | 'roundrobin' | 'sticky' | 'cooperative-sticky';

/** Java's Optional.empty generation (AbstractStickyAssignor.DEFAULT_GENERATION / the client's NO_GENERATION). */
export const DEFAULT_GENERATION = -1;

/** One member's JoinGroup metadata as the leader sees it. */
export interface Subscription {
  readonly memberId: string;
  /** `group.instance.id` of a static member, else null. */
  readonly groupInstanceId: string | null;
  /** Subscribed topics. */
  readonly topics: readonly string[];
  /**
   * Partitions the member held after the previous rebalance: for cooperative-sticky, what it still owns
   * (the Subscription's ownedPartitions); for sticky, its last assignment carried in its user data (an eager
   * member has already revoked everything when it joins). Ignored by range and roundrobin.
   */
  readonly ownedPartitions: readonly TopicPartition[];
  /** The generation of that previous assignment, DEFAULT_GENERATION (-1) when the member has none. */
  readonly generationId: number;
}

export interface GroupSubscription {
  readonly members: readonly Subscription[];
  /** Partition count per topic from the leader's metadata; topics missing here are skipped. */
  readonly partitionsPerTopic: ReadonlyMap<string, number>;
}

/** Member id -> its partitions sorted by (topic, partition); every member of the group has an entry. */
export type GroupAssignment = ReadonlyMap<string, readonly TopicPartition[]>;

/** A classic (client-side) assignor. */
export interface ConsumerPartitionAssignor {
  readonly name: AssignorName;
  /** The rebalance protocols it can run under (ConsumerPartitionAssignor.supportedProtocols). */
  readonly supportedProtocols: readonly RebalanceProtocol[];
  assign(group: GroupSubscription): GroupAssignment;
}

/**
 * Member order of range and roundrobin: static members first, by group.instance.id, then dynamic members by
 * member id, so static members keep their place across restarts (which change their member ids).
 * [clients/.../consumer/internals/AbstractPartitionAssignor.java `MemberInfo.compareTo`]
 */
export function compareMembers(a: Subscription, b: Subscription): number {
  if (a.groupInstanceId !== null && b.groupInstanceId !== null) return compareStrings(a.groupInstanceId, b.groupInstanceId);
  if (a.groupInstanceId !== null) return -1;
  if (b.groupInstanceId !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

/**
 * The topics that take part: subscribed by some member and known to metadata with at least one partition,
 * sorted by name. [clients/.../consumer/internals/AbstractPartitionAssignor.java `assign(Cluster, GroupSubscription)`]
 */
export function assignableTopics(group: GroupSubscription): Map<string, number> {
  checkMembers(group.members);
  const subscribed = new Set<string>();
  for (const m of group.members) for (const t of m.topics) subscribed.add(t);
  const names = [...subscribed].filter((t) => (group.partitionsPerTopic.get(t) ?? 0) > 0).sort(compareStrings);
  const out = new Map<string, number>();
  for (const t of names) {
    const n = group.partitionsPerTopic.get(t)!;
    if (!Number.isInteger(n)) throw new RangeError(`partition count of topic ${t} must be an integer, got ${n}`);
    out.set(t, n);
  }
  return out;
}

/** Sorts each member's list and returns the assignment keyed in member id order. */
export function finishAssignment(lists: Map<string, TopicPartition[]>): GroupAssignment {
  const out = new Map<string, readonly TopicPartition[]>();
  for (const id of [...lists.keys()].sort(compareStrings)) out.set(id, lists.get(id)!.sort(compareTopicPartitions));
  return out;
}

/** An empty list per member, in member id order. */
export function emptyAssignment(members: readonly Subscription[]): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>();
  for (const m of [...members].sort((a, b) => compareStrings(a.memberId, b.memberId))) out.set(m.memberId, []);
  return out;
}

function checkMembers(members: readonly Subscription[]): void {
  const seen = new Set<string>();
  for (const m of members) {
    if (seen.has(m.memberId)) throw new Error(`duplicate member id ${m.memberId} in the group subscription`);
    seen.add(m.memberId);
  }
}
