import type { Random } from '../../core/random';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { Disk } from '../../world/disk';
import { assignOffsets, lastOffset, nextOffset, type RecordBatch } from '../records';
import { LeaderEpochFileCache, type EpochEndOffset } from './leaderEpochFileCache';
import './logEvents';
import {
  isDeleteEnabled,
  maxOffsetIndexEntries,
  maxSegmentMs,
  maxTimeIndexEntries,
  DEFAULT_LOG_MANAGER_CONFIG,
  type LogConfig,
} from './logConfig';
import { CLEANED_FILE_SUFFIX, DELETED_FILE_SUFFIX, logFile, partitionDir } from './logFileNames';
import { loadSegments } from './logLoader';
import { LogSegment } from './logSegment';
import type { AppendOrigin } from './producerAppendInfo';
import { ProducerStateManager } from './producerStateManager';
import { lastStableOffset } from './lastStableOffset';
import type { CompletedTxn } from './lastStableOffset';
import { collectAbortedTxns, rebuildTransactionIndex, type AbortedTxn, type FetchAbortedTransaction } from './transactionIndex';
import {
  deletableSegmentCount,
  logStartOffsetBreach,
  retentionMsBreach,
  retentionSizeBreach,
  type RetentionReason,
  type SegmentPredicate,
} from './retention';
import { randomSegmentJitter, shouldRoll, type IncomingAppend, type RollReason } from './segmentRoll';
import type { TaskScheduler } from './taskScheduler';
import { topicPartitionName, type TopicPartition } from '../topicPartition';

/** What a log runs on: the broker's disk, trace, clock and timers, and a seeded stream for segment jitter. */
export interface LogEnvironment {
  readonly disk: Disk;
  readonly trace: Trace;
  /** The broker, as trace events name it. */
  readonly node: string;
  readonly tasks: TaskScheduler;
  readonly random: Random;
  /** Told when a log's start offset moves forward (a follower's fetcher then sends the new one). */
  readonly onLogStartOffsetIncremented?: (tp: TopicPartition) => void;
}

export interface LogOpenOptions {
  readonly topicPartition: TopicPartition;
  /** log.dirs: the partition lives in `<logDir>/<topic>-<partition>/`. */
  readonly logDir?: string;
  readonly config: LogConfig;
  readonly producerIdExpirationMs?: number;
  /** From recovery-point-offset-checkpoint. */
  readonly recoveryPoint?: number;
  /** From log-start-offset-checkpoint. */
  readonly logStartOffset?: number;
  /** From replication-offset-checkpoint (clamped to [log start, LEO]). */
  readonly highWatermark?: number;
  readonly hadCleanShutdown?: boolean;
}

/** Errors a leader append answers with. */
export type LogAppendError =
  | 'INVALID_PRODUCER_EPOCH'
  | 'INVALID_TXN_STATE'
  | 'OUT_OF_ORDER_SEQUENCE_NUMBER'
  | 'MESSAGE_TOO_LARGE'
  | 'RECORD_LIST_TOO_LARGE'
  | 'INVALID_RECORD'
  | 'KAFKA_STORAGE_ERROR';

export interface AppendedInfo {
  readonly kind: 'appended';
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** The batch as stored (offsets and leader epoch assigned): what followers and consumers will read. */
  readonly batch: RecordBatch;
  readonly recordCount: number;
  /** -1 for CreateTime topics (Kafka's NO_TIMESTAMP). */
  readonly logAppendTimeMs: number;
  readonly logStartOffset: number;
  readonly rolled: boolean;
  /**
   * Set when flush.messages forced an fsync: the time it completes. Kafka's append returns only after that
   * fsync, so a broker should answer the producer then.
   */
  readonly flushCompletesAt: Micros | null;
}

export interface DuplicateInfo {
  readonly kind: 'duplicate';
  /** Offsets of the original append of this batch. */
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly logAppendTimeMs: number;
  readonly logStartOffset: number;
}

export interface AppendFailure {
  readonly kind: 'error';
  readonly error: LogAppendError;
  readonly message: string;
}

export type LeaderAppendResult = AppendedInfo | DuplicateInfo | AppendFailure;

export interface FollowerAppendInfo {
  readonly kind: 'appended';
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly batches: number;
  readonly recordCount: number;
  readonly flushCompletesAt: Micros | null;
}

export type FollowerAppendResult = FollowerAppendInfo | AppendFailure;

export type LogReadResult =
  | { readonly error: null; readonly batches: readonly RecordBatch[]; readonly sizeInBytes: number }
  | { readonly error: 'OFFSET_OUT_OF_RANGE'; readonly message: string };

/** A read that found nothing (one shared, frozen result: most reads of a caught-up fetch find nothing). */
const EMPTY_READ: LogReadResult = Object.freeze({ error: null, batches: Object.freeze([]) as readonly RecordBatch[], sizeInBytes: 0 });

export type LogStartOffsetIncrementReason = 'SegmentDeletion' | 'ClientRecordDeletion' | 'LeaderOffsetIncremented' | 'SnapshotGenerated';

export type LogStartOffsetResult = { readonly error: null; readonly updated: boolean } | { readonly error: 'OFFSET_OUT_OF_RANGE'; readonly message: string };

/** A follower asked to append below its log end offset. [src: UnexpectedAppendOffsetException] */
export class UnexpectedAppendOffsetError extends Error {
  override readonly name = 'UnexpectedAppendOffsetError';
}

