/**
 * The aborted-transaction index (`.txnindex`): one entry per ABORT marker, in the segment the marker went to,
 * and the search a read_committed fetch runs over it. Pure.
 * [src: storage/.../log/TransactionIndex.java `collectAbortedTxns`, AbortedTxn.java; core/.../log/LocalLog.scala `collectAbortedTransactions`]
 */

/** An entry: the producer, its transaction's first data offset, the ABORT marker's offset, and the LSO when the marker was written. */
export interface AbortedTxn {
  readonly producerId: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly lastStableOffset: number;
}

/** Bytes of one entry on disk (version 2 + pid 8 + first 8 + last 8 + lso 8). [src: AbortedTxn.java `TOTAL_SIZE`] */
export const ABORTED_TXN_SIZE = 34;

/** What a fetch response carries per aborted transaction. [src: FetchResponse.json AbortedTransaction] */
export interface FetchAbortedTransaction {
  readonly producerId: number;
  readonly firstOffset: number;
}

export interface TxnIndexSearchResult {
  readonly abortedTransactions: readonly AbortedTxn[];
  /** An entry's LSO reached the upper bound: no later segment can hold a transaction overlapping the range. */
  readonly isComplete: boolean;
}

/**
 * The entries of one index overlapping [fetchOffset, upperBoundOffset): they end at or after the fetch offset
 * and began before the upper bound. Stops once an entry's LSO is at or past the upper bound: any transaction
 * overlapping the range was decided before that marker, so it is already listed.
 */
export function collectAbortedTxns(index: readonly AbortedTxn[], fetchOffset: number, upperBoundOffset: number): TxnIndexSearchResult {
  const out: AbortedTxn[] = [];
  for (const t of index) {
    if (t.lastOffset >= fetchOffset && t.firstOffset < upperBoundOffset) out.push(t);
    if (t.lastStableOffset >= upperBoundOffset) return { abortedTransactions: out, isComplete: true };
  }
  return { abortedTransactions: out, isComplete: false };
}

/**
 * Across segments: start with the segment holding the fetch offset (the caller passes the indexes of that segment
 * and every later one, in order) and go on until a search is complete.
 */
export function collectAbortedTransactions(
  segmentIndexes: Iterable<readonly AbortedTxn[]>,
  fetchOffset: number,
  upperBoundOffset: number,
): FetchAbortedTransaction[] {
  const out: FetchAbortedTransaction[] = [];
  for (const index of segmentIndexes) {
    const r = collectAbortedTxns(index, fetchOffset, upperBoundOffset);
    for (const t of r.abortedTransactions) out.push({ producerId: t.producerId, firstOffset: t.firstOffset });
    if (r.isComplete) break;
  }
  return out;
}

/** What rebuilding the index needs of a batch. */
export interface TxnBatchView {
  readonly baseOffset: number;
  readonly producerId: number;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly controlType?: 'COMMIT' | 'ABORT' | undefined;
}

/**
 * The index entries of a log read from its start, as the appends made them (Kafka keeps `.txnindex` files; the
 * simulator keeps the index in memory and rebuilds it when a log is opened). A transaction whose start was
 * removed by retention starts at the log start offset.
 */
export function rebuildTransactionIndex(batches: Iterable<TxnBatchView>, logStartOffset: number): AbortedTxn[] {
  const open = new Map<number, number>(); // producer id -> first offset, in insertion = first-offset order
  const out: AbortedTxn[] = [];
  for (const b of batches) {
    if (b.producerId < 0) continue;
    if (b.isControl) {
      const first = open.get(b.producerId);
      if (first === undefined) continue;
      open.delete(b.producerId);
      if (b.controlType !== 'ABORT') continue;
      let lso = b.baseOffset + 1;
      for (const [pid, f] of open) {
        if (pid !== b.producerId && f < lso) lso = f;
      }
      out.push({ producerId: b.producerId, firstOffset: Math.max(first, logStartOffset), lastOffset: b.baseOffset, lastStableOffset: lso });
    } else if (b.isTransactional && !open.has(b.producerId)) {
      open.set(b.producerId, b.baseOffset);
    }
  }
  return out;
}
