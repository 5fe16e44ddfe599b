import { LONG_MAX, TOPIC_CONFIGS } from '../config/configs';
import { defaultsOf } from '../config/def';
import type { TimestampType } from '../records';

/**
 * Topic-level log configs, keyed by Kafka's own names ('segment.bytes', 'retention.ms', ...), so a scenario
 * file, a `--set` flag and a Kafka engineer all spell them the same way. Values are in Kafka's units (bytes, ms).
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java]
 */

/** cleanup.policy is a list in Kafka; these are the spellings it accepts. */
export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete' | 'delete,compact';

export interface LogConfig {
  readonly 'segment.bytes': number;
  readonly 'segment.ms': number;
  readonly 'segment.jitter.ms': number;
  readonly 'segment.index.bytes': number;
  readonly 'index.interval.bytes': number;
  /** -1 = keep forever. */
  readonly 'retention.ms': number;
  /** -1 = no size limit; per partition. */
  readonly 'retention.bytes': number;
  readonly 'cleanup.policy': CleanupPolicy;
  readonly 'delete.retention.ms': number;
  readonly 'min.compaction.lag.ms': number;
  readonly 'max.compaction.lag.ms': number;
  readonly 'min.cleanable.dirty.ratio': number;
  readonly 'flush.messages': number;
  readonly 'flush.ms': number;
  readonly 'message.timestamp.type': TimestampType;
  readonly 'max.message.bytes': number;
  readonly 'file.delete.delay.ms': number;
}

const TOPIC_DEFAULTS = defaultsOf(TOPIC_CONFIGS);

/** Kafka 4.x defaults, read from the one table of topic configs (config/configs.ts) that broker, log and UI share. */
export const DEFAULT_LOG_CONFIG: LogConfig = {
  'segment.bytes': TOPIC_DEFAULTS['segment.bytes'],
  'segment.ms': TOPIC_DEFAULTS['segment.ms'],
  'segment.jitter.ms': TOPIC_DEFAULTS['segment.jitter.ms'],
  'segment.index.bytes': TOPIC_DEFAULTS['segment.index.bytes'],
  'index.interval.bytes': TOPIC_DEFAULTS['index.interval.bytes'],
  'retention.ms': TOPIC_DEFAULTS['retention.ms'],
  'retention.bytes': TOPIC_DEFAULTS['retention.bytes'],
  'cleanup.policy': TOPIC_DEFAULTS['cleanup.policy'].join(',') as CleanupPolicy,
  'delete.retention.ms': TOPIC_DEFAULTS['delete.retention.ms'],
  'min.compaction.lag.ms': TOPIC_DEFAULTS['min.compaction.lag.ms'],
  'max.compaction.lag.ms': TOPIC_DEFAULTS['max.compaction.lag.ms'],
  'min.cleanable.dirty.ratio': TOPIC_DEFAULTS['min.cleanable.dirty.ratio'],
  'flush.messages': TOPIC_DEFAULTS['flush.messages'],
  'flush.ms': TOPIC_DEFAULTS['flush.ms'],
  'message.timestamp.type': TOPIC_DEFAULTS['message.timestamp.type'],
  'max.message.bytes': TOPIC_DEFAULTS['max.message.bytes'],
  'file.delete.delay.ms': TOPIC_DEFAULTS['file.delete.delay.ms'],
};

/** The defaults with some configs overridden (a topic's configs as the metadata image gives them). */
export function logConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}

/** True when cleanup.policy includes compact. [src: LogConfig.java `compact`] */
export function isCompacted(c: LogConfig): boolean {
  return c['cleanup.policy'].includes('compact');
}

/** True when cleanup.policy includes delete. [src: LogConfig.java `delete`] */
export function isDeleteEnabled(c: LogConfig): boolean {
  return c['cleanup.policy'].includes('delete');
}

/** The roll age: compacted topics roll no later than max.compaction.lag.ms. [src: LogConfig.java `maxSegmentMs`] */
export function maxSegmentMs(c: LogConfig): number {
  if (isCompacted(c) && c['max.compaction.lag.ms'] > 0) return Math.min(c['max.compaction.lag.ms'], c['segment.ms']);
  return c['segment.ms'];
}

/** Offset index entries that fit in segment.index.bytes (8 bytes each). [src: OffsetIndex.java ENTRY_SIZE] */
export function maxOffsetIndexEntries(c: LogConfig): number {
  return Math.floor(c['segment.index.bytes'] / 8);
}

/** Time index entries that fit in segment.index.bytes (12 bytes each). [src: TimeIndex.java ENTRY_SIZE] */
export function maxTimeIndexEntries(c: LogConfig): number {
  return Math.floor(c['segment.index.bytes'] / 12);
}

// ---- broker-level settings of the log manager and the cleaner ----

export interface LogManagerConfig {
  /** Where partition directories live on the broker's disk. */
  readonly 'log.dirs': string;
  readonly 'log.retention.check.interval.ms': number;
  /** Delay before the first run of the periodic log tasks (internal in Kafka). */
  readonly 'log.initial.task.delay.ms': number;
  readonly 'log.flush.scheduler.interval.ms': number;
  readonly 'log.flush.offset.checkpoint.interval.ms': number;
  readonly 'log.flush.start.offset.checkpoint.interval.ms': number;
  readonly 'log.cleaner.enable': boolean;
  readonly 'log.cleaner.backoff.ms': number;
  /**
   * Kafka's default is unlimited (Double.MAX_VALUE). The simulator needs cleaning to take time, so the default
   * here is 100 MiB/s, a typical disk.
   */
  readonly 'log.cleaner.io.max.bytes.per.second': number;
  readonly 'log.cleaner.dedupe.buffer.size': number;
  readonly 'log.cleaner.io.buffer.load.factor': number;
  /** A ReplicaManager setting in Kafka; the log manager runs the task so the checkpoint lives beside the logs. */
  readonly 'replica.high.watermark.checkpoint.interval.ms': number;
  readonly 'producer.id.expiration.ms': number;
  readonly 'producer.id.expiration.check.interval.ms': number;
}

/** [src: ServerLogConfigs.java; CleanerConfig.java; ReplicationConfigs.java; ProducerStateManagerConfig.java] */
export const DEFAULT_LOG_MANAGER_CONFIG: LogManagerConfig = {
  'log.dirs': '/tmp/kafka-logs',
  'log.retention.check.interval.ms': 300000,
  'log.initial.task.delay.ms': 30000,
  'log.flush.scheduler.interval.ms': LONG_MAX,
  'log.flush.offset.checkpoint.interval.ms': 60000,
  'log.flush.start.offset.checkpoint.interval.ms': 60000,
  'log.cleaner.enable': true,
  'log.cleaner.backoff.ms': 15000,
  'log.cleaner.io.max.bytes.per.second': 100 * 1024 * 1024,
  'log.cleaner.dedupe.buffer.size': 134217728,
  'log.cleaner.io.buffer.load.factor': 0.9,
  'replica.high.watermark.checkpoint.interval.ms': 5000,
  'producer.id.expiration.ms': 86400000,
  'producer.id.expiration.check.interval.ms': 600000,
};

export function logManagerConfig(overrides: Partial<LogManagerConfig> = {}): LogManagerConfig {
  return { ...DEFAULT_LOG_MANAGER_CONFIG, ...overrides };
}
