/**
 * How an operator's tools judge a partition from its metadata: the `kafka-topics --describe` filters
 * (--under-replicated-partitions, --under-min-isr-partitions, --at-min-isr-partitions,
 * --unavailable-partitions). Pure functions of a partition's leader, replicas and ISR.
 * [tools/src/main/java/org/apache/kafka/tools/TopicCommand.java `PartitionDescription`]
 */

export interface PartitionHealthView {
  /** Broker id, or -1 (NO_LEADER). */
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** Replicas a reassignment is adding: they do not count towards the replication factor until it completes. */
  readonly addingReplicas?: readonly number[];
}

/**
 * The replication factor the partition is meant to have: during a reassignment the target replicas without
 * the ones being added. [TopicCommand `getReplicationFactor`]
 */
export function targetReplicationFactor(p: PartitionHealthView): number {
  return p.replicas.length - (p.addingReplicas?.length ?? 0);
}

/** Fewer in-sync replicas than the replication factor. [PartitionDescription `isUnderReplicated`] */
export function isUnderReplicated(p: PartitionHealthView): boolean {
  return targetReplicationFactor(p) - p.isr.length > 0;
}

/** No leader, or an ISR below min.insync.replicas. [PartitionDescription `isUnderMinIsr`] */
export function isUnderMinIsr(p: PartitionHealthView, minIsr: number): boolean {
  return p.leader < 0 || p.isr.length < minIsr;
}

/** An ISR exactly at min.insync.replicas: one more failure stops acks=all writes. [`isAtMinIsrPartitions`] */
export function isAtMinIsr(p: PartitionHealthView, minIsr: number): boolean {
  return p.isr.length === minIsr;
}

/** No leader, or a leader that is not a live broker. [PartitionDescription `hasUnavailablePartitions`] */
export function isUnavailable(p: PartitionHealthView, liveBrokers: ReadonlySet<number>): boolean {
  return p.leader < 0 || !liveBrokers.has(p.leader);
}
