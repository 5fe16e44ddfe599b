/**
 * The metadata log's epoch rules, as plain functions of its leader-epoch cache: where an epoch ends, whether a
 * fetcher's (offset, epoch) is a prefix of this log, and where a fetcher truncates when it is not.
 */

/** An offset and the epoch it belongs to; as a "diverging epoch", the end offset of that epoch. */
export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/** One leader-epoch cache entry: the first offset written in an epoch. Entries grow strictly in both fields. */
export interface EpochStart {
  readonly epoch: number;
  readonly startOffset: number;
}

/**
 * The largest epoch <= `requestedEpoch` this log knows and the offset where it ends here
 * [core/.../raft/KafkaMetadataLog.scala `endOffsetForEpoch` over LeaderEpochFileCache.java `endOffsetFor`;
 * no snapshots]. An epoch older than every cached one ends where the first cached epoch starts; a request this
 * log cannot answer (empty cache, or an epoch newer than all) gets (log end offset, last fetched epoch).
 */
export function endOffsetForEpoch(cache: readonly EpochStart[], requestedEpoch: number, logEndOffset: number): OffsetAndEpoch {
  const n = cache.length;
  const lastFetchedEpoch = n === 0 ? 0 : cache[n - 1]!.epoch;
  if (n === 0 || requestedEpoch < 0) return { offset: logEndOffset, epoch: lastFetchedEpoch };
  if (requestedEpoch === lastFetchedEpoch) return { offset: logEndOffset, epoch: requestedEpoch };
  // The first entry with an epoch above the requested one (binary search: the cache is sorted).
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cache[mid]!.epoch > requestedEpoch) hi = mid;
    else lo = mid + 1;
  }
  if (lo === n) return { offset: logEndOffset, epoch: lastFetchedEpoch };
  const higher = cache[lo]!;
  if (lo === 0) return { offset: higher.startOffset, epoch: requestedEpoch };
  return { offset: higher.startOffset, epoch: cache[lo - 1]!.epoch };
}

export type FetchPosition = { readonly kind: 'valid' } | { readonly kind: 'diverging'; readonly divergingEpoch: OffsetAndEpoch };

/**
 * Whether a fetcher at `fetchOffset` whose last batch has `lastFetchedEpoch` holds a prefix of this log
 * [raft/.../ReplicatedLog.java `validateOffsetAndEpoch`, no snapshots]: the epoch must end here at or after
 * the fetch offset. Otherwise the answer is the DivergingEpoch the fetcher truncates to.
 */
export function validateOffsetAndEpoch(cache: readonly EpochStart[], logEndOffset: number, fetchOffset: number, lastFetchedEpoch: number): FetchPosition {
  if (fetchOffset === 0) return { kind: 'valid' };
  const end = endOffsetForEpoch(cache, lastFetchedEpoch, logEndOffset);
  if (end.epoch !== lastFetchedEpoch || end.offset < fetchOffset) return { kind: 'diverging', divergingEpoch: end };
  return { kind: 'valid' };
}

/**
 * Where a follower cuts its log on a DivergingEpoch [raft/.../ReplicatedLog.java `truncateToEndOffset`]: to the
 * smaller of the two ends of that epoch when it has the epoch, else to the end of its own older epoch (the next
 * fetch may diverge again, one epoch further back).
 */
export function truncationOffset(cache: readonly EpochStart[], logEndOffset: number, diverging: OffsetAndEpoch): number {
  if (diverging.epoch === 0) return Math.min(diverging.offset, logEndOffset);
  const local = endOffsetForEpoch(cache, diverging.epoch, logEndOffset);
  return local.epoch === diverging.epoch ? Math.min(local.offset, diverging.offset) : local.offset;
}

/** `(lastEpoch, endOffset)` compared lexicographically: is log A at least as up to date as log B? (KIP-595, Raft §5.4.1) */
export function isLogUpToDate(a: OffsetAndEpoch, b: OffsetAndEpoch): boolean {
  return a.epoch > b.epoch || (a.epoch === b.epoch && a.offset >= b.offset);
}
