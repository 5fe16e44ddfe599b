import { bool, defineKinds, list, nullable, num, oneOf, optional, str, type KindsOf } from '../../core/traceSchema';
import { RECOVERY_STOPS } from './logRecovery';
import { RETENTION_REASONS } from './retention';
import { ROLL_REASONS } from './segmentRoll';

/**
 * The partition log's trace events. Appends are not traced here (the replication layer decides what to say
 * about them); what changes a log other than an append is: a roll, retention, cleaning, truncation, recovery.
 * Offset ranges are [from, to): `to` is exclusive.
 */
export const LOG_KINDS = defineKinds({
  /** An fsync of the log up to `upTo` (exclusive) was started; it is durable at `completesAt` unless the power fails first. */
  'log.flush': { topic: str, partition: num, upTo: num, completesAt: num },
  /** A new active segment. */
  'log.roll': {
    topic: str,
    partition: num,
    baseOffset: num,
    previousBaseOffset: num,
    reason: oneOf(...ROLL_REASONS, 'retention', 'requested'),
  },
  /** Retention deleted whole segments; the log start offset moved. */
  'log.retention': {
    topic: str,
    partition: num,
    reason: oneOf(...RETENTION_REASONS),
    segments: list(num),
    fromOffset: num,
    toOffset: num,
    deletedRecords: num,
    deletedBytes: num,
    logStartOffset: num,
  },
  /** The cleaner swapped in a compacted range. */
  'log.clean': {
    topic: str,
    partition: num,
    firstDirtyOffset: num,
    endOffset: num,
    segmentsBefore: num,
    segmentsAfter: num,
    bytesBefore: num,
    bytesAfter: num,
    recordsBefore: num,
    recordsRemoved: num,
    tombstonesRemoved: num,
    /** Transaction markers removed (only when there were some). */
    markersRemoved: optional(num),
    durationMs: num,
  },
  /** Records removed from the end of the log (a follower diverged, or a full restart at an offset). */
  'log.truncate': {
    topic: str,
    partition: num,
    method: oneOf('truncateTo', 'truncateFullyAndStartAt'),
    toOffset: num,
    previousLogEndOffset: num,
    logEndOffset: num,
    removedBatches: num,
    removedRecords: num,
    /** Offsets of the removed batches, [from, to); null when nothing was removed. */
    removedFrom: nullable(num),
    removedTo: nullable(num),
    /** Leader epochs of the removed batches, ascending. */
    removedEpochs: list(num),
    highWatermark: num,
  },
  /** A log was opened from what the disk holds. */
  'log.recovery': {
    topic: str,
    partition: num,
    cleanShutdown: bool,
    segments: num,
    batches: num,
    logStartOffset: num,
    logEndOffset: num,
    recoveryPoint: num,
    highWatermark: num,
    /** Why recovery stopped early (a torn or invalid batch), or null. */
    stop: nullable(oneOf(...RECOVERY_STOPS)),
    droppedBatches: num,
    droppedRecords: num,
    droppedFrom: nullable(num),
    droppedTo: nullable(num),
    droppedSegments: list(num),
  },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof LOG_KINDS> {}
}
