/**
 * The producer's built-in partitioner for records without a key (KIP-794 "uniform sticky", Kafka 3.3+),
 * one instance per topic. It sticks to one partition until about batch.size bytes went there, then picks
 * the next one: uniformly among partitions with a known leader, or — with adaptive partitioning — with
 * more weight on partitions whose queues of batches are shorter.
 *
 * Driving it (what the accumulator does for a keyless record, RecordAccumulator.append):
 *   const p = partitioner.partitionForAppend(view, (q) => dequeOf(q) is empty or its last batch is full);
 *   ... append the record to partition p, measure the appended bytes ...
 *   partitioner.updatePartitionInfo(p, appendedBytes, lastBatchFull(p) or deque empty, view);
 * and on each ready check (RecordAccumulator.partitionReady): partitioner.updatePartitionLoadStats(queues, n).
 */
import type { Random } from '../../core/random';

/** The metadata the partitioner needs about its topic (a slice of Kafka's Cluster). */
export interface TopicPartitionsView {
  /** Count of all partitions of the topic, with or without a leader. */
  readonly numPartitions: number;
  /** Partitions whose leader is known, ascending (Cluster.availablePartitionsForTopic). */
  readonly availablePartitions: readonly number[];
}

/** One partition's batch queue as the accumulator sees it on a ready check. */
export interface PartitionQueueState {
  readonly partition: number;
  /** Metadata knows the partition's leader. Leaderless partitions are left out of the load stats. */
  readonly leaderKnown: boolean;
  /** Number of batches in the partition's deque. */
  readonly queueSize: number;
  /**
   * The leader node's latency stats (RecordAccumulator.NodeLatencyStats): the last time it had data ready
   * to send, and the last time it could actually be drained. Undefined when the accumulator has none yet.
   */
  readonly leaderReadyTimeMs?: number | undefined;
  readonly leaderDrainTimeMs?: number | undefined;
}

/** Cumulative frequency table over the partitions that take part in adaptive partitioning. */
export interface PartitionLoadStats {
  readonly cumulativeFrequencyTable: Int32Array;
  readonly partitionIds: Int32Array;
  readonly length: number;
}

export interface BuiltInPartitionerConfig {
  readonly topic: string;
  /** `batch.size`: how many bytes go to a partition before switching. */
  readonly stickyBatchSize: number;
  /** `partitioner.adaptive.partitioning.enable`, default true. */
  readonly adaptivePartitioningEnable?: boolean;
  /** `partitioner.availability.timeout.ms`, default 0 (off). */
  readonly availabilityTimeoutMs?: number;
}

const TWO_POW_31 = 2 ** 31;

/**
 * Load stats from the queues of one topic, or null when uniform choice applies.
 * Pass one entry per partition that has a batch deque (Kafka creates it on the first batch and never removes
 * it), ascending by partition.
 * [clients/.../producer/internals/RecordAccumulator.java `partitionReady`; BuiltInPartitioner.java `updatePartitionLoadStats`]
 */
export function computePartitionLoadStats(
  queues: readonly PartitionQueueState[],
  numPartitions: number,
  adaptivePartitioningEnable: boolean,
  availabilityTimeoutMs: number,
): PartitionLoadStats | null {
  // Adaptive only once every partition has a deque: a partition without one would never be chosen.
  if (!adaptivePartitioningEnable || queues.length < numPartitions) return null;
  const sizes = new Int32Array(queues.length);
  const ids = new Int32Array(queues.length);
  let length = 0;
  for (const q of queues) {
    if (!q.leaderKnown) continue;
    // A leader that had ready data it could not drain for longer than the timeout is skipped (only checked
    // for partitions with batches queued, as Kafka skips empty deques before this test).
    if (
      availabilityTimeoutMs > 0 &&
      q.queueSize > 0 &&
      q.leaderReadyTimeMs !== undefined &&
      q.leaderDrainTimeMs !== undefined &&
      q.leaderReadyTimeMs - q.leaderDrainTimeMs > availabilityTimeoutMs
    ) {
      continue;
    }
    sizes[length] = q.queueSize;
    ids[length] = q.partition;
    length++;
  }
  return cumulativeFrequencyTable(sizes, ids, length, queues.length);
}

/**
 * Inverts queue sizes into weights ((max + 1) - size) and folds them into running sums, in place:
 * sizes 0,3,1 -> weights 4,1,3 -> table 4,5,8. Null when there is nothing to weigh: fewer than 2 partitions
 * in all, none eligible, or all equal with none left out. `total` is the number of deques (eligible or not).
 * [clients/.../producer/internals/BuiltInPartitioner.java `updatePartitionLoadStats`]
 */
export function cumulativeFrequencyTable(
  queueSizes: Int32Array,
  partitionIds: Int32Array,
  length: number,
  total: number,
): PartitionLoadStats | null {
  if (length < 1 || total < 2) return null;
  let maxSizePlus1 = queueSizes[0]!;
  let allEqual = true;
  for (let i = 1; i < length; i++) {
    const s = queueSizes[i]!;
    if (s !== maxSizePlus1) allEqual = false;
    if (s > maxSizePlus1) maxSizePlus1 = s;
  }
  maxSizePlus1++;
  if (allEqual && length === total) return null;
  queueSizes[0] = maxSizePlus1 - queueSizes[0]!;
  for (let i = 1; i < length; i++) queueSizes[i] = maxSizePlus1 - queueSizes[i]! + queueSizes[i - 1]!;
  return { cumulativeFrequencyTable: queueSizes, partitionIds, length };
}

