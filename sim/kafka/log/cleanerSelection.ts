/**
 * Which compacted log the cleaner takes next and which range of it: the rules of LogCleanerManager, as pure
 * functions of a plain view of each log.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/LogCleanerManager.java `cleanableOffsets`,
 *  `calculateCleanableBytes`, `maxCompactionDelay`, `grabFilthiestCompactedLog`; LogToClean.java]
 */

export interface SegmentView {
  readonly baseOffset: number;
  readonly size: number;
  /** Max record timestamp, or last write time (ms). */
  readonly largestTimestamp: number;
  /** Max timestamp of the first batch, or -1. */
  readonly firstBatchTimestamp: number;
}

/** What the cleaner needs to know of a log to choose. */
export interface CleanableLogView {
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** min(first unstable offset, HW): the cleaner never goes past it. */
  readonly lastStableOffset: number;
  /** Oldest first; the last is the active segment. */
  readonly segments: readonly SegmentView[];
  readonly minCompactionLagMs: number;
  readonly maxCompactionLagMs: number;
  readonly minCleanableDirtyRatio: number;
}

export interface OffsetsToClean {
  readonly firstDirtyOffset: number;
  /** Exclusive end of what may be cleaned. */
  readonly firstUncleanableDirtyOffset: number;
  /** The checkpoint was invalid (below the log start or past the end) and must be reset. */
  readonly forceUpdateCheckpoint: boolean;
}

export interface LogToClean {
  readonly firstDirtyOffset: number;
  /** Base offset of the first segment that cannot be cleaned. */
  readonly firstUncleanableOffset: number;
  readonly cleanBytes: number;
  readonly cleanableBytes: number;
  readonly totalBytes: number;
  readonly cleanableRatio: number;
  /** max.compaction.lag.ms has passed for some dirty record. */
  readonly needCompactionNow: boolean;
}

