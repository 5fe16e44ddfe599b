import { describe, expect, it } from 'vitest';
import { classifyFetchedBatches, type FetchedBatchView } from '../../../sim/kafka/client/consumer/abortedTransactions';
import { CompletedFetch, type PolledRecord } from '../../../sim/kafka/client/consumer/fetchBuffer';
import { buildEndTxnMarker } from '../../../sim/kafka/log/endTxnMarker';
import { assignOffsets, buildBatch, type RecordBatch } from '../../../sim/kafka/records';

// The hand-worked partition of test/unit/log/transactionLog.test.ts, plus P2's next (committed) transaction.
const batches: FetchedBatchView[] = [
  { baseOffset: 0, lastOffset: 1, producerId: 5, isTransactional: false, isControl: false },
  { baseOffset: 2, lastOffset: 3, producerId: 1, isTransactional: true, isControl: false },
  { baseOffset: 4, lastOffset: 4, producerId: 2, isTransactional: true, isControl: false },
  { baseOffset: 5, lastOffset: 5, producerId: 1, isTransactional: true, isControl: true, controlType: 'COMMIT' },
  { baseOffset: 6, lastOffset: 6, producerId: 2, isTransactional: true, isControl: false },
  { baseOffset: 7, lastOffset: 7, producerId: 2, isTransactional: true, isControl: true, controlType: 'ABORT' },
  { baseOffset: 8, lastOffset: 8, producerId: 2, isTransactional: true, isControl: false },
];
const aborted = [{ producerId: 2, firstOffset: 4 }];

describe('isolation.level on the consumer (CompletedFetch)', () => {
  it('read_committed drops the aborted producer\'s batches from its first offset to its ABORT marker', () => {
    expect(classifyFetchedBatches('read_committed', batches, aborted)).toEqual(['deliver', 'deliver', 'aborted', 'control', 'aborted', 'control', 'deliver']);
  });
  it('read_uncommitted returns aborted data too, but never control batches', () => {
    expect(classifyFetchedBatches('read_uncommitted', batches, aborted)).toEqual(['deliver', 'deliver', 'deliver', 'control', 'deliver', 'control', 'deliver']);
  });
  it('an aborted range starts at its first offset: earlier batches of the same producer are delivered', () => {
    const late = [{ producerId: 1, firstOffset: 3 }];
    const two: FetchedBatchView[] = [
      { baseOffset: 0, lastOffset: 1, producerId: 1, isTransactional: true, isControl: false },
      { baseOffset: 2, lastOffset: 4, producerId: 1, isTransactional: true, isControl: false },
    ];
    // The second batch ends at 4 >= 3, so the range starts within it: the whole batch is dropped.
    expect(classifyFetchedBatches('read_committed', two, late)).toEqual(['deliver', 'aborted']);
  });
  it('non-transactional batches of a listed producer are never dropped', () => {
    const b: FetchedBatchView[] = [{ baseOffset: 4, lastOffset: 4, producerId: 2, isTransactional: false, isControl: false }];
    expect(classifyFetchedBatches('read_committed', b, aborted)).toEqual(['deliver']);
  });
});

describe('CompletedFetch with the read_committed verdicts', () => {
  it('skips aborted batches and markers, and the position ends past the last marker', () => {
    // Offsets as a leader assigns them (a RecordBatch is immutable: a copy with its offsets).
    const at = (b: RecordBatch, baseOffset: number): RecordBatch => assignOffsets(b, baseOffset, 0);
    const data = (pid: number, value: string, offset: number) =>
      at(buildBatch([{ key: null, value, timestamp: 0 }], { producerId: pid, producerEpoch: 0, baseSequence: 0, isTransactional: true }), offset);
    const real = [data(1, 'committed', 0), data(2, 'aborted', 1), at(buildEndTxnMarker('COMMIT', 1, 0, 0, 0), 2), at(buildEndTxnMarker('ABORT', 2, 0, 0, 0), 3)];
    const views = real.map((b) => ({ baseOffset: b.baseOffset, lastOffset: b.baseOffset, producerId: b.producerId, isTransactional: true, isControl: b.isControl, ...(b.controlType ? { controlType: b.controlType } : {}) }));
    const verdicts = classifyFetchedBatches('read_committed', views, [{ producerId: 2, firstOffset: 1 }]);
    const f = new CompletedFetch('t-0', 't', 0, 0, real, verdicts.map((v) => v === 'aborted'));
    const out: PolledRecord[] = [];
    f.drain(100, out);
    expect(out.map((r) => r.value)).toEqual(['committed']);
    expect(f.nextFetchOffset).toBe(4);
  });
});
