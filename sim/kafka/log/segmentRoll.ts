/**
 * When the active segment rolls: checked before every append with the incoming batch.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegment.java `shouldRoll`, `timeWaitedForRoll`]
 */

export const ROLL_REASONS = ['segment.bytes', 'segment.ms', 'index-full', 'offset-overflow'] as const;
export type RollReason = (typeof ROLL_REASONS)[number];

export interface ActiveSegmentState {
  readonly baseOffset: number;
  /** Bytes in the segment. */
  readonly size: number;
  /** Max timestamp of the segment's first batch, or -1 when empty or unknown. */
  readonly firstBatchTimestamp: number;
  readonly createdMs: number;
  /** Drawn from segment.jitter.ms when the segment was created. */
  readonly rollJitterMs: number;
  readonly offsetIndexFull: boolean;
  readonly timeIndexFull: boolean;
}

export interface IncomingAppend {
  readonly sizeInBytes: number;
  readonly maxTimestamp: number;
  readonly lastOffset: number;
  readonly nowMs: number;
  readonly maxSegmentBytes: number;
  /** segment.ms, or min(segment.ms, max.compaction.lag.ms) on compacted topics. */
  readonly maxSegmentMs: number;
}

const INT_MAX = 0x7fffffff;

/** Why the segment must roll before this append, or null. */
export function shouldRoll(s: ActiveSegmentState, a: IncomingAppend): RollReason | null {
  if (s.size > a.maxSegmentBytes - a.sizeInBytes) return 'segment.bytes';
  // The age of a segment counts from its first batch's timestamp when it has one, else from its creation.
  const waited = s.firstBatchTimestamp >= 0 ? a.maxTimestamp - s.firstBatchTimestamp : a.nowMs - s.createdMs;
  if (s.size > 0 && waited > a.maxSegmentMs - s.rollJitterMs) return 'segment.ms';
  if (s.offsetIndexFull || s.timeIndexFull) return 'index-full';
  const delta = a.lastOffset - s.baseOffset;
  if (delta < 0 || delta > INT_MAX) return 'offset-overflow';
  return null;
}

/** [src: LogConfig.java `randomSegmentJitter`] a draw in [0, min(segment.jitter.ms, segment.ms)). */
export function randomSegmentJitter(segmentJitterMs: number, segmentMs: number, draw: () => number): number {
  if (segmentJitterMs === 0) return 0;
  return Math.floor(draw() * Math.min(segmentJitterMs, segmentMs));
}
