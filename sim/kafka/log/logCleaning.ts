import { NO_DELETE_HORIZON, lastOffset, nextOffset, type RecordBatch } from '../records';
import { CleanedTransactionMetadata } from './cleanedTransactionMetadata';
import type { AbortedTxn } from './transactionIndex';

/**
 * How the cleaner rewrites a range of a compacted log: the key -> latest offset map over the dirty range,
 * the grouping of segments into rewritten segments, and which records and batches survive. Pure functions;
 * the LogCleaner applies the result. Offsets never change: survivors keep theirs, leaving gaps.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/Cleaner.java `doClean`, `buildOffsetMap`,
 *  `groupSegmentsBySize`, `cleanInto`, `shouldRetainRecord`; clients/.../record/MemoryRecords.java `filterTo`]
 */

/** What the cleaner reads of a segment. */
export interface CleanerSegment {
  readonly baseOffset: number;
  readonly size: number;
  readonly batches: readonly RecordBatch[];
  /** Bytes of its offset index and time index (8 and 12 per entry). */
  readonly offsetIndexBytes: number;
  readonly timeIndexBytes: number;
  readonly lastModifiedMs: number;
}

/** Bytes per offset-map entry: a 16-byte MD5 of the key and an 8-byte offset. [src: SkimpyOffsetMap.java] */
export const OFFSET_MAP_BYTES_PER_ENTRY = 24;

/** Keys the dedupe buffer holds. [src: LogCleaner.java (Cleaner's SkimpyOffsetMap) with `log.cleaner.dedupe.buffer.size`, one thread] */
export function maxOffsetMapEntries(dedupeBufferSize: number, loadFactor: number): number {
  return Math.floor((dedupeBufferSize / OFFSET_MAP_BYTES_PER_ENTRY) * loadFactor);
}

export interface OffsetMap {
  readonly map: Map<string, number>;
  /** The last offset the map covers; records beyond it are kept as they are. */
  readonly latestOffset: number;
}

/**
 * Key -> latest offset over the dirty range [start, end), stopping early when the map is full. Records of
 * aborted transactions are left out (they are never the latest value of a key).
 * [src: Cleaner.java `buildOffsetMap`, `buildOffsetMapForSegment`]
 */
export function buildOffsetMap(dirty: readonly CleanerSegment[], start: number, end: number, maxEntries: number, abortedTransactions: readonly AbortedTxn[] = []): OffsetMap {
  const map = new Map<string, number>();
  let latestOffset = -1;
  const txn = new CleanedTransactionMetadata(abortedTransactions);
  for (let s = 0; s < dirty.length; s++) {
    const seg = dirty[s]!;
    const nextSegmentStart = s + 1 < dirty.length ? dirty[s + 1]!.baseOffset : end;
    for (const b of seg.batches) {
      if (b.isControl) txn.onControlBatchRead(b);
      else if (!txn.onBatchRead(b)) {
        for (let i = 0; i < b.recordCount; i++) {
          const offset = b.offsetAt(i);
          const key = b.keyAt(i);
          if (key === null || offset < start) continue;
          if (map.size >= maxEntries) return { map, latestOffset };
          map.set(key, offset);
        }
      }
      if (lastOffset(b) >= start && lastOffset(b) > latestOffset) latestOffset = lastOffset(b);
    }
    // Offsets missing at the end of a segment (earlier cleaning) still count as covered.
    if (nextSegmentStart - 1 > latestOffset) latestOffset = nextSegmentStart - 1;
  }
  return { map, latestOffset };
}

/**
 * Consecutive segments grouped so each group's data and indexes fit one segment; each group becomes one
 * rewritten segment. Returns [from, to) index pairs. [src: Cleaner.java `groupSegmentsBySize`]
 */
export function groupSegmentsBySize(
  segments: readonly CleanerSegment[],
  maxSize: number,
  maxIndexSize: number,
  firstUncleanableOffset: number,
): [number, number][] {
  const groups: [number, number][] = [];
  let i = 0;
  while (i < segments.length) {
    const first = segments[i]!;
    let logSize = first.size;
    let indexSize = first.offsetIndexBytes;
    let timeIndexSize = first.timeIndexBytes;
    let j = i + 1;
    while (j < segments.length) {
      const next = segments[j]!;
      // The last offset of `next`, bounded by what follows it.
      const lastOfNext = j + 1 < segments.length ? segments[j + 1]!.baseOffset - 1 : firstUncleanableOffset - 1;
      const fits =
        logSize + next.size <= maxSize &&
        indexSize + next.offsetIndexBytes <= maxIndexSize &&
        timeIndexSize + next.timeIndexBytes <= maxIndexSize &&
        (next.size === 0 || lastOfNext - segments[j - 1]!.baseOffset <= 0x7fffffff);
      if (!fits) break;
      logSize += next.size;
      indexSize += next.offsetIndexBytes;
      timeIndexSize += next.timeIndexBytes;
      j++;
    }
    groups.push([i, j]);
    i = j;
  }
  return groups;
}

