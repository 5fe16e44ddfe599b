import { ValidationError, expectNumber, expectObject, expectOneOf, join } from '../../core/validate';
import type { TimestampType } from '../records';

/**
 * Topic-level log configs, keyed by Kafka's own names ('segment.bytes', 'retention.ms', ...), so a scenario
 * file, a `--set` flag and a Kafka engineer all spell them the same way. Values are in Kafka's units (bytes, ms).
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java]
 */

/** Java's Long.MAX_VALUE as the nearest double: Kafka's "never" for flush.messages, flush.ms, max.compaction.lag.ms. */
export const LONG_MAX_VALUE = 2 ** 63 - 1;

/** cleanup.policy is a list in Kafka; these are the spellings it accepts. */
export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete' | 'delete,compact';
export const CLEANUP_POLICIES: readonly CleanupPolicy[] = ['delete', 'compact', 'compact,delete', 'delete,compact'];

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

/** Kafka 4.x defaults. [src: LogConfig.java; server-common/.../config/ServerLogConfigs.java] */
export const DEFAULT_LOG_CONFIG: LogConfig = {
  'segment.bytes': 1073741824,
  'segment.ms': 604800000,
  'segment.jitter.ms': 0,
  'segment.index.bytes': 10485760,
  'index.interval.bytes': 4096,
  'retention.ms': 604800000,
  'retention.bytes': -1,
  'cleanup.policy': 'delete',
  'delete.retention.ms': 86400000,
  'min.compaction.lag.ms': 0,
  'max.compaction.lag.ms': LONG_MAX_VALUE,
  'min.cleanable.dirty.ratio': 0.5,
  'flush.messages': LONG_MAX_VALUE,
  'flush.ms': LONG_MAX_VALUE,
  'message.timestamp.type': 'CreateTime',
  'max.message.bytes': 1048588,
  'file.delete.delay.ms': 60000,
};

export const LOG_CONFIG_NAMES = Object.keys(DEFAULT_LOG_CONFIG) as (keyof LogConfig)[];

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

/**
 * Reads topic configs a person wrote (a scenario, `--set`), rejecting unknown names and bad values. Unlike
 * Kafka 4.x (KIP-1030: segment.bytes >= 1 MiB), tiny segments are allowed so lessons can show rolls.
 */
export function validateLogConfig(raw: unknown, path = 'config'): Partial<LogConfig> {
  if (raw === undefined) return {};
  const o = expectObject(raw, path, LOG_CONFIG_NAMES);
  const out: Record<string, unknown> = {};
  const num = (k: keyof LogConfig, opts: { min?: number; max?: number; integer?: boolean }) => {
    if (o[k] !== undefined) out[k] = expectNumber(o[k], join(path, k), opts);
  };
  num('segment.bytes', { min: 14, integer: true }); // Kafka's pre-4.0 minimum (LegacyRecord.RECORD_OVERHEAD_V0)
  num('segment.ms', { min: 1, integer: true });
  num('segment.jitter.ms', { min: 0, integer: true });
  num('segment.index.bytes', { min: 8, integer: true });
  num('index.interval.bytes', { min: 0, integer: true });
  num('retention.ms', { min: -1, integer: true });
  num('retention.bytes', { min: -1, integer: true });
  num('delete.retention.ms', { min: 0, integer: true });
  num('min.compaction.lag.ms', { min: 0, integer: true });
  num('max.compaction.lag.ms', { min: 1 });
  num('min.cleanable.dirty.ratio', { min: 0, max: 1 });
  num('flush.messages', { min: 1 });
  num('flush.ms', { min: 0 });
  num('max.message.bytes', { min: 0, integer: true });
  num('file.delete.delay.ms', { min: 0, integer: true });
  if (o['cleanup.policy'] !== undefined) out['cleanup.policy'] = expectOneOf(o['cleanup.policy'], join(path, 'cleanup.policy'), CLEANUP_POLICIES);
  if (o['message.timestamp.type'] !== undefined) {
    out['message.timestamp.type'] = expectOneOf(o['message.timestamp.type'], join(path, 'message.timestamp.type'), ['CreateTime', 'LogAppendTime'] as const);
  }
  const merged = { ...DEFAULT_LOG_CONFIG, ...out } as LogConfig;
  // [src: LogConfig.java `validateValues`] the compaction lags must be ordered.
  if (merged['min.compaction.lag.ms'] > merged['max.compaction.lag.ms']) {
    throw new ValidationError(join(path, 'min.compaction.lag.ms'), merged['min.compaction.lag.ms'], `at most max.compaction.lag.ms (${merged['max.compaction.lag.ms']})`);
  }
  return out as Partial<LogConfig>;
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
  'log.flush.scheduler.interval.ms': LONG_MAX_VALUE,
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

export const LOG_MANAGER_CONFIG_NAMES = Object.keys(DEFAULT_LOG_MANAGER_CONFIG) as (keyof LogManagerConfig)[];

export function logManagerConfig(overrides: Partial<LogManagerConfig> = {}): LogManagerConfig {
  return { ...DEFAULT_LOG_MANAGER_CONFIG, ...overrides };
}

/** Reads broker log settings a person wrote; unknown names are rejected with a suggestion. */
export function validateLogManagerConfig(raw: unknown, path = 'broker'): Partial<LogManagerConfig> {
  if (raw === undefined) return {};
  const o = expectObject(raw, path, LOG_MANAGER_CONFIG_NAMES);
  const out: Record<string, unknown> = {};
  for (const k of LOG_MANAGER_CONFIG_NAMES) {
    const v = o[k];
    if (v === undefined) continue;
    if (k === 'log.dirs') {
      if (typeof v !== 'string' || v.length === 0) throw new ValidationError(join(path, k), v, 'a directory name');
      out[k] = v;
    } else if (k === 'log.cleaner.enable') {
      if (typeof v !== 'boolean') throw new ValidationError(join(path, k), v, 'true or false');
      out[k] = v;
    } else if (k === 'log.cleaner.io.buffer.load.factor') {
      out[k] = expectNumber(v, join(path, k), { min: 0.01, max: 1 });
    } else {
      out[k] = expectNumber(v, join(path, k), { min: 1 });
    }
  }
  return out as Partial<LogManagerConfig>;
}

/** True for a plain object of known log config names (used by callers that merge broker and topic configs). */
export function isLogConfigName(name: string): name is keyof LogConfig {
  return (LOG_CONFIG_NAMES as string[]).includes(name);
}
