import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import {
  BuiltInPartitioner,
  computePartitionLoadStats,
  cumulativeFrequencyTable,
  nextPartition,
  type PartitionQueueState,
  type TopicPartitionsView,
} from '../../../sim/kafka/client/builtInPartitioner';

const all = (n: number): TopicPartitionsView => ({
  numPartitions: n,
  availablePartitions: Array.from({ length: n }, (_, i) => i),
});
const queues = (sizes: number[], extra: Partial<PartitionQueueState>[] = []): PartitionQueueState[] =>
  sizes.map((queueSize, partition) => ({ partition, leaderKnown: true, queueSize, ...extra[partition] }));

describe('adaptive partitioning: cumulative frequency table', () => {
  it('turns queue sizes 0,3,1 into weights 4,1,3 and the table 4,5,8 (BuiltInPartitioner javadoc)', () => {
    const stats = computePartitionLoadStats(queues([0, 3, 1]), 3, true, 0)!;
    expect([...stats.cumulativeFrequencyTable.subarray(0, stats.length)]).toEqual([4, 5, 8]);
    expect([...stats.partitionIds.subarray(0, stats.length)]).toEqual([0, 1, 2]);
    // Draws 0..3 -> p0, 4 -> p1, 5..7 -> p2, and the draw is taken modulo 8.
    const chosen = Array.from({ length: 16 }, (_, r) => nextPartition(r, stats, all(3)));
    expect(chosen).toEqual([0, 0, 0, 0, 1, 2, 2, 2, 0, 0, 0, 0, 1, 2, 2, 2]);
  });

  it('builds the table in place from raw arrays', () => {
    const stats = cumulativeFrequencyTable(Int32Array.of(2, 0, 2, 5), Int32Array.of(3, 5, 6, 9), 4, 4)!;
    // max + 1 = 6: weights 4,6,4,1 -> 4,10,14,15.
    expect([...stats.cumulativeFrequencyTable]).toEqual([4, 10, 14, 15]);
  });

  it('falls back to uniform when there is nothing to weigh', () => {
    expect(computePartitionLoadStats(queues([0, 3, 1]), 3, false, 0)).toBeNull(); // adaptive disabled
    expect(computePartitionLoadStats(queues([0, 3]), 3, true, 0)).toBeNull(); // not every partition has a deque yet
    expect(computePartitionLoadStats(queues([5]), 1, true, 0)).toBeNull(); // a single partition
    expect(computePartitionLoadStats(queues([2, 2, 2]), 3, true, 0)).toBeNull(); // all equal
  });

  it('leaves out leaderless partitions, even when the rest are equal', () => {
    const stats = computePartitionLoadStats(queues([1, 4, 1], [{}, { leaderKnown: false }]), 3, true, 0)!;
    expect(stats.length).toBe(2);
    expect([...stats.partitionIds.subarray(0, 2)]).toEqual([0, 2]);
    expect([...stats.cumulativeFrequencyTable.subarray(0, 2)]).toEqual([1, 2]);
    for (let r = 0; r < 10; r++) expect([0, 2]).toContain(nextPartition(r, stats, all(3)));
  });

  it('excludes a partition whose leader had undrainable data for longer than partitioner.availability.timeout.ms', () => {
    const slow = { leaderReadyTimeMs: 5000, leaderDrainTimeMs: 1000 }; // 4000 ms ready but not drained
    const q = queues([2, 2, 2], [{}, slow]);
    const stats = computePartitionLoadStats(q, 3, true, 3000)!;
    expect([...stats.partitionIds.subarray(0, stats.length)]).toEqual([0, 2]);
    // Off (0) or a longer timeout: nothing excluded, all equal, so uniform.
    expect(computePartitionLoadStats(q, 3, true, 0)).toBeNull();
    expect(computePartitionLoadStats(q, 3, true, 4000)).toBeNull();
    // An empty deque is never excluded (Kafka skips empty deques before the latency test).
    expect(computePartitionLoadStats(queues([0, 0, 0], [{}, slow]), 3, true, 3000)).toBeNull();
  });
});

