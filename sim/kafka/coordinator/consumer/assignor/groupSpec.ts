/**
 * What a server-side assignor sees (KIP-848): every member's subscription and current target assignment, and
 * the partition counts of the subscribed topics. [group-coordinator-api/.../assignor/GroupSpec.java,
 * MemberSubscription.java, SubscribedTopicDescriber.java, ConsumerGroupPartitionAssignor.java]
 */
import type { Assignment } from '../assignment';

/** HOMOGENEOUS when every member subscribes to the same topics. [SubscriptionType.java] */
export type SubscriptionType = 'HOMOGENEOUS' | 'HETEROGENEOUS';

export interface MemberSubscriptionAndAssignment {
  readonly rackId: string | null;
  readonly instanceId: string | null;
  readonly subscribedTopics: ReadonlySet<string>;
  /** The member's current target assignment (what the assignor should keep where it can). */
  readonly assignment: Assignment;
}

export interface GroupSpec {
  /**
   * Members in iteration order. Kafka iterates a HashMap of random member ids, an order no one relies on; here
   * members come sorted by member id (as Kafka's own assignor tests build them, with a TreeMap), so runs are
   * reproducible.
   */
  readonly members: ReadonlyMap<string, MemberSubscriptionAndAssignment>;
  readonly subscriptionType: SubscriptionType;
  /** Whether a member's current target holds the partition. [GroupSpec.java `isPartitionAssigned`] */
  isPartitionAssigned(topic: string, partition: number): boolean;
}

/** Partition counts of subscribed topics; -1 for a topic the metadata does not know. */
export interface SubscribedTopicDescriber {
  numPartitions(topic: string): number;
}

/** Member id -> its new target assignment. */
export type GroupAssignment = ReadonlyMap<string, Assignment>;

export interface ServerAssignor {
  /** The name `group.consumer.assignors` and `group.remote.assignor` use. */
  readonly name: string;
  assign(group: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment;
}

/** An assignor could not assign (a member subscribed to a topic missing from metadata). [PartitionAssignorException] */
export class PartitionAssignorException extends Error {}

/** HOMOGENEOUS when all members subscribe to the same set. [ModernGroup.java `subscriptionType`] */
export function subscriptionTypeOf(members: Iterable<{ readonly subscribedTopics: ReadonlySet<string> }>): SubscriptionType {
  let first: ReadonlySet<string> | null = null;
  for (const m of members) {
    if (first === null) first = m.subscribedTopics;
    else if (first.size !== m.subscribedTopics.size || [...first].some((t) => !m.subscribedTopics.has(t))) return 'HETEROGENEOUS';
  }
  return 'HOMOGENEOUS';
}

/** A GroupSpec from members in any order: sorted by member id, with the inverted target assignment. */
export function groupSpecOf(members: Iterable<readonly [string, MemberSubscriptionAndAssignment]>): GroupSpec {
  const sorted = [...members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const map = new Map(sorted);
  const assigned = new Set<string>();
  for (const m of map.values()) for (const [t, ps] of m.assignment) for (const p of ps) assigned.add(`${t}\u0000${p}`);
  return {
    members: map,
    subscriptionType: subscriptionTypeOf(map.values()),
    isPartitionAssigned: (topic, partition) => assigned.has(`${topic}\u0000${partition}`),
  };
}
