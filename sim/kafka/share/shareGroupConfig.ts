/**
 * The configs of share groups: the broker's own consistency rules for `group.share.*`, and what one group uses
 * once its group configs (kafka-configs --entity-type groups) override the broker defaults.
 * [src: group-coordinator/.../modern/share/ShareGroupConfig.java `validate`; GroupCoordinatorConfig.java (the
 * `require`s of share.*); GroupConfig.java `SHARE_*` and `validateValues`]
 */
import type { BrokerConfig } from '../config/configs';

/** The broker's rules for group.share.*; the first broken one, or null. [ShareGroupConfig.java `validate`; GroupCoordinatorConfig.java] */
export function brokerGroupShareConfigError(b: BrokerConfig): string | null {
  const lock = b['group.share.record.lock.duration.ms'];
  if (lock < b['group.share.min.record.lock.duration.ms']) return 'group.share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms';
  if (b['group.share.max.record.lock.duration.ms'] < lock) return 'group.share.max.record.lock.duration.ms must be greater than or equal to group.share.record.lock.duration.ms';
  const hb = b['group.share.heartbeat.interval.ms'];
  const session = b['group.share.session.timeout.ms'];
  if (b['group.share.max.heartbeat.interval.ms'] < b['group.share.min.heartbeat.interval.ms']) return 'group.share.max.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms';
  if (hb < b['group.share.min.heartbeat.interval.ms']) return 'group.share.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms';
  if (hb > b['group.share.max.heartbeat.interval.ms']) return 'group.share.heartbeat.interval.ms must be less than or equal to group.share.max.heartbeat.interval.ms';
  if (b['group.share.max.session.timeout.ms'] < b['group.share.min.session.timeout.ms']) return 'group.share.max.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms';
  if (session < b['group.share.min.session.timeout.ms']) return 'group.share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms';
  if (session > b['group.share.max.session.timeout.ms']) return 'group.share.session.timeout.ms must be less than or equal to group.share.max.session.timeout.ms';
  if (hb >= session) return 'group.share.heartbeat.interval.ms must be less than group.share.session.timeout.ms';
  return null;
}

/**
 * Where a share-partition without persisted state starts (`share.auto.offset.reset`, default latest):
 * `latest` the high watermark, `earliest` the log start, `by_duration:<ISO-8601 duration>` the first record
 * no older than that (the high watermark when there is none).
 * [src: group-coordinator/.../GroupConfig.java `SHARE_AUTO_OFFSET_RESET_DEFAULT`; ShareGroupAutoOffsetResetStrategy.java]
 */
export type ShareAutoOffsetReset = { readonly kind: 'latest' } | { readonly kind: 'earliest' } | { readonly kind: 'by_duration'; readonly durationMs: number };

/** Reads `share.auto.offset.reset`; a one-line reason when it is not allowed. */
export function parseShareAutoOffsetReset(raw: string): ShareAutoOffsetReset | string {
  const v = raw.trim().toLowerCase();
  if (v === 'latest' || v === 'earliest') return { kind: v };
  if (v.startsWith('by_duration:')) {
    const d = parseIsoDuration(raw.trim().slice('by_duration:'.length));
    if (d === null) return `share.auto.offset.reset ${JSON.stringify(raw)}: by_duration needs an ISO-8601 duration such as by_duration:PT10M or by_duration:P1DT2H`;
    return { kind: 'by_duration', durationMs: d };
  }
  return `share.auto.offset.reset ${JSON.stringify(raw)} is not allowed: latest, earliest or by_duration:<ISO-8601 duration>`;
}

