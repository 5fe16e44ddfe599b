import type { Random } from '../../core/random';
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { Disk } from '../../world/disk';
import { CheckpointFile, checkpointBytes } from './checkpointFile';
import { DEFAULT_LOG_CONFIG, isCompacted, type LogConfig, type LogManagerConfig } from './logConfig';
import { LogCleaner } from './logCleaner';
import {
  CLEAN_SHUTDOWN_FILE,
  HIGH_WATERMARK_FILENAME,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
} from './logFileNames';
import type { TaskScheduler } from './taskScheduler';
import { compareTopicPartitions, parseTopicPartition, topicPartitionName, type TopicPartition } from '../topicPartition';
import { UnifiedLog } from './unifiedLog';

export interface LogManagerEnvironment {
  readonly disk: Disk;
  readonly trace: Trace;
  /** The broker, as trace events name it. */
  readonly node: string;
  /** The broker process's clock and timers (so every task dies with the process). */
  readonly tasks: TaskScheduler;
  readonly random: Random;
  /** Told when a log's start offset moves forward [UnifiedLog `maybeIncrementLogStartOffset`]. */
  readonly onLogStartOffsetIncremented?: (tp: TopicPartition) => void;
}

/** A per-log-directory offset checkpoint: `topic partition offset` lines. [src: storage/.../checkpoint/OffsetCheckpointFile.java] */
type OffsetCheckpoint = readonly (readonly [string, number, number])[];

/** Periods beyond this are Kafka's "never" (Long.MAX_VALUE): such tasks are not scheduled. */
const NEVER_MS = 2 ** 52;

/**
 * The broker's logs: opens (and recovers) every partition found on its disk at start-up, creates new ones,
 * and runs the periodic log tasks on the broker's own timers: retention, the flusher, the recovery-point,
 * log-start-offset and high-watermark checkpoints, producer-id expiration, and the log cleaner.
 * [src: core/src/main/scala/kafka/log/LogManager.scala `startup`, `loadLogs`, `getOrCreateLog`, `cleanupLogs`,
 *  `flushDirtyLogs`, `checkpointLogRecoveryOffsets`, `checkpointLogStartOffsets`; ReplicaManager `checkpointHighWatermarks`]
 */
export class LogManager {
  private readonly logs = new Map<string, UnifiedLog>();
  private readonly topicConfigs = new Map<string, LogConfig>();
  readonly cleaner: LogCleaner | null;
  private readonly timers = new Map<string, TimerId>();
  private readonly recoveryPointFile: CheckpointFile<OffsetCheckpoint>;
  private readonly logStartOffsetFile: CheckpointFile<OffsetCheckpoint>;
  private readonly highWatermarkFile: CheckpointFile<OffsetCheckpoint>;
  private _hadCleanShutdown = false;
  private started = false;

  constructor(
    private readonly env: LogManagerEnvironment,
    readonly config: LogManagerConfig,
    /** A topic's log configs (from the metadata image); defaults when the broker knows no overrides. */
    private readonly defaultTopicConfig: (topic: string) => LogConfig = () => DEFAULT_LOG_CONFIG,
  ) {
    const dir = config['log.dirs'];
    this.recoveryPointFile = new CheckpointFile(env.disk, `${dir}/${RECOVERY_POINT_CHECKPOINT_FILE}`, env.tasks);
    this.logStartOffsetFile = new CheckpointFile(env.disk, `${dir}/${LOG_START_OFFSET_CHECKPOINT_FILE}`, env.tasks);
    this.highWatermarkFile = new CheckpointFile(env.disk, `${dir}/${HIGH_WATERMARK_FILENAME}`, env.tasks);
    this.cleaner = config['log.cleaner.enable'] ? new LogCleaner(env, config, () => this.allLogs()) : null;
  }

  get logDir(): string {
    return this.config['log.dirs'];
  }

  /** Whether the previous incarnation shut down cleanly (the marker file was there). */
  get hadCleanShutdown(): boolean {
    return this._hadCleanShutdown;
  }

