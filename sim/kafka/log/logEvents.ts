import type { RecoveryStop } from './logRecovery';
import type { RetentionReason } from './retention';
import type { RollReason } from './segmentRoll';

/**
 * The partition log's trace events. Appends are not traced here (the replication layer decides what to say
 * about them); what changes a log other than an append is: a roll, retention, cleaning, truncation, recovery.
 * Offset ranges are [from, to): `to` is exclusive.
 */
declare module '../../core/trace' {
  interface TraceKinds {
    /** An fsync of the log up to `upTo` (exclusive) was started; it is durable at `completesAt` unless the power fails first. */
    'log.flush': { topic: string; partition: number; upTo: number; completesAt: number };
    /** A new active segment. */
    'log.roll': {
      topic: string;
      partition: number;
      baseOffset: number;
      previousBaseOffset: number;
      reason: RollReason | 'retention' | 'requested';
    };
    /** Retention deleted whole segments; the log start offset moved. */
    'log.retention': {
      topic: string;
      partition: number;
      reason: RetentionReason;
      segments: number[];
      fromOffset: number;
      toOffset: number;
      deletedRecords: number;
      deletedBytes: number;
      logStartOffset: number;
    };
    /** The cleaner swapped in a compacted range. */
    'log.clean': {
      topic: string;
      partition: number;
      firstDirtyOffset: number;
      endOffset: number;
      segmentsBefore: number;
      segmentsAfter: number;
      bytesBefore: number;
      bytesAfter: number;
      recordsBefore: number;
      recordsRemoved: number;
      tombstonesRemoved: number;
      durationMs: number;
    };
    /** Records removed from the end of the log (a follower diverged, or a full restart at an offset). */
    'log.truncate': {
      topic: string;
      partition: number;
      method: 'truncateTo' | 'truncateFullyAndStartAt';
      toOffset: number;
      previousLogEndOffset: number;
      logEndOffset: number;
      removedBatches: number;
      removedRecords: number;
      /** Offsets of the removed batches, [from, to); null when nothing was removed. */
      removedFrom: number | null;
      removedTo: number | null;
      /** Leader epochs of the removed batches, ascending. */
      removedEpochs: number[];
      highWatermark: number;
    };
    /** A log was opened from what the disk holds. */
    'log.recovery': {
      topic: string;
      partition: number;
      cleanShutdown: boolean;
      segments: number;
      batches: number;
      logStartOffset: number;
      logEndOffset: number;
      recoveryPoint: number;
      highWatermark: number;
      /** Why recovery stopped early (a torn or invalid batch), or null. */
      stop: RecoveryStop | null;
      droppedBatches: number;
      droppedRecords: number;
      droppedFrom: number | null;
      droppedTo: number | null;
      droppedSegments: number[];
    };
  }
}

export {};