export interface CleanerStats {
  recordsRead: number;
  recordsRetained: number;
  bytesRead: number;
  bytesRetained: number;
  tombstonesRemoved: number;
  /** Records without a key (invalid in a compacted topic): dropped. */
  invalidRecords: number;
  /** Transaction markers removed (their transaction had no batch left and their delete horizon had passed). */
  markersRemoved: number;
}

export function emptyCleanerStats(): CleanerStats {
  return { recordsRead: 0, recordsRetained: 0, bytesRead: 0, bytesRetained: 0, tombstonesRemoved: 0, invalidRecords: 0, markersRemoved: 0 };
}

export interface BatchFilter {
  readonly offsetMap: OffsetMap;
  readonly nowMs: number;
  readonly deleteRetentionMs: number;
  /** Producer id -> last offset of its last data batch: that batch stays (maybe empty) to keep its sequence. */
  readonly lastDataOffsets: ReadonlyMap<number, number>;
  /** The end of this cleaning round: the batch ending there stays (maybe empty) to keep the last offset. */
  readonly upperBoundOffsetOfCleaningRound: number;
  /** The transactions of the segments being rewritten. */
  readonly txn: CleanedTransactionMetadata;
}

/** Whether record `i` of `batch` survives. [src: Cleaner.java `shouldRetainRecord`] */
function shouldRetainRecord(f: BatchFilter, batch: RecordBatch, i: number, stats: CleanerStats): boolean {
  const offset = batch.offsetAt(i);
  if (offset > f.offsetMap.latestOffset) return true;
  const key = batch.keyAt(i);
  if (key === null) {
    stats.invalidRecords++;
    return false;
  }
  const found = f.offsetMap.map.get(key) ?? -1;
  const latestForKey = offset >= found;
  // A tombstone stays until the delete horizon stamped on its batch by an earlier cleaning has passed (KIP-534).
  const retainDeletes = !batch.hasDeleteHorizon || f.nowMs < batch.deleteHorizonMs;
  return latestForKey && (!batch.isTombstoneAt(i) || retainDeletes);
}

/**
 * One batch after cleaning: itself (untouched), a copy with fewer records (same base and last offset, maybe a
 * newly stamped delete horizon), an empty header that keeps its offsets, or null when it disappears.
 * [src: Cleaner.java `cleanInto` (checkBatchRetention); MemoryRecords.java `filterTo`, `buildRetainedRecordsInto`]
 */
export function cleanBatch(batch: RecordBatch, f: BatchFilter, stats: CleanerStats): RecordBatch | null {
  stats.recordsRead += batch.recordCount;
  stats.bytesRead += batch.sizeInBytes;
  // A marker stays while its transaction has batches left; then it gets a delete horizon, and goes once that
  // has passed. [src: Cleaner.java `shouldDiscardBatch`, `filterBatch` (control batches); MemoryRecords.filterTo]
  if (batch.isControl) {
    const empty = f.txn.onControlBatchRead(batch);
    if (empty && batch.hasDeleteHorizon && f.nowMs >= batch.deleteHorizonMs) {
      stats.markersRemoved++;
      return null;
    }
    const out = empty && !batch.hasDeleteHorizon ? batch.retaining([0], f.nowMs + f.deleteRetentionMs) : batch;
    stats.recordsRetained += out.recordCount;
    stats.bytesRetained += out.sizeInBytes;
    return out;
  }
  // A batch of an aborted transaction loses its records (it may stay empty to keep its producer's sequence).
  const aborted = f.txn.onBatchRead(batch);
  const lastOfProducer = batch.producerId >= 0 && f.lastDataOffsets.get(batch.producerId) === lastOffset(batch);
  const retainEmpty = lastOfProducer || nextOffset(batch) === f.upperBoundOffsetOfCleaningRound;
  const retained: number[] = [];
  let containsTombstones = false;
  for (let i = 0; i < batch.recordCount && !aborted; i++) {
    const tombstone = batch.isTombstoneAt(i);
    if (shouldRetainRecord(f, batch, i, stats)) {
      retained.push(i);
      if (tombstone) containsTombstones = true;
    } else if (tombstone) {
      stats.tombstonesRemoved++;
    }
  }
  const needToSetDeleteHorizon = containsTombstones && !batch.hasDeleteHorizon;
  let out: RecordBatch | null;
  if (retained.length === batch.recordCount && !needToSetDeleteHorizon) {
    out = batch;
  } else if (retained.length > 0) {
    out = batch.retaining(retained, needToSetDeleteHorizon ? f.nowMs + f.deleteRetentionMs : batch.deleteHorizonMs);
  } else if (retainEmpty) {
    out = batch.retaining(retained, NO_DELETE_HORIZON);
  } else {
    out = null;
  }
  if (out !== null) {
    stats.recordsRetained += out.recordCount;
    stats.bytesRetained += out.sizeInBytes;
  }
  return out;
}

