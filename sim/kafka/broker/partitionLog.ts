import type { ProducerAtPartition } from './rules/transactionVerification';
import type { KafkaError } from '../errors';
import type { RecordBatch } from '../records';
import type { EpochEndOffset } from './rules/truncation';

/** What a leader append did: appended (with offsets assigned), recognised a duplicate, or refused. */
export type LeaderAppendResult =
  /** `flushCompletesAt`: when flush.messages forced an fsync, the time it completes (the answer waits for it). */
  | { readonly kind: 'appended'; readonly batch: RecordBatch; readonly flushCompletesAt: number | null }
  | { readonly kind: 'duplicate'; readonly firstOffset: number; readonly lastOffset: number }
  | { readonly kind: 'error'; readonly error: KafkaError };

/**
 * The slice of the partition log (sim/kafka/log's UnifiedLog) that replication needs. The replica
 * logic is written against this so that it reads as Kafka's Partition does.
 */
export interface PartitionLog {
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly highWatermark: number;
  /** min(HW, first unstable offset): where read_committed fetches stop. */
  readonly lastStableOffset: number;
  /** The aborted transactions a read_committed fetch of [startOffset, upperBoundOffset) carries. */
  collectAbortedTransactions(startOffset: number, upperBoundOffset: number): readonly { readonly producerId: number; readonly firstOffset: number }[];
  /** The producer's last state here (its epoch, its open transaction's first offset), for KIP-890 verification. */
  producerAt(producerId: number): ProducerAtPartition | undefined;
  /** Sets the HW, clamped to [logStartOffset, logEndOffset]. */
  updateHighWatermark(hw: number): void;
  /** `origin` COORDINATOR for transaction markers (WriteTxnMarkers): no sequence checks. */
  appendAsLeader(batch: RecordBatch, leaderEpoch: number, nowMs: number, origin?: 'CLIENT' | 'COORDINATOR'): LeaderAppendResult;
  /** Copies batches verbatim. A forced fsync (flush.messages) holds the next fetch until it completes. */
  appendAsFollower(batches: readonly RecordBatch[]): { error: KafkaError | null; flushCompletesAt: number | null };
  /** Whole batches from `startOffset`, below `maxOffsetExclusive`, up to `maxBytes` (at least one when `minOneMessage`). */
  read(startOffset: number, maxBytes: number, maxOffsetExclusive: number, minOneMessage: boolean): { error: KafkaError | null; batches: readonly RecordBatch[] };
  truncateTo(offset: number): void;
  truncateFullyAndStartAt(offset: number): void;
  maybeIncrementLogStartOffset(offset: number): void;
  /** The latest epoch in the leader-epoch cache, -1 when empty. */
  latestEpoch(): number;
  /** LeaderEpochFileCache.endOffsetFor(epoch, LEO). */
  endOffsetForEpoch(epoch: number): EpochEndOffset;
  /** Records (epoch, startOffset) in the leader-epoch cache (a new leader does this at once, KIP-279). */
  assignEpochStartOffset(epoch: number, startOffset: number): void;
  /** The first record with a timestamp at or after `timestampMs` (ListOffsets by time), or null. */
  fetchOffsetByTimestamp(timestampMs: number): { offset: number; timestamp: number; leaderEpoch: number } | null;
}