/** Index of the last segment with base <= offset, or -1. */
function floorIndex(segments: readonly SegmentView[], offset: number): number {
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.baseOffset <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Indices [from, to) of the segments overlapping [fromOffset, toOffset). [src: LogSegments.java `values(from, to)`] */
export function segmentRange(segments: readonly SegmentView[], fromOffset: number, toOffset: number): [number, number] {
  if (fromOffset >= toOffset) return [0, 0];
  const start = Math.max(0, floorIndex(segments, fromOffset));
  let end = start;
  while (end < segments.length && segments[end]!.baseOffset < toOffset) end++;
  return [start, end];
}

/** Non-active segments overlapping [from, active base). [src: UnifiedLog `nonActiveLogSegmentsFrom`] */
function nonActiveFrom(segments: readonly SegmentView[], from: number): [number, number] {
  const active = segments[segments.length - 1]!;
  return segmentRange(segments, from, active.baseOffset);
}

/** [src: LogCleanerManager.java `cleanableOffsets`] */
export function cleanableOffsets(log: CleanableLogView, lastCleanOffset: number | undefined, nowMs: number): OffsetsToClean {
  const checkpoint = lastCleanOffset ?? log.logStartOffset;
  let firstDirtyOffset = checkpoint;
  let forceUpdateCheckpoint = false;
  // A checkpoint below the log start (retention) or past the end (lost data) restarts from the log start.
  if (checkpoint < log.logStartOffset || checkpoint > log.logEndOffset) {
    firstDirtyOffset = log.logStartOffset;
    forceUpdateCheckpoint = true;
  }
  const active = log.segments[log.segments.length - 1]!;
  let firstUncleanable = Math.min(log.lastStableOffset, active.baseOffset);
  const lag = Math.max(log.minCompactionLagMs, 0);
  if (lag > 0) {
    // The first dirty segment holding a record younger than min.compaction.lag.ms stops the cleaner.
    const [from, to] = nonActiveFrom(log.segments, firstDirtyOffset);
    for (let i = from; i < to; i++) {
      const s = log.segments[i]!;
      if (s.largestTimestamp > nowMs - lag) {
        firstUncleanable = Math.min(firstUncleanable, s.baseOffset);
        break;
      }
    }
  }
  return { firstDirtyOffset, firstUncleanableDirtyOffset: Math.max(firstDirtyOffset, firstUncleanable), forceUpdateCheckpoint };
}

/** How far past max.compaction.lag.ms the oldest dirty segment is (0 when not). [src: LogCleanerManager.java `maxCompactionDelay`] */
export function maxCompactionDelay(log: CleanableLogView, firstDirtyOffset: number, nowMs: number): number {
  const [from, to] = nonActiveFrom(log.segments, firstDirtyOffset);
  let earliest = Number.POSITIVE_INFINITY;
  for (let i = from; i < to; i++) {
    const ts = log.segments[i]!.firstBatchTimestamp;
    if (ts > 0 && ts < earliest) earliest = ts;
  }
  const cleanUntil = nowMs - Math.max(log.maxCompactionLagMs, 0);
  return earliest < cleanUntil ? cleanUntil - earliest : 0;
}

/** The byte counts and dirty ratio of a candidate. [src: LogToClean.java; LogCleanerManager.java `calculateCleanableBytes`] */
export function logToClean(log: CleanableLogView, firstDirtyOffset: number, uncleanableOffset: number, needCompactionNow: boolean): LogToClean {
  const segs = log.segments;
  const [cFrom, cTo] = segmentRange(segs, -1, firstDirtyOffset);
  let cleanBytes = 0;
  for (let i = cFrom; i < cTo; i++) cleanBytes += segs[i]!.size;
  // The uncleanable offset rounds down to the base of the segment holding it.
  const [nFrom, nTo] = nonActiveFrom(segs, uncleanableOffset);
  const firstUncleanableOffset = nTo > nFrom ? segs[nFrom]!.baseOffset : segs[segs.length - 1]!.baseOffset;
  const [dFrom, dTo] = segmentRange(segs, Math.min(firstDirtyOffset, firstUncleanableOffset), firstUncleanableOffset);
  let cleanableBytes = 0;
  for (let i = dFrom; i < dTo; i++) cleanableBytes += segs[i]!.size;
  const totalBytes = cleanBytes + cleanableBytes;
  return {
    firstDirtyOffset,
    firstUncleanableOffset,
    cleanBytes,
    cleanableBytes,
    totalBytes,
    cleanableRatio: totalBytes === 0 ? 0 : cleanableBytes / totalBytes,
    needCompactionNow,
  };
}

/** Whether a candidate is worth cleaning now. [src: LogCleanerManager.java `grabFilthiestCompactedLog`] */
export function isCleanable(ltc: LogToClean, minCleanableDirtyRatio: number): boolean {
  return ltc.totalBytes > 0 && ((ltc.needCompactionNow && ltc.cleanableBytes > 0) || ltc.cleanableRatio > minCleanableDirtyRatio);
}

/** The candidate for one log, from its view, its checkpoint and the time. */
export function evaluateLog(log: CleanableLogView, lastCleanOffset: number | undefined, nowMs: number): { offsets: OffsetsToClean; ltc: LogToClean } {
  const offsets = cleanableOffsets(log, lastCleanOffset, nowMs);
  const delay = maxCompactionDelay(log, offsets.firstDirtyOffset, nowMs);
  return { offsets, ltc: logToClean(log, offsets.firstDirtyOffset, offsets.firstUncleanableDirtyOffset, delay > 0) };
}

/**
 * Index of the dirtiest cleanable candidate (highest ratio; the earliest in the given order on ties), or -1.
 * Callers pass candidates in a total order (by topic-partition).
 */
export function filthiest(candidates: readonly { readonly ltc: LogToClean; readonly minCleanableDirtyRatio: number }[]): number {
  let best = -1;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    if (!isCleanable(c.ltc, c.minCleanableDirtyRatio)) continue;
    if (best < 0 || c.ltc.cleanableRatio > candidates[best]!.ltc.cleanableRatio) best = i;
  }
  return best;
}