describe('uniform choice', () => {
  it('chooses among partitions with a known leader, or among all when none has one', () => {
    const view = { numPartitions: 6, availablePartitions: [1, 4] };
    expect(Array.from({ length: 6 }, (_, r) => nextPartition(r, null, view))).toEqual([1, 4, 1, 4, 1, 4]);
    const none = { numPartitions: 3, availablePartitions: [] };
    expect(Array.from({ length: 4 }, (_, r) => nextPartition(r, null, none))).toEqual([0, 1, 2, 0]);
  });
});

describe('BuiltInPartitioner switch rule', () => {
  const single = { numPartitions: 3, availablePartitions: [2] };
  const make = () => new BuiltInPartitioner({ topic: 't', stickyBatchSize: 100 }, Random.root(1).fork('partitioner'));

  it('switches once batch.size bytes went to the partition and its last batch is full', () => {
    const p = make();
    expect(p.stickyPartition).toBeNull();
    expect(p.currentPartition(single)).toBe(2);
    p.updatePartitionInfo(2, 60, true, single);
    expect(p.producedBytes).toBe(60);
    p.updatePartitionInfo(2, 40, true, single); // 100 >= batch.size: switch (to 2 again, the only choice)
    expect(p.producedBytes).toBe(0);
  });

  it('holds the switch while the last batch is not full, up to 2 x batch.size', () => {
    const p = make();
    p.currentPartition(single);
    p.updatePartitionInfo(2, 150, false, single);
    expect(p.producedBytes).toBe(150);
    p.updatePartitionInfo(2, 49, false, single);
    expect(p.producedBytes).toBe(199);
    p.updatePartitionInfo(2, 1, false, single); // 200 >= 2 x batch.size: switch regardless
    expect(p.producedBytes).toBe(0);
  });

  it('completes a held-back switch before the next append once the batches are full', () => {
    const p = make();
    p.currentPartition(single);
    p.updatePartitionInfo(2, 150, false, single);
    expect(p.partitionForAppend(single, () => false)).toBe(2);
    expect(p.producedBytes).toBe(150); // last batch still open: no switch
    expect(p.partitionForAppend(single, () => true)).toBe(2);
    expect(p.producedBytes).toBe(0); // switched (a fresh sticky partition)
  });

  it('refuses bytes reported for a partition other than the sticky one', () => {
    const p = make();
    p.currentPartition(single);
    expect(() => p.updatePartitionInfo(1, 10, true, single)).toThrow(/sticky partition is 2/);
  });

  it('weighs its next choice by the load stats it was given', () => {
    const slow = { leaderReadyTimeMs: 10, leaderDrainTimeMs: 0 };
    const p = make();
    // Sizes 7,0,7 -> weights 1,8,1 -> table 1,9,10.
    p.updatePartitionLoadStats(queues([7, 0, 7], [slow, {}, slow]), 3);
    expect([...p.loadStats!.cumulativeFrequencyTable.subarray(0, 3)]).toEqual([1, 9, 10]);
    // With partitioner.availability.timeout.ms=5 the slow leaders' partitions drop out: only 1 is left.
    const q = new BuiltInPartitioner({ topic: 't', stickyBatchSize: 100, availabilityTimeoutMs: 5 }, Random.root(2));
    q.updatePartitionLoadStats(queues([7, 0, 7], [slow, {}, slow]), 3);
    expect([...q.loadStats!.partitionIds.subarray(0, q.loadStats!.length)]).toEqual([1]);
    expect(q.currentPartition(all(3))).toBe(1);
  });

  it('rejects a batch size below 1', () => {
    expect(() => new BuiltInPartitioner({ topic: 't', stickyBatchSize: 0 }, Random.root(1))).toThrow(RangeError);
  });
});

