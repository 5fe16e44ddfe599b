/**
 * What `sticky` and `cooperative-sticky` share: a balanced assignment that keeps as many partitions as possible
 * with their previous owners. This file validates the previous ownership the members report and picks the
 * algorithm: the constrained one when all subscriptions are equal, the general one otherwise.
 * [clients/.../consumer/internals/AbstractStickyAssignor.java `assignPartitions`, `allSubscriptionsEqual`]
 */
import {
  assignableTopics,
  compareStrings,
  DEFAULT_GENERATION,
  type GroupAssignment,
  type GroupSubscription,
  type Subscription,
  type TopicPartition,
} from './consumerPartitionAssignor';
import { PartitionIndex } from './partitionIndex';
import { constrainedAssignment, type StickyAssignmentResult } from './stickyConstrainedAssignment';
import { generalAssignment, type GeneralMember } from './stickyGeneralAssignment';

export interface StickyAssignment extends StickyAssignmentResult {
  readonly index: PartitionIndex;
  /** The members in member id order. */
  readonly members: readonly Subscription[];
  /** Each member's reported owned partitions as ids (unknown topics and duplicates dropped). */
  readonly reportedOwned: ReadonlyMap<string, readonly number[]>;
}

export interface OwnedPartitions {
  /** Each member's previously owned partitions that it may keep (member id order; every member present). */
  readonly consumerToOwnedPartitions: Map<string, number[]>;
  /** Partitions claimed by two members of the same generation: no one keeps them. */
  readonly partitionsWithMultiplePreviousOwners: Set<number>;
  readonly allSubscriptionsEqual: boolean;
  readonly maxGeneration: number;
}

/**
 * Resolves conflicting claims: of two members claiming a partition, the one with the higher generation keeps
 * it; with equal generations neither does. Also tells whether all members subscribe to the same topics
 * (Kafka compares in HashMap order and, when the first member it meets has no topics, lets the next one set
 * the reference; we compare every member's set with the first member's, empty or not).
 * [clients/.../consumer/internals/AbstractStickyAssignor.java `allSubscriptionsEqual`]
 */
export function validateOwnedPartitions(
  members: readonly Subscription[],
  reportedOwned: ReadonlyMap<string, readonly number[]>,
): OwnedPartitions {
  const consumerToOwnedPartitions = new Map<string, number[]>();
  const partitionsWithMultiplePreviousOwners = new Set<number>();
  const previousOwner = new Map<number, Subscription>();
  let maxGeneration = DEFAULT_GENERATION;
  let reference: Set<string> | null = null;
  let allSubscriptionsEqual = true;

  for (const m of members) {
    const topics = new Set(m.topics);
    if (reference === null) reference = topics;
    else if (allSubscriptionsEqual && !(topics.size === reference.size && [...topics].every((t) => reference!.has(t)))) {
      allSubscriptionsEqual = false;
    }
    maxGeneration = Math.max(maxGeneration, m.generationId);
    const owned: number[] = [];
    consumerToOwnedPartitions.set(m.memberId, owned);
    for (const id of reportedOwned.get(m.memberId)!) {
      const other = previousOwner.get(id);
      if (other === undefined) {
        owned.push(id);
        previousOwner.set(id, m);
      } else if (m.generationId === other.generationId) {
        partitionsWithMultiplePreviousOwners.add(id);
        removeId(consumerToOwnedPartitions.get(other.memberId)!, id);
        previousOwner.set(id, m);
      } else if (m.generationId > other.generationId) {
        owned.push(id);
        removeId(consumerToOwnedPartitions.get(other.memberId)!, id);
        previousOwner.set(id, m);
      }
      // else: the other member's newer claim stands.
    }
  }
  return { consumerToOwnedPartitions, partitionsWithMultiplePreviousOwners, allSubscriptionsEqual, maxGeneration };
}

/** The sticky target assignment (before the cooperative adjustment), as partition ids. */
export function stickyAssign(group: GroupSubscription): StickyAssignment {
  const index = new PartitionIndex(assignableTopics(group));
  const members = [...group.members].sort((a, b) => compareStrings(a.memberId, b.memberId));
  const reportedOwned = new Map<string, number[]>();
  for (const m of members) {
    const ids: number[] = [];
    const seen = new Set<number>();
    for (const tp of m.ownedPartitions) {
      const id = index.id(tp);
      if (id >= 0 && !seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
    reportedOwned.set(m.memberId, ids);
  }
  if (members.length === 0) {
    return { index, members, reportedOwned, assignment: new Map(), partitionsTransferringOwnership: new Map() };
  }

  const owned = validateOwnedPartitions(members, reportedOwned);
  if (owned.allSubscriptionsEqual) {
    const result = constrainedAssignment(index, owned.consumerToOwnedPartitions, owned.partitionsWithMultiplePreviousOwners);
    return { index, members, reportedOwned, ...result };
  }
  const generalMembers: GeneralMember[] = members.map((m) => ({
    memberId: m.memberId,
    topics: [...new Set(m.topics)]
      .map((t) => index.topicNumber(t))
      .filter((t): t is number => t !== undefined)
      .sort((a, b) => a - b),
    reportedOwned: reportedOwned.get(m.memberId)!,
    generationId: m.generationId,
  }));
  const result = generalAssignment(index, generalMembers, owned.consumerToOwnedPartitions, owned.maxGeneration);
  return { index, members, reportedOwned, ...result };
}

function removeId(list: number[], id: number): void {
  const i = list.indexOf(id);
  if (i >= 0) list.splice(i, 1);
}

/** Partition ids back to TopicPartitions, each member's list in (topic, partition) order. */
export function toGroupAssignment(index: PartitionIndex, assignment: ReadonlyMap<string, readonly number[]>): GroupAssignment {
  const out = new Map<string, readonly TopicPartition[]>();
  for (const id of [...assignment.keys()].sort(compareStrings)) {
    out.set(
      id,
      [...assignment.get(id)!].sort((a, b) => a - b).map((p) => index.toTopicPartition(p)),
    );
  }
  return out;
}
