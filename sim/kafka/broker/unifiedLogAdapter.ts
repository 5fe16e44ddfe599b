import type { UnifiedLog } from '../log/unifiedLog';
import type { RecordBatch } from '../records';
import type { LeaderAppendResult, PartitionLog } from './partitionLog';
import type { EpochEndOffset } from './rules/truncation';

const NO_BATCHES: readonly RecordBatch[] = Object.freeze([]);

/** The replication layer's view of a UnifiedLog. */
export class UnifiedLogAdapter implements PartitionLog {
  constructor(readonly log: UnifiedLog) {}

  get logStartOffset(): number {
    return this.log.logStartOffset;
  }
  get logEndOffset(): number {
    return this.log.logEndOffset;
  }
  get highWatermark(): number {
    return this.log.highWatermark;
  }
  get lastStableOffset(): number {
    return this.log.lastStableOffset;
  }
  collectAbortedTransactions(startOffset: number, upperBoundOffset: number) {
    return this.log.collectAbortedTransactions(startOffset, upperBoundOffset);
  }
  producerAt(producerId: number) {
    return this.log.producerStateManager.lastEntry(producerId);
  }
  updateHighWatermark(hw: number): void {
    this.log.updateHighWatermark(hw);
  }
  appendAsLeader(batch: RecordBatch, leaderEpoch: number, nowMs: number, origin: 'CLIENT' | 'COORDINATOR' = 'CLIENT'): LeaderAppendResult {
    const r = this.log.appendAsLeader(batch, leaderEpoch, nowMs, origin);
    if (r.kind === 'appended') return { kind: 'appended', batch: r.batch, flushCompletesAt: r.flushCompletesAt };
    if (r.kind === 'duplicate') return { kind: 'duplicate', firstOffset: r.firstOffset, lastOffset: r.lastOffset };
    return { kind: 'error', error: r.error };
  }
  appendAsFollower(batches: readonly RecordBatch[]) {
    const r = this.log.appendAsFollower(batches);
    return r.kind === 'error' ? { error: r.error, flushCompletesAt: null } : { error: null, flushCompletesAt: r.flushCompletesAt };
  }
  read(startOffset: number, maxBytes: number, maxOffsetExclusive: number, minOneMessage: boolean) {
    const r = this.log.read(startOffset, maxBytes, maxOffsetExclusive, minOneMessage);
    // The log's own result when it read (no wrapper per read on the fetch path).
    return r.error === null ? r : { error: r.error, batches: NO_BATCHES };
  }
  truncateTo(offset: number): void {
    this.log.truncateTo(offset);
  }
  truncateFullyAndStartAt(offset: number): void {
    this.log.truncateFullyAndStartAt(offset);
  }
  maybeIncrementLogStartOffset(offset: number): void {
    // Refused (OFFSET_OUT_OF_RANGE) while the HW is below it; the next fetch moves both.
    this.log.maybeIncrementLogStartOffset(offset, 'LeaderOffsetIncremented');
  }
  latestEpoch(): number {
    return this.log.latestEpoch ?? -1;
  }
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.log.endOffsetForEpoch(epoch);
  }
  assignEpochStartOffset(epoch: number, startOffset: number): void {
    this.log.maybeAssignEpochStartOffset(epoch, startOffset);
  }
  fetchOffsetByTimestamp(timestampMs: number) {
    return this.log.fetchOffsetByTimestamp(timestampMs);
  }
}
