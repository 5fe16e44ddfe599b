import { describe, expect, it } from 'vitest';
import { incrementSequence } from '../../../sim/kafka/client/producer/producerBatch';
import { MAX_PRODUCER_EPOCH, TransactionManager, type SequencedBatch } from '../../../sim/kafka/client/producer/transactionManager';

/** A batch as the transaction manager sees it. */
class FakeBatch implements SequencedBatch {
  producerId = -1;
  producerEpoch = -1;
  baseSequence = -1;
  sequenceHasBeenReset = false;
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly recordCount: number,
  ) {}
  get lastSequence(): number {
    return this.baseSequence + this.recordCount - 1;
  }
  resetProducerState(producerId: number, producerEpoch: number, baseSequence: number): void {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    this.sequenceHasBeenReset = true;
  }
}

const TP = TransactionManager.key('t', 0);

/** A ready manager (producer id 9, epoch 0). */
function ready(): TransactionManager<FakeBatch> {
  const txn = new TransactionManager<FakeBatch>();
  expect(txn.bumpIdempotentEpochAndResetIdIfNeeded().initProducerId).toBe(true);
  // Asked once: a second pass while InitProducerId is under way does not ask again.
  expect(txn.bumpIdempotentEpochAndResetIdIfNeeded().initProducerId).toBe(false);
  txn.setProducerIdAndEpoch(9, 0);
  return txn;
}

/** What the accumulator does when it drains a new batch. */
function drain(txn: TransactionManager<FakeBatch>, records: number, partition = 0): FakeBatch {
  const tp = TransactionManager.key('t', partition);
  const b = new FakeBatch('t', partition, records);
  txn.maybeUpdateProducerIdAndEpoch(tp);
  const pe = txn.producerIdAndEpoch;
  b.producerId = pe.producerId;
  b.producerEpoch = pe.epoch;
  b.baseSequence = txn.sequenceNumber(tp);
  txn.incrementSequenceNumber(tp, records);
  txn.addInFlightBatch(b);
  return b;
}

describe('TransactionManager: sequences', () => {
  it('numbers batches per partition by record count, and tracks the lowest unresolved sequence', () => {
    const txn = ready();
    const a = drain(txn, 3);
    const b = drain(txn, 2);
    const other = drain(txn, 4, 1);
    expect([a.baseSequence, b.baseSequence, other.baseSequence]).toEqual([0, 3, 0]);
    expect(txn.firstInFlightSequence(TP)).toBe(0);
    txn.handleCompletedBatch(a, 100);
    expect(txn.firstInFlightSequence(TP)).toBe(3);
    expect(txn.lastAckedSequence(TP)).toBe(2);
    txn.handleCompletedBatch(b, 103);
    expect(txn.firstInFlightSequence(TP)).toBe(-1);
    expect(txn.hasInflightBatches(TP)).toBe(false);
  });

  it('sequences wrap from Integer.MAX_VALUE to 0', () => {
    expect(incrementSequence(2147483646, 1)).toBe(2147483647);
    expect(incrementSequence(2147483647, 1)).toBe(0);
    expect(incrementSequence(2147483640, 10)).toBe(2);
  });
});

describe('TransactionManager: OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
  it('on a batch behind a failed one: retried without an epoch bump (the earlier failure shows through)', () => {
    const txn = ready();
    drain(txn, 1);
    const second = drain(txn, 1);
    expect(txn.canRetry('OUT_OF_ORDER_SEQUENCE_NUMBER', second, 0)).toBe(true);
    expect(txn.isEpochBumpRequired).toBe(false);
  });

  it('on the next expected batch: a real gap, so the epoch is bumped and in-flight batches renumbered from 0', () => {
    const txn = ready();
    const a = drain(txn, 2);
    txn.handleCompletedBatch(a, 0);
    const b = drain(txn, 3);
    const c = drain(txn, 1);
    expect(b.baseSequence).toBe(2);
    expect(txn.canRetry('OUT_OF_ORDER_SEQUENCE_NUMBER', b, 0)).toBe(true);
    expect(txn.isEpochBumpRequired).toBe(true);
    const bump = txn.bumpIdempotentEpochAndResetIdIfNeeded();
    expect(bump).toEqual({ bumped: true, rewritten: [TP], initProducerId: false });
    expect(txn.producerIdAndEpoch).toEqual({ producerId: 9, epoch: 1 });
    expect([b.producerEpoch, b.baseSequence, c.producerEpoch, c.baseSequence]).toEqual([1, 0, 1, 3]);
    expect(b.sequenceHasBeenReset).toBe(true);
    expect(txn.sequenceNumber(TP)).toBe(4);
    expect(txn.lastAckedSequence(TP)).toBe(-1);
  });

  it('a renumbered batch answered OUT_OF_ORDER_SEQUENCE_NUMBER for its old attempt is simply retried', () => {
    const txn = ready();
    const b = drain(txn, 1);
    b.sequenceHasBeenReset = true;
    expect(txn.canRetry('OUT_OF_ORDER_SEQUENCE_NUMBER', b, 0)).toBe(true);
    expect(txn.isEpochBumpRequired).toBe(false);
  });
});

