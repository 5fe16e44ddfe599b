import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { MICROS_PER_SECOND, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { Disk } from '../../world/disk';
import { evaluateLog, filthiest, type CleanableLogView, type LogToClean } from './cleanerSelection';
import { CheckpointFile, checkpointBytes } from './checkpointFile';
import { isCompacted, type LogManagerConfig } from './logConfig';
import { maxOffsetMapEntries, planCleaning, type CleanerSegment, type CleaningPlan } from './logCleaning';
import './logEvents';
import { CLEANER_OFFSET_CHECKPOINT_FILE } from './logFileNames';
import type { LogSegment } from './logSegment';
import type { TaskScheduler } from './taskScheduler';
import type { UnifiedLog } from './unifiedLog';

export interface CleanerEnvironment {
  readonly disk: Disk;
  readonly trace: Trace;
  readonly node: string;
  readonly tasks: TaskScheduler;
}

interface Cleaning {
  readonly log: UnifiedLog;
  readonly plan: CleaningPlan;
  /** The segments each group replaces, and how many batches each held when the plan was made. */
  readonly old: readonly (readonly LogSegment[])[];
  readonly batchCounts: readonly (readonly number[])[];
  readonly startedAt: Micros;
  cleaned: LogSegment[] | null;
  timer: TimerId;
}

/** The view of a log the selection rules read. */
export function cleanableView(log: UnifiedLog): CleanableLogView {
  const c = log.config;
  return {
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    lastStableOffset: log.lastStableOffset,
    segments: log.logSegments(),
    minCompactionLagMs: c['min.compaction.lag.ms'],
    maxCompactionLagMs: c['max.compaction.lag.ms'],
    minCleanableDirtyRatio: c['min.cleanable.dirty.ratio'],
  };
}

function cleanerSegments(log: UnifiedLog): CleanerSegment[] {
  return log.logSegments().map((s) => ({
    baseOffset: s.baseOffset,
    size: s.size,
    batches: s.batches,
    offsetIndexBytes: s.offsetIndex.sizeInBytes,
    timeIndexBytes: s.timeIndex.sizeInBytes,
    lastModifiedMs: s.lastModifiedMs,
  }));
}

/**
 * The log cleaner (one cleaner thread): picks the dirtiest compacted log, cleans it, and backs off
 * log.cleaner.backoff.ms when nothing needs cleaning. A cleaning is computed when it starts and takes
 * (bytes read + bytes written) / log.cleaner.io.max.bytes.per.second of simulated time; then the cleaned
 * segments are written to `.cleaned` files, fsynced, and swapped in, unless the log changed under it
 * (truncation, retention), in which case the cleaning is abandoned and retried.
 * [src: storage/.../log/LogCleaner.java (CleanerThread `doWork`, `cleanFilthiestLog`); LogCleanerManager.java]
 */
export class LogCleaner {
  /** First dirty offset per partition name, as in `cleaner-offset-checkpoint`. */
  private readonly checkpoints = new Map<string, number>();
  private readonly checkpointFile: CheckpointFile<readonly (readonly [string, number])[]>;
  private timer: TimerId = NO_TIMER;
  private cleaning: Cleaning | null = null;
  private running = false;

  constructor(
    private readonly env: CleanerEnvironment,
    private readonly config: LogManagerConfig,
    /** The logs to consider, in a total order (by topic-partition). */
    private readonly logs: () => readonly UnifiedLog[],
  ) {
    this.checkpointFile = new CheckpointFile(env.disk, `${config['log.dirs']}/${CLEANER_OFFSET_CHECKPOINT_FILE}`, env.tasks);
    for (const [name, offset] of this.checkpointFile.read() ?? []) this.checkpoints.set(name, offset);
  }

  startup(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  shutdown(): void {
    this.running = false;
    this.env.tasks.cancel(this.timer);
    this.timer = NO_TIMER;
    this.abort();
  }

  /** The first dirty offset of a log (its cleaner checkpoint), if it has been cleaned. */
  checkpointOf(log: UnifiedLog): number | undefined {
    return this.checkpoints.get(log.name);
  }

  /** The log being cleaned now, if any. */
  get inProgress(): UnifiedLog | null {
    return this.cleaning?.log ?? null;
  }

  /** A truncated log: stop cleaning it and pull its checkpoint back. [src: LogCleanerManager `maybeTruncateCheckpoint`; LogManager `truncateTo`] */
  onTruncated(log: UnifiedLog, toOffset: number): void {
    if (this.cleaning?.log === log) this.abort();
    const c = this.checkpoints.get(log.name);
    if (c !== undefined && c > toOffset) this.updateCheckpoint(log.name, toOffset);
  }

  /** A log that is going away. [src: LogCleanerManager `updateCheckpoints` (partitionToRemove)] */
  removeLog(log: UnifiedLog): void {
    if (this.cleaning?.log === log) this.abort();
    if (this.checkpoints.delete(log.name)) this.writeCheckpoint();
  }

  /** One pass of the cleaner thread. [src: LogCleaner.java CleanerThread `doWork`, `cleanFilthiestLog`] */
  runOnce(): void {
    this.timer = NO_TIMER;
    if (!this.running || this.cleaning !== null) return;
    const started = this.startCleaningFilthiestLog();
    // Retention of compacted logs runs on the cleaner thread. [src: LogCleaner `cleanFilthiestLog` (deletableLogs)]
    const busy = this.inProgress;
    for (const log of this.logs()) {
      if (!log.closed && isCompacted(log.config) && busy !== log) log.deleteOldSegments();
    }
    // log.cleaner.backoff.ms=0 (Kafka allows it, atLeast(0)) makes Kafka's thread re-check without pausing; its
    // clock reads milliseconds, so a re-check once per millisecond is what it can see, and the simulated clock
    // moves on. [src: LogCleaner.java CleanerThread `doWork` (pause(backoffMs)); CleanerConfig LOG_CLEANER_BACKOFF_MS]
    if (!started) this.schedule(Math.max(this.config['log.cleaner.backoff.ms'], 1) * 1000);
  }

  private schedule(delayUs: Micros): void {
    this.env.tasks.cancel(this.timer);
    this.timer = this.env.tasks.schedule(delayUs, () => this.runOnce());
  }

  private nowMs(): number {
    return Math.floor(this.env.tasks.now / 1000);
  }

  private startCleaningFilthiestLog(): boolean {
    const nowMs = this.nowMs();
    const logs = this.logs().filter((l) => !l.closed && isCompacted(l.config));
    const candidates: { log: UnifiedLog; ltc: LogToClean; minCleanableDirtyRatio: number }[] = [];
    for (const log of logs) {
      const view = cleanableView(log);
      const { offsets, ltc } = evaluateLog(view, this.checkpoints.get(log.name), nowMs);
      if (offsets.forceUpdateCheckpoint) this.updateCheckpoint(log.name, offsets.firstDirtyOffset);
      candidates.push({ log, ltc, minCleanableDirtyRatio: view.minCleanableDirtyRatio });
    }
    const i = filthiest(candidates);
    if (i < 0) return false;
    const { log, ltc } = candidates[i]!;
    const segments = log.logSegments();
    const plan = planCleaning(cleanerSegments(log), ltc.firstDirtyOffset, ltc.firstUncleanableOffset, {
      nowMs,
      deleteRetentionMs: log.config['delete.retention.ms'],
      segmentBytes: log.config['segment.bytes'],
      maxIndexBytes: log.config['segment.index.bytes'],
      maxOffsetMapEntries: maxOffsetMapEntries(this.config['log.cleaner.dedupe.buffer.size'], this.config['log.cleaner.io.buffer.load.factor']),
      lastDataOffsets: log.producerStateManager.lastDataOffsets(),
      abortedTransactions: log.abortedTransactions,
    });
    if (plan.groups.length === 0) {
      this.updateCheckpoint(log.name, Math.max(plan.endOffset, ltc.firstDirtyOffset));
      return false;
    }
    const old = plan.groups.map((g) => segments.slice(g.from, g.to));
    const ioBytes = plan.mapBytes + plan.stats.bytesRead + plan.stats.bytesRetained;
    const duration = Math.max(1, Math.ceil((ioBytes / this.config['log.cleaner.io.max.bytes.per.second']) * MICROS_PER_SECOND));
    const cleaning: Cleaning = {
      log,
      plan,
      old,
      batchCounts: old.map((g) => g.map((s) => s.batches.length)),
      startedAt: this.env.tasks.now,
      cleaned: null,
      timer: NO_TIMER,
    };
    this.cleaning = cleaning;
    cleaning.timer = this.env.tasks.schedule(duration, () => this.writeCleanedSegments(cleaning));
    return true;
  }

  /** Still the same segments, holding the same batches, in a log still open? */
  private stillValid(c: Cleaning): boolean {
    if (this.cleaning !== c || c.log.closed || !this.logs().includes(c.log)) return false;
    const segs = c.log.logSegments();
    for (let g = 0; g < c.old.length; g++) {
      const group = c.old[g]!;
      const at = segs.indexOf(group[0]!);
      if (at < 0 || at + group.length >= segs.length) return false;
      for (let i = 0; i < group.length; i++) {
        if (segs[at + i] !== group[i] || group[i]!.batches.length !== c.batchCounts[g]![i]) return false;
      }
    }
    return true;
  }

  /** The cleaning time has passed: write the cleaned segments and fsync them before the swap. [src: Cleaner `cleanSegments`] */
  private writeCleanedSegments(c: Cleaning): void {
    c.timer = NO_TIMER;
    if (!this.stillValid(c)) return this.abandon(c);
    const tasks = this.env.tasks;
    const cleaned: LogSegment[] = [];
    let done = tasks.now;
    for (const g of c.plan.groups) {
      const seg = c.log.createCleanedSegment(g.baseOffset, g.lastModifiedMs);
      cleaned.push(seg);
      for (const b of g.batches) {
        if (seg.append(b, g.lastModifiedMs, c.log.config['index.interval.bytes']) !== null) {
          c.cleaned = cleaned;
          return this.abandon(c);
        }
      }
      seg.lastModifiedMs = g.lastModifiedMs;
      done = Math.max(done, seg.flush());
    }
    c.cleaned = cleaned;
    c.timer = tasks.schedule(done - tasks.now, () => this.swap(c));
  }

  private swap(c: Cleaning): void {
    c.timer = NO_TIMER;
    if (!this.stillValid(c)) return this.abandon(c);
    const cleaned = c.cleaned!;
    for (let g = 0; g < c.old.length; g++) c.log.replaceSegments([cleaned[g]!], c.old[g]!);
    const p = c.plan;
    this.updateCheckpoint(c.log.name, p.endOffset);
    let segmentsBefore = 0;
    for (const g of c.old) segmentsBefore += g.length;
    this.env.trace.emit('log.clean', this.env.node, {
      topic: c.log.topicPartition.topic,
      partition: c.log.topicPartition.partition,
      firstDirtyOffset: p.firstDirtyOffset,
      endOffset: p.endOffset,
      segmentsBefore,
      segmentsAfter: cleaned.length,
      bytesBefore: p.stats.bytesRead,
      bytesAfter: p.stats.bytesRetained,
      recordsBefore: p.stats.recordsRead,
      recordsRemoved: p.stats.recordsRead - p.stats.recordsRetained,
      tombstonesRemoved: p.stats.tombstonesRemoved,
      ...(p.stats.markersRemoved > 0 && { markersRemoved: p.stats.markersRemoved }),
      durationMs: (this.env.tasks.now - c.startedAt) / 1000,
    });
    this.cleaning = null;
    // A cleaner that did work looks for more at once. [src: CleanerThread `doWork`]
    if (this.running) this.schedule(0);
  }

  /** Drops a cleaning whose log changed; the next pass plans again. [src: LogCleaningAbortedException] */
  private abandon(c: Cleaning): void {
    for (const s of c.cleaned ?? []) this.env.disk.delete(s.file);
    if (this.cleaning === c) this.cleaning = null;
    if (this.running) this.schedule(0);
  }

  private abort(): void {
    const c = this.cleaning;
    if (c === null) return;
    this.env.tasks.cancel(c.timer);
    this.cleaning = null;
    for (const s of c.cleaned ?? []) this.env.disk.delete(s.file);
    if (this.running) this.schedule(0);
  }

  private updateCheckpoint(name: string, offset: number): void {
    if (this.checkpoints.get(name) === offset) return;
    this.checkpoints.set(name, offset);
    this.writeCheckpoint();
  }

  private writeCheckpoint(): void {
    const entries = [...this.checkpoints.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.checkpointFile.write(entries, checkpointBytes(entries.length, 32));
  }
}
