import { describe, expect, it } from 'vitest';
import { BATCH_HEADER, Leaders, RECORD_BYTES, accumulator, ms, rec } from './support';

// Ten records fill a batch exactly: 61 + 10 * 57 = 631 bytes.
const TEN = BATCH_HEADER + 10 * RECORD_BYTES;

describe('RecordAccumulator: appending', () => {
  it('fills the last batch up to batch.size, then closes it and opens a new one', () => {
    const { acc } = accumulator({ 'batch.size': TEN });
    const results = Array.from({ length: 11 }, (_, i) => acc.append('t', 0, rec(`v${i}`), BATCH_HEADER + RECORD_BYTES, 0)!);
    expect(results.map((r) => r.newBatchCreated)).toEqual([true, false, false, false, false, false, false, false, false, false, true]);
    const batches = acc.batchesOf('t', 0);
    expect(batches.map((b) => b.recordCount)).toEqual([10, 1]);
    expect(batches[0]!.estimatedBytes).toBe(TEN);
    expect(batches[0]!.isFull).toBe(true);
    // The sticky partitioner counts the growth: the header with the first record, then one record each.
    expect(results[0]!.appendedBytes).toBe(BATCH_HEADER + RECORD_BYTES);
    expect(results[1]!.appendedBytes).toBe(RECORD_BYTES);
  });

  it('takes max(batch.size, record) bytes of buffer.memory per batch and refuses a batch that does not fit', () => {
    const { acc, pool } = accumulator({ 'batch.size': TEN, 'buffer.memory': 2 * TEN + 10 });
    acc.append('t', 0, rec('a'), BATCH_HEADER + RECORD_BYTES, 0);
    acc.append('t', 1, rec('b'), BATCH_HEADER + RECORD_BYTES, 0);
    expect(pool.availableMemory).toBe(10);
    // Room left in an open batch needs no memory, but a new batch does.
    expect(acc.append('t', 0, rec('c'), BATCH_HEADER + RECORD_BYTES, 0)).not.toBeNull();
    expect(acc.append('t', 2, rec('d'), BATCH_HEADER + RECORD_BYTES, 0)).toBeNull();
    acc.deallocate(acc.batchesOf('t', 1)[0]!);
    expect(pool.availableMemory).toBe(TEN + 10);
    expect(acc.append('t', 2, rec('d'), BATCH_HEADER + RECORD_BYTES, 0)).not.toBeNull();
  });

  it('a record bigger than batch.size gets a batch of its own size', () => {
    const { acc, pool } = accumulator({ 'batch.size': 100 });
    const r = acc.append('t', 0, rec('big'), 5000, 0)!;
    expect(r.batch.allocatedBytes).toBe(5000);
    expect(pool.availableMemory).toBe(33_554_432 - 5000);
  });
});

describe('RecordAccumulator: ready', () => {
  const leaders = new Leaders().set('t', 0, 1).set('t', 1, 2).set('t', 2, -1);

  it('a partial batch is ready once it has waited linger.ms; until then the sender is told how long to wait', () => {
    const { acc } = accumulator({ 'linger.ms': 5 });
    acc.append('t', 0, rec('a'), 200, ms(10));
    const early = acc.ready(leaders, ms(12), false);
    expect(early.readyNodes).toEqual([]);
    expect(early.nextReadyCheckDelayUs).toBe(ms(3));
    expect(acc.ready(leaders, ms(15), false).readyNodes).toEqual([1]);
  });

  it('a full batch, a second batch behind the first, or exhausted memory makes a partition ready at once', () => {
    const { acc } = accumulator({ 'linger.ms': 1000, 'batch.size': TEN });
    for (let i = 0; i < 10; i++) acc.append('t', 0, rec(`a${i}`), 200, 0);
    acc.append('t', 1, rec('b'), 200, 0);
    expect(acc.ready(leaders, 1, false).readyNodes).toEqual([1]);
    expect(acc.ready(leaders, 1, true).readyNodes).toEqual([1, 2]);
  });

  it('names the topic of a partition whose leader is unknown', () => {
    const { acc } = accumulator({ 'linger.ms': 0 });
    acc.append('t', 2, rec('x'), 200, 0);
    const r = acc.ready(leaders, 0, false);
    expect(r.readyNodes).toEqual([]);
    expect(r.unknownLeaderTopics).toEqual(['t']);
  });

  it('a retried batch waits its backoff, unless the leader changed since it failed', () => {
    const l = new Leaders().set('t', 0, 1, 5);
    const { acc, config } = accumulator({ 'linger.ms': 0 });
    acc.append('t', 0, rec('a'), 200, 0);
    const [b] = acc.drain(l, [1], config['max.request.size'], 0).get(1)!;
    acc.ready(l, 0, false); // the batch saw epoch 5 while being sent
    acc.reenqueue(b!, ms(100), ms(100));
    expect(acc.ready(l, ms(150), false).readyNodes).toEqual([]);
    expect(acc.ready(l, ms(150), false).nextReadyCheckDelayUs).toBe(ms(50));
    expect(acc.ready(l, ms(200), false).readyNodes).toEqual([1]);
    // Same failure, but a new leader (epoch 6) is known: no backoff.
    const { acc: acc2 } = accumulator({ 'linger.ms': 0 });
    acc2.append('t', 0, rec('a'), 200, 0);
    const [b2] = acc2.drain(l, [1], config['max.request.size'], 0).get(1)!;
    acc2.reenqueue(b2!, ms(100), ms(100));
    const moved = new Leaders().set('t', 0, 2, 6);
    expect(acc2.ready(moved, ms(101), false).readyNodes).toEqual([2]);
  });

  it('a muted partition (max.in.flight.requests.per.connection=1) is never ready', () => {
    const { acc } = accumulator({ 'linger.ms': 0 });
    acc.append('t', 0, rec('a'), 200, 0);
    acc.mutePartition('t', 0);
    expect(acc.ready(leaders, 10, false).readyNodes).toEqual([]);
    acc.unmutePartition('t', 0);
    expect(acc.ready(leaders, 10, false).readyNodes).toEqual([1]);
  });
});

