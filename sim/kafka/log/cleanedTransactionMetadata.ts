/**
 * What the cleaner tracks of transactions while it walks a range (pure): the aborted transactions of the range
 * (from the aborted-transaction index), which are open in the walk, and for each marker whether any batch of its
 * transaction is still there. A batch of an aborted transaction is discarded (its records are never the latest
 * for a key); a marker may go only once no batch of its transaction remains — first it gets a delete horizon
 * (delete.retention.ms, so a read_committed reader that is behind still sees it), then a later cleaning past that
 * horizon removes it. [src: storage/.../log/Cleaner.java `CleanedTransactionMetadata` (`onBatchRead`,
 * `onControlBatchRead`, `consumeAbortedTxnsUpTo`); MemoryRecords.filterTo `containsMarkerForEmptyTxn`]
 */
import { lastOffset, type RecordBatch } from '../records';
import type { AbortedTxn } from './transactionIndex';

export class CleanedTransactionMetadata {
  /** Aborted transactions not yet reached, by first offset. */
  private readonly pending: AbortedTxn[];
  private next = 0;
  /** Producer id -> an aborted transaction the walk is inside, and whether a batch of it was seen. */
  private readonly ongoingAborted = new Map<number, { seenBatch: boolean }>();
  /** Producers with a committed (or not aborted) transaction the walk is inside and has seen a batch of. */
  private readonly ongoingCommitted = new Set<number>();

  constructor(abortedTransactions: readonly AbortedTxn[]) {
    this.pending = [...abortedTransactions].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** The aborted transactions that began at or before `offset` are now open in the walk. */
  private consumeAbortedTxnsUpTo(offset: number): void {
    while (this.next < this.pending.length && this.pending[this.next]!.firstOffset <= offset) {
      this.ongoingAborted.set(this.pending[this.next]!.producerId, { seenBatch: false });
      this.next++;
    }
  }

  /** A data batch: true when it belongs to an aborted transaction (its records are discarded). */
  onBatchRead(batch: RecordBatch): boolean {
    this.consumeAbortedTxnsUpTo(lastOffset(batch));
    if (!batch.isTransactional) return false;
    const aborted = this.ongoingAborted.get(batch.producerId);
    if (aborted) {
      aborted.seenBatch = true;
      return true;
    }
    this.ongoingCommitted.add(batch.producerId);
    return false;
  }

  /** A marker: true when no batch of its transaction is left in the walk (it may get a horizon, then go). */
  onControlBatchRead(batch: RecordBatch): boolean {
    this.consumeAbortedTxnsUpTo(lastOffset(batch));
    const pid = batch.producerId;
    if (batch.controlType === 'ABORT') {
      const aborted = this.ongoingAborted.get(pid);
      this.ongoingAborted.delete(pid);
      // Kept while this cleaning still removes batches of the transaction; the next one may let it go.
      return !(aborted?.seenBatch ?? false);
    }
    return !this.ongoingCommitted.delete(pid);
  }
}
