/**
 * Which old segments retention deletes: whole segments only, oldest first, stopping at the first one that
 * fails; never one reaching above the high watermark, never an empty active segment.
 * [src: core/src/main/scala/kafka/log/UnifiedLog.scala `deleteOldSegments`, `deleteRetentionMsBreachedSegments`,
 *  `deleteRetentionSizeBreachedSegments`, `deleteLogStartOffsetBreachedSegments`; LocalLog `deletableSegments`]
 */

export interface SegmentSummary {
  readonly baseOffset: number;
  readonly size: number;
  /** Max record timestamp (or last write time) in ms. */
  readonly largestTimestamp: number;
}

/** Why segments were deleted, in the order Kafka checks. */
export const RETENTION_REASONS = ['log-start-offset', 'retention.bytes', 'retention.ms'] as const;
export type RetentionReason = (typeof RETENTION_REASONS)[number];

export type SegmentPredicate = (segment: SegmentSummary, next: SegmentSummary | undefined) => boolean;

/** How many leading segments may go under `predicate`. */
export function deletableSegmentCount(
  segments: readonly SegmentSummary[],
  logEndOffset: number,
  highWatermark: number,
  predicate: SegmentPredicate,
): number {
  let n = 0;
  while (n < segments.length) {
    const seg = segments[n]!;
    const next = segments[n + 1];
    const upperBound = next === undefined ? logEndOffset : next.baseOffset;
    // Data at or above the HW is never deleted, so the log start offset never passes the HW.
    if (highWatermark < upperBound) break;
    if (next === undefined && seg.size === 0) break;
    if (!predicate(seg, next)) break;
    n++;
  }
  return n;
}

/** (a) Segments wholly below the log start offset (DeleteRecords, a follower catching up to the leader's start). */
export function logStartOffsetBreach(logStartOffset: number): SegmentPredicate {
  return (_seg, next) => next !== undefined && next.baseOffset <= logStartOffset;
}

/** (b) Oldest segments while the log stays at or above retention.bytes without them; null when unlimited. */
export function retentionSizeBreach(totalSize: number, retentionBytes: number): SegmentPredicate | null {
  if (retentionBytes < 0 || totalSize < retentionBytes) return null;
  let diff = totalSize - retentionBytes;
  return (seg) => {
    if (diff - seg.size >= 0) {
      diff -= seg.size;
      return true;
    }
    return false;
  };
}

/** (c) Segments whose newest record is older than retention.ms; null when retention.ms is -1. */
export function retentionMsBreach(nowMs: number, retentionMs: number): SegmentPredicate | null {
  if (retentionMs < 0) return null;
  return (seg) => nowMs - seg.largestTimestamp > retentionMs;
}