  /**
   * Opens every log found on the disk (each recovers from what survived), applies the checkpointed recovery
   * points, log start offsets and high watermarks, and starts the periodic tasks. Returns the logs, sorted.
   */
  startup(): UnifiedLog[] {
    if (this.started) return this.allLogs();
    this.started = true;
    const disk = this.env.disk;
    const marker = `${this.logDir}/${CLEAN_SHUTDOWN_FILE}`;
    this._hadCleanShutdown = disk.exists(marker);
    disk.delete(marker);
    const recoveryPoints = toMap(this.recoveryPointFile.read());
    const logStartOffsets = toMap(this.logStartOffsetFile.read());
    const highWatermarks = toMap(this.highWatermarkFile.read());
    const found = new Map<string, TopicPartition>();
    const prefix = `${this.logDir}/`;
    for (const f of disk.list(prefix)) {
      const rest = f.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash <= 0) continue;
      const tp = parseTopicPartition(rest.slice(0, slash));
      if (tp !== null) found.set(topicPartitionName(tp), tp);
    }
    const tps = [...found.values()].sort(compareTopicPartitions);
    for (const tp of tps) {
      const name = topicPartitionName(tp);
      const opts = {
        topicPartition: tp,
        logDir: this.logDir,
        config: this.topicConfig(tp.topic),
        producerIdExpirationMs: this.config['producer.id.expiration.ms'],
        hadCleanShutdown: this._hadCleanShutdown,
        ...optional('recoveryPoint', recoveryPoints.get(name)),
        ...optional('logStartOffset', logStartOffsets.get(name)),
        ...optional('highWatermark', highWatermarks.get(name)),
      };
      this.register(UnifiedLog.open(this.env, opts));
    }
    this.startTasks();
    return this.allLogs();
  }

  /** The topic's log configs now. */
  topicConfig(topic: string): LogConfig {
    return this.topicConfigs.get(topic) ?? this.defaultTopicConfig(topic);
  }

  /** A topic's configs changed (IncrementalAlterConfigs, a new topic): existing logs pick them up at once. */
  updateTopicConfig(topic: string, config: LogConfig): void {
    this.topicConfigs.set(topic, config);
    for (const log of this.logs.values()) if (log.topicPartition.topic === topic) log.updateConfig(config);
  }

  getLog(tp: TopicPartition): UnifiedLog | undefined {
    return this.logs.get(topicPartitionName(tp));
  }

  /** The partition's log, created empty if this broker has none. [src: LogManager `getOrCreateLog`] */
  getOrCreateLog(tp: TopicPartition, config?: LogConfig): UnifiedLog {
    const existing = this.getLog(tp);
    if (existing !== undefined) return existing;
    if (config !== undefined) this.topicConfigs.set(tp.topic, config);
    const log = UnifiedLog.open(this.env, {
      topicPartition: tp,
      logDir: this.logDir,
      config: this.topicConfig(tp.topic),
      producerIdExpirationMs: this.config['producer.id.expiration.ms'],
    });
    this.register(log);
    return log;
  }

  /** Every log, sorted by topic-partition. */
  allLogs(): UnifiedLog[] {
    return [...this.logs.values()].sort((a, b) => compareTopicPartitions(a.topicPartition, b.topicPartition));
  }

  /** Removes a partition's log and files (deleted topic, replica moved away). [src: LogManager `asyncDelete`] */
  deleteLog(tp: TopicPartition): boolean {
    const log = this.getLog(tp);
    if (log === undefined) return false;
    this.cleaner?.removeLog(log);
    this.logs.delete(log.name);
    log.delete();
    return true;
  }

  private register(log: UnifiedLog): void {
    this.logs.set(log.name, log);
    log.setTruncationHook((toOffset) => this.cleaner?.onTruncated(log, toOffset));
  }

  // ---- periodic tasks ----

  private startTasks(): void {
    const c = this.config;
    const initial = c['log.initial.task.delay.ms'];
    this.every('kafka-log-retention', initial, c['log.retention.check.interval.ms'], () => this.cleanupLogs());
    this.every('kafka-log-flusher', initial, c['log.flush.scheduler.interval.ms'], () => this.flushDirtyLogs());
    this.every('kafka-recovery-point-checkpoint', initial, c['log.flush.offset.checkpoint.interval.ms'], () => this.checkpointLogRecoveryOffsets());
    this.every('kafka-log-start-offset-checkpoint', initial, c['log.flush.start.offset.checkpoint.interval.ms'], () => this.checkpointLogStartOffsets());
    this.every('highwatermark-checkpoint', 0, c['replica.high.watermark.checkpoint.interval.ms'], () => this.checkpointHighWatermarks());
    this.every('PeriodicProducerExpirationCheck', c['producer.id.expiration.check.interval.ms'], c['producer.id.expiration.check.interval.ms'], () =>
      this.removeExpiredProducers(),
    );
    this.cleaner?.startup();
  }

  /** Runs `fn` after `initialMs`, then every `periodMs`. [src: KafkaScheduler `schedule(name, task, delay, period)`] */
  private every(name: string, initialMs: number, periodMs: number, fn: () => void): void {
    if (!(periodMs < NEVER_MS)) return;
    const tasks = this.env.tasks;
    const run = () => {
      this.timers.set(name, tasks.schedule(ms(periodMs), run));
      fn();
    };
    this.timers.set(name, tasks.schedule(ms(initialMs), run));
  }

  /**
   * Retention over the logs the cleaner does not own (with a cleaner, compacted logs are pruned by it).
   * [src: LogManager `cleanupLogs`]
   */
  cleanupLogs(): number {
    let deleted = 0;
    for (const log of this.allLogs()) {
      if (log.closed || (this.cleaner !== null && isCompacted(log.config))) continue;
      deleted += log.deleteOldSegments();
    }
    return deleted;
  }

  /** flush.ms for every log. [src: LogManager `flushDirtyLogs`] */
  flushDirtyLogs(): void {
    for (const log of this.allLogs()) if (!log.closed) log.maybeFlushByTime();
  }

  /** Writes recovery-point-offset-checkpoint. [src: LogManager `checkpointLogRecoveryOffsets`] */
  checkpointLogRecoveryOffsets(): Micros {
    return this.writeOffsets(this.recoveryPointFile, (l) => l.recoveryPoint);
  }

  /** Writes log-start-offset-checkpoint. [src: LogManager `checkpointLogStartOffsets`] */
  checkpointLogStartOffsets(): Micros {
    return this.writeOffsets(this.logStartOffsetFile, (l) => l.logStartOffset);
  }

  /**
   * Writes replication-offset-checkpoint with every log's high watermark; a restarted broker starts from
   * these. [src: core/src/main/scala/kafka/server/ReplicaManager.scala `checkpointHighWatermarks`]
   */
  checkpointHighWatermarks(): Micros {
    return this.writeOffsets(this.highWatermarkFile, (l) => l.highWatermark);
  }

  /** The high watermarks of the last completed checkpoint, by partition name. */
  readHighWatermarkCheckpoint(): Map<string, number> {
    return toMap(this.highWatermarkFile.read());
  }

  private writeOffsets(file: CheckpointFile<OffsetCheckpoint>, offsetOf: (l: UnifiedLog) => number): Micros {
    const entries = this.allLogs()
      .filter((l) => !l.closed)
      .map((l) => [l.topicPartition.topic, l.topicPartition.partition, offsetOf(l)] as const);
    return file.write(entries, checkpointBytes(entries.length, 24));
  }

  /** [src: UnifiedLog PeriodicProducerExpirationCheck; ProducerStateManager `removeExpiredProducers`] */
  removeExpiredProducers(): void {
    const nowMs = Math.floor(this.env.tasks.now / 1000);
    for (const log of this.allLogs()) if (!log.closed) log.producerStateManager.removeExpiredProducers(nowMs);
  }

  /**
   * A clean shutdown: flush every log, write the checkpoints, and once all of that is durable write the
   * clean-shutdown marker, which names the broker epoch (KIP-966). Returns the time the logs are durable;
   * `onMarkerDurable` runs once the marker is too: the broker process exits only then (Kafka blocks its
   * shutdown on these fsyncs).
   * [src: LogManager `shutdown`; CleanShutdownFileHandler `write`]
   */
  shutdown(brokerEpoch = -1, onMarkerDurable?: () => void): Micros {
    for (const t of this.timers.values()) this.env.tasks.cancel(t);
    this.timers.clear();
    this.cleaner?.shutdown();
    const tasks = this.env.tasks;
    let done = tasks.now;
    for (const log of this.allLogs()) if (!log.closed) done = Math.max(done, log.flush());
    // The checkpoints record what the flushes make durable.
    const entries = (f: (l: UnifiedLog) => number) => this.allLogs().map((l) => [l.topicPartition.topic, l.topicPartition.partition, f(l)] as const);
    done = Math.max(done, this.recoveryPointFile.write(entries((l) => l.logEndOffset), checkpointBytes(this.logs.size, 24)));
    done = Math.max(done, this.logStartOffsetFile.write(entries((l) => l.logStartOffset), checkpointBytes(this.logs.size, 24)));
    done = Math.max(done, this.highWatermarkFile.write(entries((l) => l.highWatermark), checkpointBytes(this.logs.size, 24)));
    for (const log of this.allLogs()) log.close();
    const marker = `${this.logDir}/${CLEAN_SHUTDOWN_FILE}`;
    const disk = this.env.disk;
    tasks.schedule(done - tasks.now, () => {
      disk.rewrite(marker, [{ data: { version: 0, brokerEpoch }, bytes: 32 }]);
      const durable = disk.fsync(marker);
      if (onMarkerDurable) tasks.schedule(durable - tasks.now, onMarkerDurable);
    });
    return done;
  }

  /** Timers of the periodic tasks, for tests: whether a task is scheduled. */
  hasTask(name: string): boolean {
    return (this.timers.get(name) ?? NO_TIMER) !== NO_TIMER;
  }
}

function toMap(entries: OffsetCheckpoint | null): Map<string, number> {
  const m = new Map<string, number>();
  for (const [topic, partition, offset] of entries ?? []) m.set(topicPartitionName({ topic, partition }), offset);
  return m;
}

/** `{ [key]: value }` when the value is defined, else nothing (exactOptionalPropertyTypes). */
function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: number });
}
