/**
 * The first unstable offset and the last stable offset (LSO) of a partition, from its open transactions. A
 * transaction is unstable from its first data offset until it is decided (its marker appended) AND the marker
 * is below the high watermark; the LSO is the HW unless an unstable transaction starts below it. read_committed
 * fetches stop at the LSO. Pure.
 * [src: storage/.../log/ProducerStateManager.java `firstUnstableOffset`, `lastStableOffset`, `removeUnreplicatedTransactions`;
 * core/.../log/UnifiedLog.scala `lastStableOffset`, `updateFirstUnstableOffset`]
 */

/** One transaction of one producer in one partition; lastOffset (its marker) once decided. [src: TxnMetadata.java] */
export interface TxnMetadata {
  readonly producerId: number;
  readonly firstOffset: number;
  readonly lastOffset?: number;
}

/** A decided transaction: the marker appended at lastOffset. [src: CompletedTxn.java] */
export interface CompletedTxn {
  readonly producerId: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly isAborted: boolean;
}

/**
 * The smallest first offset among undecided (`ongoing`) and decided-but-unreplicated (`unreplicated`) transactions,
 * raised to the log start offset (retention may have removed the start of a transaction); undefined if none.
 */
export function firstUnstableOffset(ongoing: Iterable<TxnMetadata>, unreplicated: Iterable<TxnMetadata>, logStartOffset: number): number | undefined {
  let min: number | undefined;
  for (const t of ongoing) if (min === undefined || t.firstOffset < min) min = t.firstOffset;
  for (const t of unreplicated) if (min === undefined || t.firstOffset < min) min = t.firstOffset;
  return min === undefined ? undefined : Math.max(min, logStartOffset);
}

/** LSO = the first unstable offset if it is below the HW, else the HW. */
export function lastStableOffset(highWatermark: number, firstUnstable: number | undefined): number {
  return firstUnstable !== undefined && firstUnstable < highWatermark ? firstUnstable : highWatermark;
}

/**
 * The LSO stored in the `.txnindex` entry of a transaction being completed: the first offset of the earliest
 * other producer's open transaction, or just past the marker if none.
 */
export function lastStableOffsetOfCompletion(ongoingByFirstOffset: Iterable<TxnMetadata>, completed: CompletedTxn): number {
  for (const t of ongoingByFirstOffset) if (t.producerId !== completed.producerId) return t.firstOffset;
  return completed.lastOffset + 1;
}

/** Unreplicated transactions stay unstable until the HW (or log start) passes their marker. */
export function stillUnreplicated(unreplicated: readonly TxnMetadata[], offset: number): TxnMetadata[] {
  return unreplicated.filter((t) => !(t.lastOffset !== undefined && t.lastOffset < offset));
}
