/**
 * Share consumers in a scenario document (KIP-932): reading `shareConsumers` and share-group `groups` configs
 * (the validator's side; `shareConsumers.ts` starts them).
 *
 *   "shareConsumers": [{ "id": "worker", "count": 10, "group": "jobs", "topics": ["jobs"],
 *     "config": { "share.acknowledgement.mode": "explicit", "max.poll.records": 50 },
 *     "processing": { "recordTime": { "kind": "fixed", "ms": 20 }, "commit": "sync",
 *       "failures": [{ "valuePrefix": "poison:", "times": "always", "ack": "release" }, { "keyPrefix": "flaky-", "times": 2 }] } }]
 *
 * `count` n makes n consumers `<id>-1` .. `<id>-n`.
 */
import type { Micros } from '../core/time';
import { ValidationError, expectArray, expectNumber, expectObject, expectOneOf, expectString, isRecord, join } from '../core/validate';
import { SHARE_CONSUMER_CONFIGS, type BrokerConfig, type ShareConsumerConfig } from '../kafka/config/configs';
import type { ShareCommitStrategy, ShareFailureRule } from '../kafka/client/share/shareProcessing';
import type { ProcessingTime } from '../kafka/client/consumer/processingModel';
import { shareGroupLimits } from '../kafka/share/shareGroupConfig';
import { DEFAULT_SHARE_VERSION, type ShareVersion } from '../kafka/share/shareVersion';
import { resolveConfig } from '../kafka/config/def';
import { readRecordTime } from './processing';

export interface ResolvedShareConsumer {
  readonly id: string;
  readonly group: string;
  readonly topics: readonly string[];
  readonly config: ShareConsumerConfig;
  readonly processing: {
    readonly recordTime: ProcessingTime;
    readonly commit: ShareCommitStrategy;
    readonly failures: readonly ShareFailureRule[];
    readonly pollTimeoutMs: number;
    readonly stopMs?: number;
    readonly renewIntervalMs?: number;
  };
  readonly startUs: Micros;
  readonly zone: string | null;
}

const FIELDS = ['id', 'count', 'group', 'topics', 'config', 'processing', 'start', 'zone'] as const;
const PROCESSING_FIELDS = ['recordTime', 'commit', 'failures', 'renew', 'pollTimeoutMs', 'stop'] as const;
const FAILURE_FIELDS = ['keyPrefix', 'valuePrefix', 'times', 'ack'] as const;

/** The share-group configs a scenario's `groups` may set for a share group (kafka-configs --entity-type groups). [GroupConfig.java `SHARE_*`] */
export const SHARE_GROUP_CONFIG_NAMES = [
  'share.auto.offset.reset',
  'share.record.lock.duration.ms',
  'share.session.timeout.ms',
  'share.heartbeat.interval.ms',
  'share.delivery.count.limit',
  'share.partition.max.record.locks',
  'errors.deadletterqueue.topic.name',
  'errors.deadletterqueue.copy.record.enable',
] as const;

export interface ShareReadContext {
  readonly topicNames: ReadonlySet<string>;
  readonly readId: (v: unknown, path: string) => string;
  readonly claimId: (id: string, path: string) => void;
  readonly readTimeWithin: (v: unknown, path: string) => Micros;
  /** A duration (ms or a text such as "5s"). */
  readonly readTime: (v: unknown, path: string) => Micros;
  /** Group ids of the scenario's consumer groups (a group is one kind or the other). */
  readonly consumerGroups: ReadonlySet<string>;
}

export function readShareConsumers(raw: unknown, ctx: ShareReadContext): ResolvedShareConsumer[] {
  if (raw === undefined) return [];
  return expectArray(raw, 'shareConsumers').flatMap((cr, i) => {
    const p = join('shareConsumers', i);
    const co = expectObject(cr, p, FIELDS);
    const base = ctx.readId(co.id, join(p, 'id'));
    const count = co.count === undefined ? null : expectNumber(co.count, join(p, 'count'), { min: 1, max: 200, integer: true });
    const group = ctx.readId(co.group, join(p, 'group'));
    if (ctx.consumerGroups.has(group)) {
      throw new ValidationError(join(p, 'group'), group, 'a group id no consumer of this scenario uses', `${group} is a consumer group here; a share group needs its own group id (Kafka refuses a heartbeat of the other kind with INCONSISTENT_GROUP_PROTOCOL)`);
    }
    const topics = expectArray(co.topics, join(p, 'topics'), { minLength: 1 }).map((t, j) => {
      const name = expectString(t, join(join(p, 'topics'), j));
      if (!ctx.topicNames.has(name)) throw new ValidationError(join(join(p, 'topics'), j), name, `a topic of this scenario (${[...ctx.topicNames].join(', ')})`);
      return name;
    });
    if (co.config !== undefined && !isRecord(co.config)) throw new ValidationError(join(p, 'config'), co.config, 'an object of share consumer config names to values');
    const config = resolveConfig(SHARE_CONSUMER_CONFIGS, co.config as Record<string, unknown> | undefined, join(p, 'config'));
    const processing = readShareProcessing(co.processing, join(p, 'processing'), ctx);
    if (processing.renewIntervalMs !== undefined && config['share.acknowledgement.mode'] !== 'explicit') {
      throw new ValidationError(join(p, 'processing.renew'), isRecord(co.processing) ? co.processing.renew : undefined, 'renew with config share.acknowledgement.mode=explicit', 'RENEW is an explicit acknowledgement (KafkaShareConsumer.acknowledge(record, AcknowledgeType.RENEW))');
    }
    if (processing.failures.length > 0 && config['share.acknowledgement.mode'] !== 'explicit') {
      throw new ValidationError(
        join(p, 'processing.failures'),
        co.processing && isRecord(co.processing) ? co.processing.failures : undefined,
        'failure rules with config share.acknowledgement.mode=explicit',
        'in implicit mode every record a poll returned is accepted by the next poll, so a failure cannot be acknowledged as RELEASE or REJECT',
      );
    }
    const startUs = co.start === undefined ? 0 : ctx.readTimeWithin(co.start, join(p, 'start'));
    const zone = co.zone === undefined ? null : expectString(co.zone, join(p, 'zone'));
    const ids = count === null ? [base] : Array.from({ length: count }, (_, k) => `${base}-${k + 1}`);
    return ids.map((id) => {
      ctx.claimId(id, join(p, 'id'));
      return { id, group, topics, config, processing, startUs, zone };
    });
  });
}