/** The index of the first table value strictly greater than `value` (the table is ascending). */
export function firstGreaterIndex(table: Int32Array, length: number, value: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (table[mid]! > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The partition to switch to, given a non-negative 31-bit random number (Kafka: toPositive(nextInt())).
 * [clients/.../producer/internals/BuiltInPartitioner.java `nextPartition`]
 */
export function nextPartition(random31: number, stats: PartitionLoadStats | null, view: TopicPartitionsView): number {
  if (stats === null) {
    const available = view.availablePartitions;
    if (available.length > 0) return available[random31 % available.length]!;
    if (!(view.numPartitions >= 1)) throw new RangeError('BuiltInPartitioner: the topic has no partitions');
    return random31 % view.numPartitions;
  }
  const cft = stats.cumulativeFrequencyTable;
  const weightedRandom = random31 % cft[stats.length - 1]!;
  return stats.partitionIds[firstGreaterIndex(cft, stats.length, weightedRandom)]!;
}

/** One topic's sticky-partition state. [clients/.../producer/internals/BuiltInPartitioner.java] */
export class BuiltInPartitioner {
  readonly topic: string;
  readonly stickyBatchSize: number;
  readonly adaptivePartitioningEnable: boolean;
  readonly availabilityTimeoutMs: number;
  private readonly random: Random;
  private sticky = -1;
  private produced = 0;
  private switches = 0;
  private stats: PartitionLoadStats | null = null;

  constructor(config: BuiltInPartitionerConfig, random: Random) {
    if (!(Number.isInteger(config.stickyBatchSize) && config.stickyBatchSize >= 1)) {
      throw new RangeError(`BuiltInPartitioner: stickyBatchSize must be >= 1 but got ${config.stickyBatchSize}`);
    }
    this.topic = config.topic;
    this.stickyBatchSize = config.stickyBatchSize;
    this.adaptivePartitioningEnable = config.adaptivePartitioningEnable ?? true;
    this.availabilityTimeoutMs = config.availabilityTimeoutMs ?? 0;
    this.random = random;
  }

  /** The current sticky partition, choosing one when there is none yet. [`peekCurrentPartitionInfo`] */
  currentPartition(view: TopicPartitionsView): number {
    if (this.sticky < 0) this.switchPartition(view);
    return this.sticky;
  }

  /**
   * The partition a keyless record is appended to. First completes a switch that was held back while the
   * sticky partition's last batch was not full, now that it is (or the deque is empty).
   * [clients/.../producer/internals/RecordAccumulator.java `append`, `partitionChanged`]
   */
  partitionForAppend(view: TopicPartitionsView, allBatchesFull: (partition: number) => boolean): number {
    // At most two rounds: a fresh sticky partition has produced 0 bytes, so it cannot switch again at once.
    for (;;) {
      const p = this.currentPartition(view);
      if (!allBatchesFull(p)) return p;
      const before = this.switches;
      this.updatePartitionInfo(p, 0, true, view);
      if (this.switches === before) return p;
    }
  }

  /**
   * After appending `appendedBytes` to the sticky partition: switch once batch.size bytes went there and
   * switching is enabled (the deque's last batch is full or the deque is empty), or unconditionally at twice
   * batch.size. So with a long linger.ms the switch lands on a batch boundary, between 1x and 2x batch.size.
   * [clients/.../producer/internals/BuiltInPartitioner.java `updatePartitionInfo`]
   */
  updatePartitionInfo(partition: number, appendedBytes: number, enableSwitch: boolean, view: TopicPartitionsView): void {
    if (partition !== this.sticky) {
      throw new Error(
        `BuiltInPartitioner(${this.topic}): bytes reported for partition ${partition} ` +
          `but the sticky partition is ${this.sticky}`,
      );
    }
    this.produced += appendedBytes;
    if ((this.produced >= this.stickyBatchSize && enableSwitch) || this.produced >= 2 * this.stickyBatchSize) {
      this.switchPartition(view);
    }
  }

  /** Refreshes the adaptive load stats from the topic's queues (called on every ready check). */
  updatePartitionLoadStats(queues: readonly PartitionQueueState[], numPartitions: number): void {
    this.stats = computePartitionLoadStats(
      queues,
      numPartitions,
      this.adaptivePartitioningEnable,
      this.availabilityTimeoutMs,
    );
  }

  /** The sticky partition, or null before the first keyless record. */
  get stickyPartition(): number | null {
    return this.sticky < 0 ? null : this.sticky;
  }

  /** Bytes appended to the current sticky partition since it was chosen. */
  get producedBytes(): number {
    return this.produced;
  }

  get loadStats(): PartitionLoadStats | null {
    return this.stats;
  }

  private switchPartition(view: TopicPartitionsView): void {
    // Kafka draws toPositive(ThreadLocalRandom.nextInt()): uniform over [0, 2^31).
    this.sticky = nextPartition(this.random.int(0, TWO_POW_31), this.stats, view);
    this.produced = 0;
    this.switches++;
  }
}