describe('TransactionManager: failures and unresolved sequences', () => {
  it('a batch failed for good with retries left bumps the epoch; one that exhausted them does not', () => {
    const txn = ready();
    const a = drain(txn, 1);
    txn.handleFailedBatch(a, 'MESSAGE_TOO_LARGE', false);
    expect(txn.isEpochBumpRequired).toBe(false);
    const b = drain(txn, 1);
    txn.handleFailedBatch(b, 'MESSAGE_TOO_LARGE', true);
    expect(txn.isEpochBumpRequired).toBe(true);
  });

  it('after a bump, other partitions keep their epoch until their in-flight batches resolve, then restart at 0', () => {
    const txn = ready();
    const p0 = drain(txn, 1, 0);
    const p1 = drain(txn, 5, 1);
    txn.handleFailedBatch(p0, 'OUT_OF_ORDER_SEQUENCE_NUMBER', true);
    txn.bumpIdempotentEpochAndResetIdIfNeeded();
    const tp1 = TransactionManager.key('t', 1);
    expect(txn.hasStaleProducerIdAndEpoch(tp1)).toBe(true);
    expect(p1.producerEpoch).toBe(0);
    txn.maybeUpdateProducerIdAndEpoch(tp1);
    expect(txn.sequenceNumber(tp1)).toBe(5);
    txn.handleCompletedBatch(p1, 0);
    const next = drain(txn, 1, 1);
    expect([next.producerEpoch, next.baseSequence]).toEqual([1, 0]);
  });

  it('an expired retry leaves the partition unresolved; acknowledged sequences that catch up resolve it without a bump', () => {
    const txn = ready();
    const a = drain(txn, 2);
    const b = drain(txn, 2);
    txn.handleFailedBatch(a, 'TIMEOUT', false);
    txn.markSequenceUnresolved(a);
    expect(txn.hasUnresolvedSequence(TP)).toBe(true);
    txn.maybeResolveSequences();
    expect(txn.hasUnresolvedSequence(TP)).toBe(true); // b still in flight
    // b's success means a was written too (the broker accepts sequences only in order).
    txn.handleCompletedBatch(b, 10);
    txn.maybeResolveSequences();
    expect(txn.hasUnresolvedSequence(TP)).toBe(false);
    expect(txn.isEpochBumpRequired).toBe(false);
  });

  it('UNKNOWN_PRODUCER_ID: retried; the epoch is bumped', () => {
    const txn = ready();
    const a = drain(txn, 1);
    expect(txn.canRetry('UNKNOWN_PRODUCER_ID', a, 50)).toBe(true);
    expect(txn.isEpochBumpRequired).toBe(true);
  });

  it('other errors are retried exactly when Kafka calls them retriable', () => {
    const txn = ready();
    const a = drain(txn, 1);
    expect(txn.canRetry('NOT_LEADER_OR_FOLLOWER', a, 0)).toBe(true);
    expect(txn.canRetry('NOT_ENOUGH_REPLICAS', a, 0)).toBe(true);
    expect(txn.canRetry('INVALID_PRODUCER_EPOCH', a, 0)).toBe(false);
    expect(txn.canRetry('MESSAGE_TOO_LARGE', a, 0)).toBe(false);
  });

  it('an exhausted epoch asks for a new producer id instead', () => {
    const txn = new TransactionManager<FakeBatch>();
    txn.bumpIdempotentEpochAndResetIdIfNeeded();
    txn.setProducerIdAndEpoch(3, MAX_PRODUCER_EPOCH);
    const a = drain(txn, 1);
    txn.handleFailedBatch(a, 'OUT_OF_ORDER_SEQUENCE_NUMBER', true);
    const r = txn.bumpIdempotentEpochAndResetIdIfNeeded();
    expect(r.bumped).toBe(false);
    expect(r.initProducerId).toBe(true);
    expect(txn.hasProducerId()).toBe(false);
  });
});