/** Batches given to a follower append are not in increasing offset order. [src: OffsetsOutOfOrderException] */
export class OffsetsOutOfOrderError extends Error {
  override readonly name = 'OffsetsOutOfOrderError';
}

/** What the UI and tests see of a segment. */
export interface SegmentInspection {
  readonly baseOffset: number;
  readonly nextOffset: number;
  readonly file: string;
  readonly size: number;
  readonly batches: number;
  readonly records: number;
  readonly largestTimestamp: number;
}

/** The append `maybeRoll` asks the roll rule about: one scratch object, as that runs before every append (the rule keeps nothing). */
const INCOMING: { -readonly [K in keyof IncomingAppend]: IncomingAppend[K] } = { sizeInBytes: 0, maxTimestamp: 0, lastOffset: 0, nowMs: 0, maxSegmentBytes: 0, maxSegmentMs: 0 };

/**
 * The log of one replica of one partition: its segments on the broker's disk, the log start and end offsets,
 * the high watermark and recovery point, the leader-epoch cache and the idempotent-producer state.
 * Leaders append and assign offsets; followers append verbatim; fetches read whole batches.
 * [src: core/src/main/scala/kafka/log/UnifiedLog.scala; storage/.../log/LocalLog.java]
 */
export class UnifiedLog {
  readonly topicPartition: TopicPartition;
  readonly name: string;
  readonly dir: string;
  readonly leaderEpochCache: LeaderEpochFileCache;
  readonly producerStateManager: ProducerStateManager;

  private _config: LogConfig;
  private readonly segments: LogSegment[] = [];
  private _logStartOffset = 0;
  private _logEndOffset = 0;
  private _highWatermark = 0;
  private _recoveryPoint = 0;
  /** An fsync up to here has been started (the recovery point follows when it completes). */
  private flushRequestedOffset = 0;
  private _lastFlushTimeMs: number;
  private _closed = false;
  private truncationHook: ((toOffset: number) => void) | null = null;
  /**
   * The aborted-transaction index of every segment, in marker order (each entry lives in its marker's segment,
   * so retention drops the entries below the first remaining segment). [src: LogSegment `txnIndex`]
   */
  private abortedTxns: AbortedTxn[] = [];

  private constructor(
    private readonly env: LogEnvironment,
    opts: LogOpenOptions,
  ) {
    this.topicPartition = opts.topicPartition;
    this.name = topicPartitionName(opts.topicPartition);
    this.dir = partitionDir(opts.logDir ?? DEFAULT_LOG_MANAGER_CONFIG['log.dirs'], opts.topicPartition);
    this._config = opts.config;
    this.leaderEpochCache = LeaderEpochFileCache.load(env.disk, this.dir, env.tasks);
    this.producerStateManager = new ProducerStateManager(
      env.disk,
      this.dir,
      opts.producerIdExpirationMs ?? DEFAULT_LOG_MANAGER_CONFIG['producer.id.expiration.ms'],
    );
    this._lastFlushTimeMs = this.nowMs();
  }

  /**
   * Opens the log from whatever its directory holds (an empty directory is a new log): keeps every whole,
   * valid batch up to the first torn or invalid one, drops that one and everything after it, rebuilds the
   * indexes, the epoch cache and the producer state, and traces what recovery dropped.
   * [src: storage/.../log/LogLoader.java `load`, `recoverLog`]
   */
  static open(env: LogEnvironment, opts: LogOpenOptions): UnifiedLog {
    const log = new UnifiedLog(env, opts);
    log.load(opts);
    return log;
  }

  // ---- state ----

  get config(): LogConfig {
    return this._config;
  }

  /** Topic config changes apply to the next append and the next retention or cleaning pass. */
  updateConfig(config: LogConfig): void {
    this._config = config;
  }

  get logStartOffset(): number {
    return this._logStartOffset;
  }

  get logEndOffset(): number {
    return this._logEndOffset;
  }

  get highWatermark(): number {
    return this._highWatermark;
  }

  /** min(HW, first unstable offset): read_committed fetches stop here. [src: UnifiedLog `lastStableOffset`] */
  get lastStableOffset(): number {
    const psm = this.producerStateManager;
    if (!psm.hasUnstableTransactions) return this._highWatermark;
    return lastStableOffset(this._highWatermark, psm.firstUnstableOffset(this._logStartOffset));
  }

  /** The aborted-transaction index (inspection: UI, tests). */
  get abortedTransactions(): readonly AbortedTxn[] {
    return this.abortedTxns;
  }