function readShareProcessing(raw: unknown, path: string, ctx: ShareReadContext): ResolvedShareConsumer['processing'] {
  if (raw === undefined) return { recordTime: { kind: 'fixed', ms: 0 }, commit: 'piggyback', failures: [], pollTimeoutMs: 100 };
  const o = expectObject(raw, path, PROCESSING_FIELDS);
  const failures = o.failures === undefined ? [] : expectArray(o.failures, join(path, 'failures')).map((f, i) => readFailure(f, join(join(path, 'failures'), i)));
  return {
    recordTime: o.recordTime === undefined ? { kind: 'fixed', ms: 0 } : readRecordTime(o.recordTime, join(path, 'recordTime')),
    commit: o.commit === undefined ? 'piggyback' : expectOneOf(o.commit, join(path, 'commit'), ['piggyback', 'sync', 'async'] as const),
    failures,
    pollTimeoutMs: o.pollTimeoutMs === undefined ? 100 : expectNumber(o.pollTimeoutMs, join(path, 'pollTimeoutMs'), { min: 0, max: 600_000 }),
    ...(o.stop !== undefined && { stopMs: ctx.readTimeWithin(o.stop, join(path, 'stop')) / 1000 }),
    ...(o.renew !== undefined && { renewIntervalMs: readRenew(ctx.readTime(o.renew, join(path, 'renew')), o.renew, join(path, 'renew')) }),
  };
}

/** `renew`: how often to RENEW the locks of the records being processed, a duration of at least 100 ms. */
function readRenew(us: Micros, v: unknown, path: string): number {
  if (us < 100_000) throw new ValidationError(path, v, 'a duration of at least 100 ms (how often the application renews its locks)');
  return us / 1000;
}

function readFailure(raw: unknown, path: string): ShareFailureRule {
  const o = expectObject(raw, path, FAILURE_FIELDS);
  const keyPrefix = o.keyPrefix === undefined ? undefined : expectString(o.keyPrefix, join(path, 'keyPrefix'));
  const valuePrefix = o.valuePrefix === undefined ? undefined : expectString(o.valuePrefix, join(path, 'valuePrefix'));
  if (keyPrefix === undefined && valuePrefix === undefined) throw new ValidationError(path, raw, 'a keyPrefix or a valuePrefix naming the records that fail');
  if (o.times === undefined) throw new ValidationError(join(path, 'times'), undefined, '"always" (a poison pill) or how many deliveries fail (a flaky record, an integer >= 1)');
  const times = o.times === 'always' ? Infinity : expectNumber(o.times, join(path, 'times'), { min: 1, max: 1000, integer: true });
  const ack = o.ack === undefined ? 'release' : expectOneOf(o.ack, join(path, 'ack'), ['release', 'reject'] as const);
  const what = `${keyPrefix !== undefined ? `key ${keyPrefix}` : `value ${valuePrefix}`}`;
  return {
    name: `${times === Infinity ? 'poison' : `flaky x${times}`} (${what})`,
    ...(keyPrefix !== undefined && { keyPrefix }),
    ...(valuePrefix !== undefined && { valuePrefix }),
    times,
    ack: ack === 'release' ? 'RELEASE' : 'REJECT',
  };
}

/** A share group's `groups[].config`: the share.* group configs, within the broker's bounds. */
export function readShareGroupConfig(raw: unknown, path: string, broker: BrokerConfig): Record<string, string> {
  const o = expectObject(raw ?? {}, path, SHARE_GROUP_CONFIG_NAMES);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new ValidationError(join(path, k), v, 'a number, a string or a boolean');
    out[k] = String(v);
    const e = shareGroupLimits(broker, out);
    if (typeof e === 'string') throw new ValidationError(join(path, k), v, 'a value within the broker\'s group.share.* bounds', e);
  }
  return out;
}

/** `cluster.features["share.version"]`: 0, 1 (the default) or 2. [src: server-common/.../ShareVersion.java] */
export function readShareVersion(raw: unknown): ShareVersion {
  if (raw === undefined) return DEFAULT_SHARE_VERSION;
  if (raw !== 0 && raw !== 1 && raw !== 2) throw new ValidationError('cluster.features.share.version', raw, '0 (no share groups), 1 (share groups, the default) or 2 (share groups with the dead-letter queue)');
  return raw;
}