/** The outcome of cleaning a range: the rewritten groups, ready to be swapped in. */
export interface CleaningPlan {
  readonly firstDirtyOffset: number;
  /** The new cleaner checkpoint: the next offset after the cleaned range. */
  readonly endOffset: number;
  /** Each group of consecutive segments [from, to) and the batches of the one segment replacing it. */
  readonly groups: readonly { readonly from: number; readonly to: number; readonly baseOffset: number; readonly batches: readonly RecordBatch[]; readonly lastModifiedMs: number }[];
  readonly stats: CleanerStats;
  /** Bytes read while building the map (the dirty range). */
  readonly mapBytes: number;
}

export interface CleaningParams {
  readonly nowMs: number;
  readonly deleteRetentionMs: number;
  readonly segmentBytes: number;
  readonly maxIndexBytes: number;
  readonly maxOffsetMapEntries: number;
  readonly lastDataOffsets: ReadonlyMap<number, number>;
  /** The log's aborted transactions (its aborted-transaction index). */
  readonly abortedTransactions?: readonly AbortedTxn[];
}

/**
 * Cleans [firstDirty, firstUncleanable) of a log given its segments (oldest first, active excluded or not:
 * only segments below the end of the map are touched). [src: Cleaner.java `doClean`]
 */
export function planCleaning(segments: readonly CleanerSegment[], firstDirtyOffset: number, firstUncleanableOffset: number, p: CleaningParams): CleaningPlan {
  // Dirty segments: those overlapping [firstDirty, firstUncleanable).
  if (firstDirtyOffset >= firstUncleanableOffset) {
    return { firstDirtyOffset, endOffset: firstDirtyOffset, groups: [], stats: emptyCleanerStats(), mapBytes: 0 };
  }
  let dFrom = 0;
  while (dFrom + 1 < segments.length && segments[dFrom + 1]!.baseOffset <= firstDirtyOffset) dFrom++;
  let dTo = dFrom;
  while (dTo < segments.length && segments[dTo]!.baseOffset < firstUncleanableOffset) dTo++;
  const dirty = segments.slice(dFrom, dTo);
  let mapBytes = 0;
  for (const s of dirty) mapBytes += s.size;
  const aborted = p.abortedTransactions ?? [];
  const offsetMap = buildOffsetMap(dirty, firstDirtyOffset, firstUncleanableOffset, p.maxOffsetMapEntries, aborted);
  const endOffset = offsetMap.latestOffset + 1;
  // Everything from the log start up to the end of the map is rewritten.
  let upTo = 0;
  while (upTo < segments.length && segments[upTo]!.baseOffset < endOffset) upTo++;
  const stats = emptyCleanerStats();
  const groups = groupSegmentsBySize(segments.slice(0, upTo), p.segmentBytes, p.maxIndexBytes, firstUncleanableOffset).map(([from, to]) => {
    // Each rewritten group walks the aborted transactions overlapping it. [Cleaner.java `cleanSegments` (collectAbortedTransactions)]
    const start = segments[from]!.baseOffset;
    const end = to < segments.length ? segments[to]!.baseOffset : Number.POSITIVE_INFINITY;
    const filter: BatchFilter = {
      offsetMap,
      nowMs: p.nowMs,
      deleteRetentionMs: p.deleteRetentionMs,
      lastDataOffsets: p.lastDataOffsets,
      upperBoundOffsetOfCleaningRound: firstUncleanableOffset,
      txn: new CleanedTransactionMetadata(aborted.filter((t) => t.lastOffset >= start && t.firstOffset < end)),
    };
    const batches: RecordBatch[] = [];
    for (let i = from; i < to; i++) {
      for (const b of segments[i]!.batches) {
        const kept = cleanBatch(b, filter, stats);
        if (kept !== null) batches.push(kept);
      }
    }
    return { from, to, baseOffset: segments[from]!.baseOffset, batches, lastModifiedMs: segments[to - 1]!.lastModifiedMs };
  });
  return { firstDirtyOffset, endOffset, groups, stats, mapBytes };
}