  /**
   * The aborted transactions a read_committed fetch of [startOffset, upperBoundOffset) must carry, from the
   * index of the segment holding the start on. [src: UnifiedLog `collectAbortedTransactions`; LocalLog `collectAbortedTransactions`]
   */
  collectAbortedTransactions(startOffset: number, upperBoundOffset: number): FetchAbortedTransaction[] {
    if (this.abortedTxns.length === 0) return [];
    const segmentBase = this.segments[this.floorSegmentIndex(startOffset)]!.baseOffset;
    const fromSegment = this.abortedTxns.filter((t) => t.lastOffset >= segmentBase);
    return collectAbortedTxns(fromSegment, startOffset, upperBoundOffset).abortedTransactions.map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset }));
  }

  /** A marker decided a transaction: index it if aborted, then complete it. [src: UnifiedLog `append` (updateTxnIndex, completeTxn)] */
  private onCompletedTxn(completed: CompletedTxn, index: boolean): void {
    const psm = this.producerStateManager;
    if (index && completed.isAborted) {
      const { producerId, firstOffset, lastOffset: markerOffset } = completed;
      this.abortedTxns.push({ producerId, firstOffset, lastOffset: markerOffset, lastStableOffset: psm.lastStableOffset(completed) });
    }
    psm.completeTxn(completed);
  }

  get recoveryPoint(): number {
    return this._recoveryPoint;
  }

  get lastFlushTimeMs(): number {
    return this._lastFlushTimeMs;
  }

  /** Messages appended since the last fsync was started. [src: LocalLog `unflushedMessages`] */
  get unflushedMessages(): number {
    return this._logEndOffset - Math.max(this._recoveryPoint, this.flushRequestedOffset);
  }

  get closed(): boolean {
    return this._closed;
  }

  /** Total bytes of all segments. */
  get size(): number {
    let n = 0;
    for (const s of this.segments) n += s.size;
    return n;
  }

  get numberOfSegments(): number {
    return this.segments.length;
  }

  get activeSegment(): LogSegment {
    return this.segments[this.segments.length - 1]!;
  }

  /** The segments, oldest first. Read-only: the cleaner and tests look, only the log changes them. */
  logSegments(): readonly LogSegment[] {
    return this.segments;
  }

  get latestEpoch(): number | undefined {
    return this.leaderEpochCache.latestEpoch;
  }

  /** OffsetsForLeaderEpoch for this log. [src: UnifiedLog `endOffsetForEpoch`; LeaderEpochFileCache `endOffsetFor`] */
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.leaderEpochCache.endOffsetFor(epoch, this._logEndOffset);
  }

  /** Records that `epoch` starts at `startOffset` (a new leader does this at its LEO, KIP-279). [src: UnifiedLog `maybeAssignEpochStartOffset`] */
  maybeAssignEpochStartOffset(epoch: number, startOffset: number): void {
    this.leaderEpochCache.assign(epoch, startOffset);
  }

  /** Called with the new end offset whenever the log is truncated (the cleaner resets its checkpoint). */
  setTruncationHook(fn: ((toOffset: number) => void) | null): void {
    this.truncationHook = fn;
  }

  // ---- appends ----

  /**
   * A leader append: validates, assigns offsets from the LEO and stamps `leaderEpoch`, checks the idempotent
   * producer's sequence (a duplicate is answered with its original offsets and not appended), rolls if needed,
   * writes to the page cache. [src: UnifiedLog.scala `appendAsLeader`, `append`, `analyzeAndValidateProducerState`]
   */
  appendAsLeader(batch: RecordBatch, leaderEpoch: number, nowMs: number = this.nowMs(), origin: Exclude<AppendOrigin, 'REPLICATION'> = 'CLIENT'): LeaderAppendResult {
    this.ensureOpen();
    const config = this._config;
    if (batch.recordCount === 0) return { kind: 'error', error: 'INVALID_RECORD', message: 'a produced batch must hold at least one record' };
    // [src: UnifiedLog `analyzeAndValidateRecords`] max.message.bytes bounds one batch.
    if (batch.sizeInBytes > config['max.message.bytes']) {
      return {
        kind: 'error',
        error: 'MESSAGE_TOO_LARGE',
        message: `the batch is ${batch.sizeInBytes} bytes, more than max.message.bytes ${config['max.message.bytes']}`,
      };
    }
    const logAppendTime = config['message.timestamp.type'] === 'LogAppendTime';
    const stamped = assignOffsets(batch, this._logEndOffset, leaderEpoch, logAppendTime ? nowMs : undefined);
    // [src: UnifiedLog `append`] an append larger than a whole segment can never fit.
    if (stamped.sizeInBytes > config['segment.bytes']) {
      return {
        kind: 'error',
        error: 'RECORD_LIST_TOO_LARGE',
        message: `the batch is ${stamped.sizeInBytes} bytes, more than segment.bytes ${config['segment.bytes']}`,
      };
    }
    const rolled = this.maybeRoll(stamped, nowMs);
    if (leaderEpoch >= 0) this.leaderEpochCache.assign(leaderEpoch, stamped.baseOffset);
    const check = this.producerStateManager.check(stamped, origin);
    if (check.kind === 'duplicate') {
      return {
        kind: 'duplicate',
        firstOffset: check.batch.firstOffset,
        lastOffset: check.batch.lastOffset,
        logAppendTimeMs: logAppendTime ? check.batch.timestamp : -1,
        logStartOffset: this._logStartOffset,
      };
    }
    if (check.kind === 'error') return { kind: 'error', error: check.error, message: check.message };
    const err = this.activeSegment.append(stamped, nowMs, config['index.interval.bytes']);
    if (err !== null) return { kind: 'error', error: 'KAFKA_STORAGE_ERROR', message: `the disk refused the write (${err})` };
    this._logEndOffset = nextOffset(stamped);
    const completed = this.producerStateManager.update(stamped);
    if (completed !== undefined) this.onCompletedTxn(completed, true);
    return {
      kind: 'appended',
      firstOffset: stamped.baseOffset,
      lastOffset: lastOffset(stamped),
      batch: stamped,
      recordCount: stamped.recordCount,
      logAppendTimeMs: logAppendTime ? nowMs : -1,
      logStartOffset: this._logStartOffset,
      rolled,
      flushCompletesAt: this.maybeFlushByMessages(),
    };
  }

  /**
   * A follower append: batches copied verbatim from the leader (offsets, leader epochs, producer fields kept).
   * The first batch may not start below the LEO; it may start above it (a compacted leader log has gaps).
   * Producer state is updated without checks. [src: UnifiedLog.scala `appendAsFollower`]
   */
  appendAsFollower(batches: readonly RecordBatch[], nowMs: number = this.nowMs()): FollowerAppendResult {
    this.ensureOpen();
    const first = batches[0];
    if (first === undefined) {
      return { kind: 'appended', firstOffset: this._logEndOffset, lastOffset: this._logEndOffset - 1, batches: 0, recordCount: 0, flushCompletesAt: null };
    }
    if (first.baseOffset < this._logEndOffset) {
      throw new UnexpectedAppendOffsetError(
        `${this.name}: a follower append starts at offset ${first.baseOffset}, below the log end offset ${this._logEndOffset}`,
      );
    }
    let expect = first.baseOffset;
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      if (b.baseOffset < expect || b.lastOffsetDelta < 0) {
        throw new OffsetsOutOfOrderError(`${this.name}: a follower append has batches out of order at offset ${b.baseOffset}`);
      }
      expect = nextOffset(b);
      if (b.sizeInBytes > this._config['segment.bytes']) {
        return { kind: 'error', error: 'RECORD_LIST_TOO_LARGE', message: `a batch of ${b.sizeInBytes} bytes is more than segment.bytes ${this._config['segment.bytes']}` };
      }
    }
    let records = 0;
    let appended = 0;
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      this.maybeRoll(b, nowMs);
      if (b.partitionLeaderEpoch >= 0) this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
      const err = this.activeSegment.append(b, nowMs, this._config['index.interval.bytes']);
      if (err !== null) {
        if (appended === 0) return { kind: 'error', error: 'KAFKA_STORAGE_ERROR', message: `the disk refused the write (${err})` };
        break;
      }
      this._logEndOffset = nextOffset(b);
      const completed = this.producerStateManager.update(b);
      if (completed !== undefined) this.onCompletedTxn(completed, true);
      records += b.recordCount;
      appended++;
    }
    return {
      kind: 'appended',
      firstOffset: first.baseOffset,
      lastOffset: this._logEndOffset - 1,
      batches: appended,
      recordCount: records,
      flushCompletesAt: this.maybeFlushByMessages(),
    };
  }

  /** Rolls before an append when a roll rule says so. [src: UnifiedLog `maybeRoll`] */
  private maybeRoll(batch: RecordBatch, nowMs: number): boolean {
    const a = INCOMING;
    a.sizeInBytes = batch.sizeInBytes;
    a.maxTimestamp = batch.maxTimestamp;
    a.lastOffset = lastOffset(batch);
    a.nowMs = nowMs;
    a.maxSegmentBytes = this._config['segment.bytes'];
    a.maxSegmentMs = maxSegmentMs(this._config);
    const reason = shouldRoll(this.activeSegment.rollState(), a);
    if (reason === null) return false;
    return this.roll(batch.baseOffset, reason) !== null;
  }

  /**
   * Starts a new active segment at max(expectedNextOffset, LEO), snapshots the producer state there and
   * flushes the older segments, as Kafka does in the background after a roll. Returns the new segment, or
   * null when the active segment is already empty at that offset. [src: UnifiedLog `roll`; LocalLog `roll`]
   */
  roll(expectedNextOffset = 0, reason: RollReason | 'retention' | 'requested' = 'requested'): LogSegment | null {
    this.ensureOpen();
    const newOffset = Math.max(expectedNextOffset, this._logEndOffset);
    const active = this.activeSegment;
    if (active.baseOffset === newOffset && active.isEmpty) return null;
    const segment = this.newSegment(newOffset);
    this.segments.push(segment);
    this.producerStateManager.updateMapEndOffset(newOffset);
    this.producerStateManager.takeSnapshot();
    this.flush(newOffset);
    this.env.trace.emit('log.roll', this.env.node, {
      topic: this.topicPartition.topic,
      partition: this.topicPartition.partition,
      baseOffset: newOffset,
      previousBaseOffset: active.baseOffset,
      reason,
    });
    return segment;
  }

  private newSegment(baseOffset: number): LogSegment {
    const c = this._config;
    const file = logFile(this.dir, baseOffset);
    this.env.disk.create(file);
    const jitter = randomSegmentJitter(c['segment.jitter.ms'], c['segment.ms'], () => this.env.random.next());
    return new LogSegment(this.env.disk, file, baseOffset, this.indexLimits(), this.nowMs(), jitter);
  }

  private indexLimits() {
    return { maxOffsetIndexEntries: maxOffsetIndexEntries(this._config), maxTimeIndexEntries: maxTimeIndexEntries(this._config) };
  }

  // ---- reads ----

  /**
   * Whole batches from the one holding `startOffset`, from a single segment as Kafka reads: up to `maxBytes`
   * (at least one batch when `minOneMessage`, KIP-74), none reaching `maxOffsetExclusive` (the HW for
   * consumers, the LEO for followers). Below the log start offset or above the LEO: OFFSET_OUT_OF_RANGE.
   * [src: UnifiedLog `read`; LocalLog `read`; LogSegment `read`]
   */
  read(startOffset: number, maxBytes: number, maxOffsetExclusive: number = this._logEndOffset, minOneMessage = true): LogReadResult {
    this.ensureOpen();
    if (startOffset < this._logStartOffset || startOffset > this._logEndOffset) {
      return {
        error: 'OFFSET_OUT_OF_RANGE',
        message: `${this.name}: offset ${startOffset} is outside [${this._logStartOffset}, ${this._logEndOffset}]`,
      };
    }
    if (startOffset >= maxOffsetExclusive || startOffset === this._logEndOffset) return EMPTY_READ;
    for (let i = this.floorSegmentIndex(startOffset); i < this.segments.length; i++) {
      const got = this.segments[i]!.read(startOffset, maxBytes, maxOffsetExclusive, minOneMessage);
      if (got === null) continue;
      let bytes = 0;
      for (const b of got) bytes += b.sizeInBytes;
      return { error: null, batches: got, sizeInBytes: bytes };
    }
    return EMPTY_READ;
  }

  /** Index of the last segment with base offset <= `offset` (0 when the offset is below them all). */
  private floorSegmentIndex(offset: number): number {
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (segs[mid]!.baseOffset <= offset) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo - 1);
  }

  /** The first record with a timestamp >= target at or after the log start (ListOffsets by time). [src: UnifiedLog `fetchOffsetByTimestamp`] */
  fetchOffsetByTimestamp(targetTimestamp: number): { offset: number; timestamp: number; leaderEpoch: number } | null {
    for (const s of this.segments) {
      if (s.largestTimestamp < targetTimestamp || s.nextOffset <= this._logStartOffset) continue;
      const found = s.findOffsetByTimestamp(targetTimestamp, this._logStartOffset);
      if (found !== null) return found;
    }
    return null;
  }

  // ---- high watermark and log start offset ----

  /** Sets the HW, clamped to [log start, LEO] (a follower copying the leader's, a restart). Returns it. [src: UnifiedLog `updateHighWatermark`] */
  updateHighWatermark(hw: number): number {
    const clamped = hw < this._logStartOffset ? this._logStartOffset : hw > this._logEndOffset ? this._logEndOffset : hw;
    this._highWatermark = clamped;
    this.producerStateManager.onHighWatermarkUpdated(clamped);
    return clamped;
  }

  /** Moves the HW forward only (the leader's rule decided `hw`). True if it moved. [src: UnifiedLog `maybeIncrementHighWatermark`] */
  maybeIncrementHighWatermark(hw: number): boolean {
    if (hw > this._logEndOffset) throw new RangeError(`${this.name}: high watermark ${hw} is above the log end offset ${this._logEndOffset}`);
    if (hw <= this._highWatermark) return false;
    this._highWatermark = hw;
    this.producerStateManager.onHighWatermarkUpdated(hw);
    return true;
  }

  /**
   * Moves the log start offset forward (DeleteRecords, a follower following the leader's start, retention).
   * Never past the HW. [src: UnifiedLog `maybeIncrementLogStartOffset`, `updateLogStartOffset`]
   */
  maybeIncrementLogStartOffset(newLogStartOffset: number, _reason: LogStartOffsetIncrementReason): LogStartOffsetResult {
    this.ensureOpen();
    if (newLogStartOffset > this._highWatermark) {
      return {
        error: 'OFFSET_OUT_OF_RANGE',
        message: `${this.name}: cannot move the log start offset to ${newLogStartOffset}, above the high watermark ${this._highWatermark}`,
      };
    }
    if (newLogStartOffset <= this._logStartOffset) return { error: null, updated: false };
    this._logStartOffset = newLogStartOffset;
    if (this._recoveryPoint < newLogStartOffset) this._recoveryPoint = newLogStartOffset;
    if (this.flushRequestedOffset < newLogStartOffset) this.flushRequestedOffset = newLogStartOffset;
    this.leaderEpochCache.truncateFromStart(newLogStartOffset);
    if (this.producerStateManager.mapEndOffset < newLogStartOffset) this.producerStateManager.updateMapEndOffset(newLogStartOffset);
    this.producerStateManager.onLogStartOffsetIncremented(newLogStartOffset);
    this.env.onLogStartOffsetIncremented?.(this.topicPartition);
    return { error: null, updated: true };
  }

  // ---- truncation ----

  /**
   * Removes everything at and after `targetOffset` (a follower whose log diverged from the leader's).
   * Returns false when there was nothing to remove. [src: UnifiedLog `truncateTo`; LocalLog `truncateTo`]
   */
  truncateTo(targetOffset: number): boolean {
    this.ensureOpen();
    if (targetOffset < 0) throw new RangeError(`${this.name}: cannot truncate to a negative offset (${targetOffset})`);
    if (targetOffset >= this._logEndOffset) {
      // An epoch entry may have been assigned at the LEO by a leader that then lost leadership before appending.
      this.leaderEpochCache.truncateFromEnd(this._logEndOffset);
      return false;
    }
    if (this.segments[0]!.baseOffset > targetOffset) {
      this.truncateFullyAndStartAt(targetOffset);
      return true;
    }
    const previousLogEndOffset = this._logEndOffset;
    const nowMs = this.nowMs();
    // Removed batches, as runs in log order (no copying: a segment can hold very many batches).
    const removed: (readonly RecordBatch[])[] = [];
    while (this.segments.length > 1 && this.activeSegment.baseOffset > targetOffset) {
      const seg = this.segments.pop()!;
      removed.unshift(seg.batches);
      this.deleteSegmentFiles([seg]);
    }
    removed.unshift(this.activeSegment.truncateTo(targetOffset, nowMs));
    this.leaderEpochCache.truncateFromEnd(targetOffset);
    this._logStartOffset = Math.min(targetOffset, this._logStartOffset);
    this._logEndOffset = targetOffset;
    if (this._recoveryPoint > targetOffset) this._recoveryPoint = targetOffset;
    if (this.flushRequestedOffset > targetOffset) this.flushRequestedOffset = targetOffset;
    // [src: LogSegment `truncateTo` -> TransactionIndex `truncateTo`] entries of removed markers go.
    if (this.abortedTxns.length > 0) this.abortedTxns = this.abortedTxns.filter((t) => t.lastOffset < targetOffset);
    this.rebuildProducerState(targetOffset, nowMs);
    if (this._highWatermark >= this._logEndOffset) this._highWatermark = this._logEndOffset;
    this.traceTruncation('truncateTo', targetOffset, previousLogEndOffset, removed);
    this.truncationHook?.(targetOffset);
    return true;
  }

  /**
   * Deletes every segment and starts empty at `newOffset` (a follower far behind a leader whose log starts
   * later). [src: UnifiedLog `truncateFullyAndStartAt`; LocalLog `truncateFullyAndStartAt`]
   */
  truncateFullyAndStartAt(newOffset: number): void {
    this.ensureOpen();
    const previousLogEndOffset = this._logEndOffset;
    const removed: (readonly RecordBatch[])[] = this.segments.map((s) => s.batches);
    this.deleteSegmentFiles(this.segments.splice(0));
    this.segments.push(this.newSegment(newOffset));
    this.leaderEpochCache.clear();
    this.producerStateManager.truncateFullyAndStartAt(newOffset);
    this.abortedTxns = [];
    this._logStartOffset = newOffset;
    this._logEndOffset = newOffset;
    this._recoveryPoint = newOffset;
    this.flushRequestedOffset = newOffset;
    this._highWatermark = newOffset;
    this.traceTruncation('truncateFullyAndStartAt', newOffset, previousLogEndOffset, removed);
    this.truncationHook?.(newOffset);
  }

  private traceTruncation(
    method: 'truncateTo' | 'truncateFullyAndStartAt',
    toOffset: number,
    previousLogEndOffset: number,
    removed: readonly (readonly RecordBatch[])[],
  ): void {
    let records = 0;
    let batches = 0;
    let first: RecordBatch | undefined;
    let last: RecordBatch | undefined;
    const epochs = new Set<number>();
    for (const run of removed) {
      for (const b of run) {
        first ??= b;
        last = b;
        batches++;
        records += b.recordCount;
        epochs.add(b.partitionLeaderEpoch);
      }
    }
    this.env.trace.emit('log.truncate', this.env.node, {
      topic: this.topicPartition.topic,
      partition: this.topicPartition.partition,
      method,
      toOffset,
      previousLogEndOffset,
      logEndOffset: this._logEndOffset,
      removedBatches: batches,
      removedRecords: records,
      removedFrom: first === undefined ? null : first.baseOffset,
      removedTo: last === undefined ? null : nextOffset(last),
      removedEpochs: [...epochs].sort((a, b) => a - b),
      highWatermark: this._highWatermark,
    });
  }

  /**
   * Reloads producer state from the latest snapshot at or below `lastOffset` and replays the log from there.
   * [src: UnifiedLog.scala `rebuildProducerState`]
   */
  private rebuildProducerState(lastOffsetExclusive: number, nowMs: number): void {
    const psm = this.producerStateManager;
    psm.truncateAndReload(this._logStartOffset, lastOffsetExclusive, nowMs);
    const from = Math.max(psm.mapEndOffset, this._logStartOffset);
    for (let i = this.floorSegmentIndex(from); i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      if (seg.baseOffset >= lastOffsetExclusive) break;
      for (const b of seg.batches) {
        if (nextOffset(b) <= from) continue;
        if (b.baseOffset >= lastOffsetExclusive) break;
        // The index already holds what these markers aborted; only the open/decided state is rebuilt.
        const completed = psm.update(b);
        if (completed !== undefined) this.onCompletedTxn(completed, false);
      }
    }
    psm.updateMapEndOffset(lastOffsetExclusive);
    psm.takeSnapshot();
  }

  // ---- retention ----

  /**
   * Retention: for cleanup.policy with delete, the log-start-offset, size and time breaches in that order;
   * for compact only, the log-start-offset breach. Returns how many segments were deleted.
   * [src: UnifiedLog.scala `deleteOldSegments`]
   */
  deleteOldSegments(nowMs: number = this.nowMs()): number {
    this.ensureOpen();
    let deleted = this.deleteSegmentsWhere('log-start-offset', logStartOffsetBreach(this._logStartOffset));
    if (isDeleteEnabled(this._config)) {
      const bySize = retentionSizeBreach(this.size, this._config['retention.bytes']);
      if (bySize !== null) deleted += this.deleteSegmentsWhere('retention.bytes', bySize);
      const byTime = retentionMsBreach(nowMs, this._config['retention.ms']);
      if (byTime !== null) deleted += this.deleteSegmentsWhere('retention.ms', byTime);
    }
    return deleted;
  }

  private deleteSegmentsWhere(reason: RetentionReason, predicate: SegmentPredicate): number {
    const n = deletableSegmentCount(this.segments, this._logEndOffset, this._highWatermark, predicate);
    if (n === 0) return 0;
    // There is always an active segment: if everything goes, roll an empty one first. [src: UnifiedLog `deleteSegments`]
    if (n === this.segments.length) this.roll(this._logEndOffset, 'retention');
    const gone = this.segments.splice(0, n);
    let records = 0;
    let bytes = 0;
    for (const s of gone) {
      records += s.recordCount;
      bytes += s.size;
      this.producerStateManager.deleteSnapshot(s.baseOffset);
    }
    this.deleteSegmentFiles(gone);
    const firstKept = this.segments[0]!.baseOffset;
    if (this.abortedTxns.length > 0) this.abortedTxns = this.abortedTxns.filter((t) => t.lastOffset >= firstKept);
    const fromOffset = Math.min(this._logStartOffset, gone[0]!.baseOffset);
    this.maybeIncrementLogStartOffset(this.segments[0]!.baseOffset, 'SegmentDeletion');
    this.env.trace.emit('log.retention', this.env.node, {
      topic: this.topicPartition.topic,
      partition: this.topicPartition.partition,
      reason,
      segments: gone.map((s) => s.baseOffset),
      fromOffset,
      toOffset: this.segments[0]!.baseOffset,
      deletedRecords: records,
      deletedBytes: bytes,
      logStartOffset: this._logStartOffset,
    });
    return n;
  }

  /** Marks segment files `.deleted` and removes them after file.delete.delay.ms. [src: LocalLog `deleteSegmentFiles`] */
  private deleteSegmentFiles(segs: readonly LogSegment[]): void {
    const disk = this.env.disk;
    for (const s of segs) {
      const doomed = s.file + DELETED_FILE_SUFFIX;
      s.renameTo(doomed);
      this.env.tasks.schedule(ms(this._config['file.delete.delay.ms']), () => disk.delete(doomed));
    }
  }

  // ---- cleaning support ----

  /**
   * Swaps cleaned segments (written to `.cleaned` files and fsynced) in for `old`, which must still be
   * consecutive segments of this log below the active one. False when the log changed meanwhile.
   * [src: UnifiedLog `replaceSegments`; LocalLog `replaceSegments`]
   */
  replaceSegments(cleaned: readonly LogSegment[], old: readonly LogSegment[]): boolean {
    this.ensureOpen();
    const start = this.segments.indexOf(old[0]!);
    if (start < 0 || start + old.length >= this.segments.length) return false;
    for (let i = 0; i < old.length; i++) if (this.segments[start + i] !== old[i]) return false;
    const oldFiles = new Set(old.map((s) => s.file));
    for (const c of cleaned) {
      const target = logFile(this.dir, c.baseOffset);
      c.renameTo(target);
      oldFiles.delete(target);
    }
    for (const s of old) {
      if (oldFiles.has(s.file)) this.deleteSegmentFiles([s]);
    }
    this.segments.splice(start, old.length, ...cleaned);
    return true;
  }

  /** A segment that the cleaner fills (file `<base>.log.cleaned`). */
  createCleanedSegment(baseOffset: number, lastModifiedMs: number): LogSegment {
    const file = logFile(this.dir, baseOffset) + CLEANED_FILE_SUFFIX;
    this.env.disk.rewrite(file, []);
    const s = new LogSegment(this.env.disk, file, baseOffset, this.indexLimits(), lastModifiedMs, 0);
    s.lastModifiedMs = lastModifiedMs;
    return s;
  }

  // ---- flushing ----

  /**
   * Starts fsyncs of every segment holding data below `upToOffset` not yet flushed; the recovery point moves
   * up when they complete. Returns the completion time. [src: UnifiedLog `flush`; LocalLog `flush`]
   */
  flush(upToOffset: number = this._logEndOffset): Micros {
    const tasks = this.env.tasks;
    const from = Math.max(this._recoveryPoint, this.flushRequestedOffset);
    if (upToOffset <= from) return tasks.now;
    let done = tasks.now;
    for (const s of this.segments) {
      if (s.nextOffset <= from || s.isEmpty) continue;
      if (s.baseOffset >= upToOffset) break;
      done = Math.max(done, s.flush());
    }
    this.flushRequestedOffset = upToOffset;
    this._lastFlushTimeMs = this.nowMs();
    this.env.trace.emit('log.flush', this.env.node, { topic: this.topicPartition.topic, partition: this.topicPartition.partition, upTo: upToOffset, completesAt: done });
    tasks.schedule(done - tasks.now, () => {
      if (!this._closed && upToOffset > this._recoveryPoint && upToOffset <= this._logEndOffset) this._recoveryPoint = upToOffset;
    });
    return done;
  }

  /** flush.messages: fsync once that many messages are unflushed. [src: UnifiedLog `append`] */
  private maybeFlushByMessages(): Micros | null {
    if (this.unflushedMessages >= this._config['flush.messages']) return this.flush();
    return null;
  }

  /** flush.ms, called by the log manager's flusher. [src: LogManager `flushDirtyLogs`] */
  maybeFlushByTime(nowMs: number = this.nowMs()): Micros | null {
    if (this.unflushedMessages > 0 && nowMs - this._lastFlushTimeMs >= this._config['flush.ms']) return this.flush();
    return null;
  }

  // ---- lifecycle ----

  /** Stops using the log (the broker stopped, or the replica moved away); the files stay. */
  close(): void {
    this._closed = true;
  }

  /** Removes the partition's directory (the partition was deleted or reassigned away). */
  delete(): void {
    this._closed = true;
    for (const f of this.env.disk.list(`${this.dir}/`)) this.env.disk.delete(f);
  }

  inspect(): {
    logStartOffset: number;
    logEndOffset: number;
    highWatermark: number;
    recoveryPoint: number;
    segments: SegmentInspection[];
    epochs: { epoch: number; startOffset: number }[];
  } {
    return {
      logStartOffset: this._logStartOffset,
      logEndOffset: this._logEndOffset,
      highWatermark: this._highWatermark,
      recoveryPoint: this._recoveryPoint,
      segments: this.segments.map((s) => ({
        baseOffset: s.baseOffset,
        nextOffset: s.nextOffset,
        file: s.file,
        size: s.size,
        batches: s.batches.length,
        records: s.recordCount,
        largestTimestamp: s.largestTimestamp,
      })),
      epochs: this.leaderEpochCache.epochEntries().map((e) => ({ epoch: e.epoch, startOffset: e.startOffset })),
    };
  }

  // ---- loading ----

  private load(opts: LogOpenOptions): void {
    const disk = this.env.disk;
    const nowMs = this.nowMs();
    const cleanShutdown = opts.hadCleanShutdown === true;
    const logStartOffsetCheckpoint = opts.logStartOffset ?? 0;
    const recoveryPointCheckpoint = opts.recoveryPoint ?? 0;
    const loaded = loadSegments(disk, this.dir, this.indexLimits(), this._config['index.interval.bytes'], nowMs);
    this.segments.push(...loaded.segments);
    // Segments entirely below a checkpointed log start offset that is past the end. [src: LogLoader `deleteSegmentsIfLogStartGreaterThanLogEnd`]
    const lastSeg = this.segments[this.segments.length - 1];
    if (lastSeg !== undefined && lastSeg.nextOffset < logStartOffsetCheckpoint) {
      for (const s of this.segments) disk.delete(s.file);
      this.segments.length = 0;
      this.leaderEpochCache.clear();
    }
    if (this.segments.length === 0) this.segments.push(this.newSegment(logStartOffsetCheckpoint));
    const active = this.activeSegment;
    active.createdMs = nowMs;

    this._logEndOffset = active.nextOffset;
    this._recoveryPoint = cleanShutdown ? this._logEndOffset : Math.min(recoveryPointCheckpoint, this._logEndOffset);
    this.flushRequestedOffset = this._recoveryPoint;
    // Segments from the recovery point on were recovered: their batches' epochs go into the cache.
    // [src: LogSegment `recover` assigns each batch's epoch]
    if (!cleanShutdown) {
      for (let i = this.floorSegmentIndex(this._recoveryPoint); i < this.segments.length; i++) {
        for (const b of this.segments[i]!.batches) if (b.partitionLeaderEpoch >= 0) this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
      }
    }
    this.leaderEpochCache.truncateFromEnd(this._logEndOffset);
    this._logStartOffset = Math.max(logStartOffsetCheckpoint, this.segments[0]!.baseOffset);
    this.leaderEpochCache.truncateFromStart(logStartOffsetCheckpoint);
    this.abortedTxns = rebuildTransactionIndex(this.allBatches(), this._logStartOffset);
    this.rebuildProducerState(this._logEndOffset, nowMs);
    this._highWatermark = this._logStartOffset;
    if (opts.highWatermark !== undefined) this.updateHighWatermark(opts.highWatermark);

    const dropped = loaded.dropped;
    let droppedRecords = 0;
    for (const b of dropped) droppedRecords += b.recordCount;
    const firstDropped = dropped[0];
    this.env.trace.emit('log.recovery', this.env.node, {
      topic: this.topicPartition.topic,
      partition: this.topicPartition.partition,
      cleanShutdown,
      segments: this.segments.length,
      batches: loaded.batches,
      logStartOffset: this._logStartOffset,
      logEndOffset: this._logEndOffset,
      recoveryPoint: this._recoveryPoint,
      highWatermark: this._highWatermark,
      stop: loaded.stop,
      droppedBatches: dropped.length,
      droppedRecords,
      droppedFrom: firstDropped === undefined ? null : firstDropped.baseOffset,
      droppedTo: firstDropped === undefined ? null : nextOffset(dropped[dropped.length - 1]!),
      droppedSegments: [...loaded.droppedSegments],
    });
  }

  // ---- helpers ----

  private *allBatches(): Iterable<RecordBatch> {
    for (const seg of this.segments) yield* seg.batches;
  }

  private nowMs(): number {
    return Math.floor(this.env.tasks.now / 1000);
  }

  private ensureOpen(): void {
    if (this._closed) throw new Error(`${this.name}: the log is closed`);
  }
}