describe('RecordAccumulator: drain', () => {
  it('takes one batch per partition of the node, closed, and stops at max.request.size (but always takes one)', () => {
    const l = new Leaders().set('t', 0, 1).set('t', 1, 1).set('t', 2, 1).set('u', 0, 2);
    const { acc } = accumulator({ 'batch.size': TEN });
    for (let i = 0; i < 12; i++) acc.append('t', 0, rec(`a${i}`), 200, 0);
    acc.append('t', 1, rec('b'), 200, 0);
    acc.append('t', 2, rec('c'), 200, 0);
    acc.append('u', 0, rec('d'), 200, 0);
    const all = acc.drain(l, [1], 1_000_000, 0).get(1)!;
    expect(all.map((b) => `${b.topic}-${b.partition}:${b.recordCount}`).sort()).toEqual(['t-0:10', 't-1:1', 't-2:1']);
    expect(all.every((b) => b.closed)).toBe(true);
    expect(acc.batchesOf('t', 0).map((b) => b.recordCount)).toEqual([2]);
    expect(acc.batchesOf('u', 0)).toHaveLength(1);
    // A limit smaller than any batch still lets the first one through, then stops.
    const one = acc.drain(l, [1], 10, 0).get(1)!;
    expect(one).toHaveLength(1);
  });

  it('starts each node where its last drain stopped, so every partition gets its turn', () => {
    const l = new Leaders().set('t', 0, 1).set('t', 1, 1).set('t', 2, 1);
    const { acc } = accumulator();
    const firsts: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let p = 0; p < 3; p++) acc.append('t', p, rec(`r${round}p${p}`), 200, 0);
      // Room for one batch per request: the partition that goes first rotates.
      const got = acc.drain(l, [1], 1, 0).get(1)!;
      firsts.push(got[0]!.partition);
      for (let p = 0; p < 3; p++) acc.drain(l, [1], 1_000_000, 0);
    }
    expect(new Set(firsts).size).toBe(3);
  });

  it('non-idempotent retries go back to the front of the queue, newest failure first', () => {
    const l = new Leaders().set('t', 0, 1);
    const { acc } = accumulator();
    const sent = [];
    for (let i = 0; i < 3; i++) {
      acc.append('t', 0, rec(`v${i}`), 200, 0);
      sent.push(acc.drain(l, [1], 1_000_000, 0).get(1)![0]!);
    }
    acc.append('t', 0, rec('new'), 200, 0);
    for (const b of sent) acc.reenqueue(b, 0, 0);
    expect(acc.batchesOf('t', 0).map((b) => b.valueAt(0))).toEqual(['v2', 'v1', 'v0', 'new']);
  });

  it('expires queued batches past delivery.timeout.ms, head first', () => {
    const { acc } = accumulator({ 'delivery.timeout.ms': 1000, 'batch.size': TEN });
    for (let i = 0; i < 10; i++) acc.append('t', 0, rec(`a${i}`), 200, 0);
    acc.append('t', 0, rec('late'), 200, ms(500));
    expect(acc.nextExpiryTimeUs()).toBe(ms(1000));
    expect(acc.expiredBatches(ms(999))).toEqual([]);
    const gone = acc.expiredBatches(ms(1000));
    expect(gone.map((b) => b.recordCount)).toEqual([10]);
    expect(acc.nextExpiryTimeUs()).toBe(ms(1500));
  });
});

