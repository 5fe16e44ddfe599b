import { describe, expect, it } from 'vitest';
import {
  firstUnstableOffset,
  lastStableOffset,
  lastStableOffsetOfCompletion,
  stillUnreplicated,
  type TxnMetadata,
} from '../../../sim/kafka/log/lastStableOffset';
import { collectAbortedTransactions, collectAbortedTxns, type AbortedTxn } from '../../../sim/kafka/log/transactionIndex';

/*
 * A hand-worked partition (P1 = producer 1, P2 = producer 2):
 *   offset 0-1  non-transactional
 *   offset 2-3  P1 transactional (P1's transaction starts at 2)
 *   offset 4    P2 transactional (P2's transaction starts at 4)
 *   offset 5    COMMIT marker of P1
 *   offset 6    P2 transactional
 *   offset 7    ABORT marker of P2
 */
const P1 = 1;
const P2 = 2;

describe('first unstable offset and LSO (ProducerStateManager / UnifiedLog)', () => {
  it('no open transaction: LSO = HW', () => {
    expect(firstUnstableOffset([], [], 0)).toBeUndefined();
    expect(lastStableOffset(8, undefined)).toBe(8);
  });

  it('two open transactions pin the LSO at the earlier first offset, never above the HW', () => {
    const ongoing: TxnMetadata[] = [{ producerId: P1, firstOffset: 2 }, { producerId: P2, firstOffset: 4 }];
    const fuo = firstUnstableOffset(ongoing, [], 0);
    expect(fuo).toBe(2);
    expect(lastStableOffset(5, fuo)).toBe(2);
    // The HW below the first unstable offset bounds it.
    expect(lastStableOffset(1, fuo)).toBe(1);
  });

  it('a decided transaction stays unstable until the HW passes its marker', () => {
    const ongoing: TxnMetadata[] = [{ producerId: P2, firstOffset: 4 }];
    // P1 committed at 5; the marker is not replicated yet (HW 5).
    let unreplicated: TxnMetadata[] = [{ producerId: P1, firstOffset: 2, lastOffset: 5 }];
    unreplicated = stillUnreplicated(unreplicated, 5);
    expect(lastStableOffset(5, firstUnstableOffset(ongoing, unreplicated, 0))).toBe(2);
    // HW 6: the marker is below it, P1 is stable; P2 still pins the LSO at 4.
    unreplicated = stillUnreplicated(unreplicated, 6);
    expect(unreplicated).toEqual([]);
    expect(lastStableOffset(6, firstUnstableOffset(ongoing, unreplicated, 0))).toBe(4);
  });

  it('retention past the start of an open transaction raises the first unstable offset to the log start', () => {
    expect(firstUnstableOffset([{ producerId: P1, firstOffset: 2 }], [], 3)).toBe(3);
  });

  it('the LSO written in a .txnindex entry: the next other producer\'s first offset, else just past the marker', () => {
    const ongoing: TxnMetadata[] = [{ producerId: P1, firstOffset: 2 }, { producerId: P2, firstOffset: 4 }];
    expect(lastStableOffsetOfCompletion(ongoing, { producerId: P1, firstOffset: 2, lastOffset: 5, isAborted: false })).toBe(4);
    expect(lastStableOffsetOfCompletion([{ producerId: P2, firstOffset: 4 }], { producerId: P2, firstOffset: 4, lastOffset: 7, isAborted: true })).toBe(8);
  });
});

describe('aborted transaction index (TransactionIndex.collectAbortedTxns)', () => {
  const p2: AbortedTxn = { producerId: P2, firstOffset: 4, lastOffset: 7, lastStableOffset: 8 };

  it('lists the aborted transactions overlapping [fetchOffset, upperBound)', () => {
    expect(collectAbortedTxns([p2], 0, 8)).toEqual({ abortedTransactions: [p2], isComplete: true });
    // Ends before the fetch offset: not listed.
    expect(collectAbortedTxns([p2], 8, 12).abortedTransactions).toEqual([]);
    // Begins at the upper bound: not listed (the returned data stops before it); complete since LSO 8 >= 4.
    expect(collectAbortedTxns([p2], 0, 4)).toEqual({ abortedTransactions: [], isComplete: true });
    // Fetch from the middle of the aborted transaction.
    expect(collectAbortedTxns([p2], 6, 8).abortedTransactions).toEqual([p2]);
  });

  it('stops at the first entry whose LSO reaches the upper bound, across segments', () => {
    const a: AbortedTxn = { producerId: 10, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 };
    const b: AbortedTxn = { producerId: 11, firstOffset: 6, lastOffset: 9, lastStableOffset: 10 };
    expect(collectAbortedTxns([a, b], 0, 4)).toEqual({ abortedTransactions: [a], isComplete: true });
    expect(collectAbortedTxns([a], 0, 8)).toEqual({ abortedTransactions: [a], isComplete: false });
    expect(collectAbortedTransactions([[a], [b]], 0, 4)).toEqual([{ producerId: 10, firstOffset: 0 }]);
    expect(collectAbortedTransactions([[a], [b]], 0, 8)).toEqual([
      { producerId: 10, firstOffset: 0 },
      { producerId: 11, firstOffset: 6 },
    ]);
  });
});