describe('BuiltInPartitioner at its edges', () => {
  it('a queue with only one of the two leader times known is never excluded', () => {
    const q = queues([2, 2, 2], [{}, { leaderReadyTimeMs: 5000 }, { leaderDrainTimeMs: 0 }]);
    expect(computePartitionLoadStats(q, 3, true, 100)).toBeNull();
  });

  it('weighs even when only one partition is eligible out of several; nothing when no partition is', () => {
    const one = computePartitionLoadStats(queues([3, 0], [{ leaderKnown: false }]), 2, true, 0)!;
    expect([one.length, one.partitionIds[0], one.cumulativeFrequencyTable[0]]).toEqual([1, 1, 1]);
    expect(computePartitionLoadStats(queues([3, 0], [{ leaderKnown: false }, { leaderKnown: false }]), 2, true, 0)).toBeNull();
  });

  it('the largest queue sets the weights wherever it is, and ties with it count once', () => {
    // max 5 (+1 = 6): weights 1,6,1 -> 1,7,8 whichever of the equal maxima comes first.
    expect([...cumulativeFrequencyTable(Int32Array.of(5, 0, 5), Int32Array.of(0, 1, 2), 3, 3)!.cumulativeFrequencyTable]).toEqual([1, 7, 8]);
    expect([...cumulativeFrequencyTable(Int32Array.of(0, 5, 3), Int32Array.of(0, 1, 2), 3, 3)!.cumulativeFrequencyTable]).toEqual([6, 7, 10]);
    // Only the first `length` entries are folded; the rest of the array is left as it was.
    expect([...cumulativeFrequencyTable(Int32Array.of(1, 0, 9), Int32Array.of(0, 1, 2), 2, 3)!.cumulativeFrequencyTable]).toEqual([1, 3, 9]);
  });

  it('a topic with no partitions at all is a bug of the caller, said in words', () => {
    expect(() => nextPartition(7, null, { numPartitions: 0, availablePartitions: [] })).toThrow('BuiltInPartitioner: the topic has no partitions');
    expect(nextPartition(7, null, { numPartitions: 1, availablePartitions: [] })).toBe(0);
  });

  it('a batch size of exactly 1 is allowed; a fractional one is not, and the error says what it got', () => {
    expect(new BuiltInPartitioner({ topic: 't', stickyBatchSize: 1 }, Random.root(1)).stickyBatchSize).toBe(1);
    expect(() => new BuiltInPartitioner({ topic: 't', stickyBatchSize: 1.5 }, Random.root(1))).toThrow('BuiltInPartitioner: stickyBatchSize must be >= 1 but got 1.5');
  });

  it('names the topic and both partitions when bytes are reported for the wrong one', () => {
    const p = new BuiltInPartitioner({ topic: 'orders', stickyBatchSize: 100 }, Random.root(1));
    p.currentPartition({ numPartitions: 3, availablePartitions: [2] });
    expect(() => p.updatePartitionInfo(1, 10, true, all(3))).toThrow('BuiltInPartitioner(orders): bytes reported for partition 1 but the sticky partition is 2');
  });

  it('partition 0 is a sticky partition like any other', () => {
    const p = new BuiltInPartitioner({ topic: 't', stickyBatchSize: 100 }, Random.root(1));
    expect(p.currentPartition({ numPartitions: 3, availablePartitions: [0] })).toBe(0);
    expect(p.stickyPartition).toBe(0);
  });

  it('a switch that stays on the same partition is still a switch: the next append does not switch again', () => {
    const p = new BuiltInPartitioner({ topic: 't', stickyBatchSize: 100 }, Random.root(1));
    const single = { numPartitions: 3, availablePartitions: [2] };
    p.currentPartition(single);
    p.updatePartitionInfo(2, 150, false, single);
    let calls = 0;
    // Full batches every time: the first round switches (to 2 again), the second sees 0 bytes and appends.
    expect(p.partitionForAppend(single, () => (calls++, true))).toBe(2);
    expect(calls).toBe(2);
  });
});

