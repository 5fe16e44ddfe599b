/**
 * The sticky assignors' fast path when every member subscribes to the same topics (the common case):
 * with P partitions and M members everyone gets minQuota = floor(P/M) or maxQuota = ceil(P/M), exactly
 * P mod M members get maxQuota, and each member keeps as many of its previous partitions as its quota allows.
 *   1. Each member (in member id order) keeps its owned partitions, sorted by (partition, topic): all of them
 *      when fewer than minQuota; maxQuota when it owns that many and maxQuota slots are left; else minQuota.
 *      What it owned beyond that is "maybe revoked".
 *   2. The remaining partitions, in (topic, partition) order, are dealt round-robin to members below
 *      minQuota, then one each to members at minQuota while maxQuota slots are left.
 * A partition given to someone other than its previous owner is "transferring ownership": the cooperative
 * assignor holds it back for one rebalance.
 * [clients/.../consumer/internals/AbstractStickyAssignor.java `ConstrainedAssignmentBuilder`]
 * Rack-aware steps (client.rack) are not modelled. Kafka visits members in HashMap order in step 1; we
 * visit them in member id order, which only matters when more members own maxQuota than may keep it.
 */
import { compareStrings } from './consumerPartitionAssignor';
import type { PartitionIndex } from './partitionIndex';

export interface StickyAssignmentResult {
  /** Member id -> partition ids (member id order). */
  readonly assignment: Map<string, number[]>;
  /** Partition id -> its new owner, for partitions moving away from a previous owner; null = compute from owned. */
  readonly partitionsTransferringOwnership: Map<number, string> | null;
}

export function constrainedAssignment(
  index: PartitionIndex,
  /** Each member's previously owned, still-valid partition ids, keyed in member id order. */
  consumerToOwnedPartitions: ReadonlyMap<string, readonly number[]>,
  partitionsWithMultiplePreviousOwners: ReadonlySet<number>,
): StickyAssignmentResult {
  const numberOfConsumers = consumerToOwnedPartitions.size;
  const total = index.total;
  const minQuota = Math.floor(total / numberOfConsumers);
  const maxQuota = Math.ceil(total / numberOfConsumers);
  // How many members end with maxQuota (0 when minQuota == maxQuota), and how many have it so far.
  const expectedNumMembersWithOverMinQuotaPartitions = total % numberOfConsumers;
  let currentNumMembersWithOverMinQuotaPartitions = 0;

  const assignment = new Map<string, number[]>();
  const assigned = new Uint8Array(total);
  const maybeRevokedPartitions = new Map<number, string>();
  const partitionsTransferringOwnership = new Map<number, string>();
  let unfilledMembersWithUnderMinQuotaPartitions: string[] = [];
  let unfilledMembersWithExactlyMinQuotaPartitions: string[] = [];

  const keep = (consumer: string, owned: readonly number[], count: number): void => {
    const list = owned.slice(0, count);
    assignment.set(consumer, list);
    for (const id of list) assigned[id] = 1;
    for (const id of owned.slice(count)) maybeRevokedPartitions.set(id, consumer);
  };

  // Step 1: reassign previously owned partitions, up to each member's quota.
  for (const [consumer, ownedIds] of consumerToOwnedPartitions) {
    const owned = ownedIds
      .filter((id) => !partitionsWithMultiplePreviousOwners.has(id))
      .sort((a, b) => index.partitionOf(a) - index.partitionOf(b) || index.topicNumberOf(a) - index.topicNumberOf(b));
    if (owned.length < minQuota) {
      keep(consumer, owned, owned.length);
      unfilledMembersWithUnderMinQuotaPartitions.push(consumer);
    } else if (
      owned.length >= maxQuota &&
      currentNumMembersWithOverMinQuotaPartitions < expectedNumMembersWithOverMinQuotaPartitions
    ) {
      currentNumMembersWithOverMinQuotaPartitions++;
      if (currentNumMembersWithOverMinQuotaPartitions === expectedNumMembersWithOverMinQuotaPartitions) {
        unfilledMembersWithExactlyMinQuotaPartitions = [];
      }
      keep(consumer, owned, maxQuota);
    } else {
      keep(consumer, owned, minQuota);
      // At minQuota it may still take one more while maxQuota slots are left.
      if (currentNumMembersWithOverMinQuotaPartitions < expectedNumMembersWithOverMinQuotaPartitions) {
        unfilledMembersWithExactlyMinQuotaPartitions.push(consumer);
      }
    }
  }

  unfilledMembersWithUnderMinQuotaPartitions.sort(compareStrings);
  unfilledMembersWithExactlyMinQuotaPartitions.sort(compareStrings);

  const assignNewPartition = (id: number, consumer: string): number => {
    const list = assignment.get(consumer)!;
    list.push(id);
    const previousOwner = maybeRevokedPartitions.get(id);
    if ((previousOwner !== undefined && previousOwner !== consumer) || partitionsWithMultiplePreviousOwners.has(id)) {
      partitionsTransferringOwnership.set(id, consumer);
    }
    return list.length;
  };

  // Step 2: round-robin the unassigned partitions, (topic, partition) order, over the unfilled members.
  // `cursor` walks unfilledMembersWithUnderMinQuotaPartitions like a Java iterator that can remove.
  let cursor = 0;
  for (let id = 0; id < total; id++) {
    if (assigned[id]) continue;
    let consumer: string;
    if (cursor < unfilledMembersWithUnderMinQuotaPartitions.length) {
      consumer = unfilledMembersWithUnderMinQuotaPartitions[cursor++]!;
    } else if (unfilledMembersWithUnderMinQuotaPartitions.length === 0) {
      const polled = unfilledMembersWithExactlyMinQuotaPartitions.shift();
      if (polled === undefined) throw new Error('sticky assignor: no more unfilled consumers to be assigned');
      consumer = polled;
    } else {
      cursor = 0;
      consumer = unfilledMembersWithUnderMinQuotaPartitions[cursor++]!;
    }
    const count = assignNewPartition(id, consumer);
    if (count === minQuota) {
      unfilledMembersWithUnderMinQuotaPartitions.splice(--cursor, 1);
      unfilledMembersWithExactlyMinQuotaPartitions.push(consumer);
    } else if (count === maxQuota) {
      currentNumMembersWithOverMinQuotaPartitions++;
    }
  }

  // verifyUnfilledMembers: anyone still below minQuota means the quotas were miscounted.
  if (unfilledMembersWithUnderMinQuotaPartitions.length > 0) {
    const short = unfilledMembersWithUnderMinQuotaPartitions.filter((c) => assignment.get(c)!.length !== minQuota);
    if (
      currentNumMembersWithOverMinQuotaPartitions !== expectedNumMembersWithOverMinQuotaPartitions ||
      short.length > 0
    ) {
      throw new Error(`sticky assignor: members ${short.join(', ')} did not reach minQuota ${minQuota}`);
    }
  }

  return { assignment, partitionsTransferringOwnership };
}
