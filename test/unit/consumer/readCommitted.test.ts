import { describe, expect, it } from 'vitest';
import { classifyFetchedBatches, type FetchedBatchView } from '../../../sim/kafka/client/consumer/abortedTransactions';

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