/** PnDTnHnMn.nS (Java's Duration.parse, without negative parts); ms, or null. */
export function parseIsoDuration(text: string): number | null {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text);
  if (!m || text.toUpperCase() === 'P' || text.toUpperCase().endsWith('T')) return null;
  const [, d, h, min, s] = m;
  return Math.round(((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(s ?? 0) * 1000);
}

/** What the share-partition start offset is initialised to with no persisted state. [SharePartition.java `maybeInitialize`, `startOffsetDuringInitialization`] */
export function initialStartOffset(
  reset: ShareAutoOffsetReset,
  log: { readonly logStartOffset: number; readonly highWatermark: number; readonly nowMs: number; offsetForTimestamp(tsMs: number): number | null },
): number {
  switch (reset.kind) {
    case 'earliest':
      return log.logStartOffset;
    case 'latest':
      return log.highWatermark;
    case 'by_duration':
      return Math.min(log.offsetForTimestamp(log.nowMs - reset.durationMs) ?? log.highWatermark, log.highWatermark);
  }
}

/** The limits one share group's partitions run with: the broker defaults, or the group's configs. */
export interface ShareGroupLimits {
  readonly deliveryCountLimit: number;
  readonly recordLockDurationMs: number;
  readonly maxInFlightRecords: number;
  readonly autoOffsetReset: ShareAutoOffsetReset;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** `errors.deadletterqueue.topic.name` (KIP-1191): '' (the default) means no dead-letter queue. */
  readonly dlqTopicName: string;
  /** `errors.deadletterqueue.copy.record.enable`: the DLQ record carries the source key, value and headers too. */
  readonly dlqCopyRecord: boolean;
}

/**
 * A group's limits: `share.record.lock.duration.ms`, `share.session.timeout.ms`, `share.heartbeat.interval.ms`,
 * `share.auto.offset.reset` (and `share.delivery.count.limit`, `share.partition.max.record.locks` of Kafka 4.3)
 * override the broker defaults; values that the broker bounds refuse are an error naming the config.
 * [src: GroupConfig.java `validateValues`, `SHARE_*_CONFIG`; ShareGroupConfig.java `extractShareGroupConfigMap`]
 */
export function shareGroupLimits(b: BrokerConfig, group: Readonly<Record<string, string>> = {}): ShareGroupLimits | string {
  const read = (name: string, def: number, min: number, max: number, minName: string, maxName: string): number | string => {
    const raw = group[name];
    if (raw === undefined) return def;
    const n = Number(raw);
    if (!Number.isInteger(n)) return `${name} ${JSON.stringify(raw)} is not an integer`;
    if (n < min) return `${name} must be greater than or equal to ${minName} (${min})`;
    if (n > max) return `${name} must be less than or equal to ${maxName} (${max})`;
    return n;
  };
  const lock = read('share.record.lock.duration.ms', b['group.share.record.lock.duration.ms'], b['group.share.min.record.lock.duration.ms'], b['group.share.max.record.lock.duration.ms'], 'group.share.min.record.lock.duration.ms', 'group.share.max.record.lock.duration.ms');
  const session = read('share.session.timeout.ms', b['group.share.session.timeout.ms'], b['group.share.min.session.timeout.ms'], b['group.share.max.session.timeout.ms'], 'group.share.min.session.timeout.ms', 'group.share.max.session.timeout.ms');
  const hb = read('share.heartbeat.interval.ms', b['group.share.heartbeat.interval.ms'], b['group.share.min.heartbeat.interval.ms'], b['group.share.max.heartbeat.interval.ms'], 'group.share.min.heartbeat.interval.ms', 'group.share.max.heartbeat.interval.ms');
  // Kafka 4.3 (KIP-1240) lets a group lower or raise these within fixed bounds. [GroupConfig.java SHARE_DELIVERY_COUNT_LIMIT_CONFIG, SHARE_PARTITION_MAX_RECORD_LOCKS_CONFIG]
  const delivery = read('share.delivery.count.limit', b['group.share.delivery.count.limit'], 2, 10, 'group.share.min.delivery.count.limit', 'group.share.max.delivery.count.limit');
  const locks = read('share.partition.max.record.locks', b['group.share.partition.max.record.locks'], 100, 10_000, 'group.share.min.partition.max.record.locks', 'group.share.max.partition.max.record.locks');
  for (const v of [lock, session, hb, delivery, locks]) if (typeof v === 'string') return v;
  if ((hb as number) >= (session as number)) return 'share.heartbeat.interval.ms must be less than share.session.timeout.ms';
  const reset = parseShareAutoOffsetReset(group['share.auto.offset.reset'] ?? 'latest');
  if (typeof reset === 'string') return reset;
  // [src: group-coordinator/.../GroupConfig.java `ERRORS_DEADLETTERQUEUE_TOPIC_NAME_CONFIG` (default ""), `ERRORS_DEADLETTERQUEUE_COPY_RECORD_ENABLE_CONFIG` (default false)]
  const dlqTopicName = (group['errors.deadletterqueue.topic.name'] ?? '').trim();
  if (dlqTopicName.startsWith('__')) return `errors.deadletterqueue.topic.name ${JSON.stringify(dlqTopicName)} cannot start with __ (internal topics)`;
  const copyRaw = (group['errors.deadletterqueue.copy.record.enable'] ?? 'false').trim().toLowerCase();
  if (copyRaw !== 'true' && copyRaw !== 'false') return `errors.deadletterqueue.copy.record.enable ${JSON.stringify(group['errors.deadletterqueue.copy.record.enable'])} is not true or false`;
  return {
    deliveryCountLimit: delivery as number,
    recordLockDurationMs: lock as number,
    maxInFlightRecords: locks as number,
    autoOffsetReset: reset,
    sessionTimeoutMs: session as number,
    heartbeatIntervalMs: hb as number,
    dlqTopicName,
    dlqCopyRecord: copyRaw === 'true',
  };
}