describe('RecordAccumulator with idempotence', () => {
  const l = new Leaders().set('t', 0, 1);

  it('drains nothing before the producer id is known, then numbers batches by record count', () => {
    const { acc, txn } = accumulator({}, true);
    acc.append('t', 0, rec('a'), 200, 0);
    expect(acc.drain(l, [1], 1_000_000, 0).get(1)).toEqual([]);
    txn!.bumpIdempotentEpochAndResetIdIfNeeded();
    txn!.setProducerIdAndEpoch(7, 0);
    const first = acc.drain(l, [1], 1_000_000, 0).get(1)!;
    expect(first.map((b) => [b.producerId, b.producerEpoch, b.baseSequence])).toEqual([[7, 0, 0]]);
    for (let i = 0; i < 3; i++) acc.append('t', 0, rec(`b${i}`), 200, 0);
    const second = acc.drain(l, [1], 1_000_000, 0).get(1)!;
    expect(second[0]!.baseSequence).toBe(1);
    expect(second[0]!.lastSequence).toBe(3);
    expect(txn!.sequenceNumber('t\u00000')).toBe(4);
  });

  it('a retry waits until it is the lowest sequence in flight, and goes back in sequence order', () => {
    const { acc, txn } = accumulator({}, true);
    txn!.bumpIdempotentEpochAndResetIdIfNeeded();
    txn!.setProducerIdAndEpoch(1, 0);
    const sent = [];
    for (let i = 0; i < 3; i++) {
      acc.append('t', 0, rec(`v${i}`), 200, 0);
      sent.push(acc.drain(l, [1], 1_000_000, 0).get(1)![0]!);
    }
    // The second and third fail first, then the first one.
    acc.reenqueue(sent[2]!, 0, 0);
    acc.reenqueue(sent[1]!, 0, 0);
    acc.append('t', 0, rec('new'), 200, 0);
    expect(acc.batchesOf('t', 0).map((b) => b.baseSequence)).toEqual([1, 2, -1]);
    // Sequence 0 is still unresolved (in flight): the retry of 1 must wait.
    expect(acc.drain(l, [1], 1_000_000, 0).get(1)).toEqual([]);
    acc.reenqueue(sent[0]!, 0, 0);
    expect(acc.batchesOf('t', 0).map((b) => b.baseSequence)).toEqual([0, 1, 2, -1]);
    const next = acc.drain(l, [1], 1_000_000, 0).get(1)!;
    expect(next.map((b) => b.baseSequence)).toEqual([0]);
    txn!.handleCompletedBatch(next[0]!, 100);
    expect(acc.drain(l, [1], 1_000_000, 0).get(1)!.map((b) => b.baseSequence)).toEqual([1]);
  });

  it('holds new batches back while an expired batch left the sequence unresolved', () => {
    const { acc, txn } = accumulator({}, true);
    txn!.bumpIdempotentEpochAndResetIdIfNeeded();
    txn!.setProducerIdAndEpoch(1, 0);
    acc.append('t', 0, rec('a'), 200, 0);
    const [a] = acc.drain(l, [1], 1_000_000, 0).get(1)!;
    acc.reenqueue(a!, 0, 0);
    txn!.handleFailedBatch(a!, 'TIMEOUT', false);
    txn!.markSequenceUnresolved(a!);
    acc.expiredBatches(Number.MAX_SAFE_INTEGER);
    acc.append('t', 0, rec('b'), 200, 0);
    expect(acc.drain(l, [1], 1_000_000, 0).get(1)).toEqual([]);
    // Nothing is in flight any more and nothing was acknowledged: a real gap, so the epoch is bumped.
    txn!.maybeResolveSequences();
    const bump = txn!.bumpIdempotentEpochAndResetIdIfNeeded();
    expect(bump.bumped).toBe(true);
    const [b] = acc.drain(l, [1], 1_000_000, 0).get(1)!;
    expect([b!.producerEpoch, b!.baseSequence]).toEqual([1, 0]);
  });
});
