import { readBrokerNames } from './brokerNames';
import { parseDuration, ms, type Micros } from '../core/time';
import type { TransactionVersion } from '../kafka/coordinator/transaction/transactionMetadata';
import {
  ValidationError,
  expectArray,
  expectBoolean,
  expectNumber,
  expectObject,
  expectOneOf,
  expectString,
  isRecord,
  join,
} from '../core/validate';
import { PARTITION_FIGURES, checkNameProblem, partitionFigureName, windowCheckNames, windowProblem } from '../check/names';
import { validateSchedule, type Fault } from '../world/nemesis';
import { scenarioResolver, type ScenarioHosts } from './selectors';
import { CONSUMER_OFFSETS_TOPIC } from '../kafka/broker/groupCoordinatorService';
import {
  BROKER_CONFIGS,
  CONSUMER_CONFIGS,
  GROUP_CONFIGS,
  PRODUCER_CONFIGS,
  TOPIC_CONFIGS,
  type BrokerConfig,
  type ConsumerConfig,
  type ProducerConfig,
} from '../kafka/config/configs';
import { readConfig, resolveConfig } from '../kafka/config/def';
import { readShareConsumers, readShareGroupConfig, readShareVersion, type ResolvedShareConsumer } from './shareConsumersSpec';
import type { ShareVersion } from '../kafka/share/shareVersion';
import { SHARE_GROUP_STATE_TOPIC } from '../kafka/share/coordinator/shareCoordinatorKey';
import { effectiveProducerConfig } from '../kafka/client/producer/producerConfigRules';
import type { KeySpec, ProducerWorkload } from '../kafka/client/producer/workload';
import type { ExpectationOp, ExpectationSpec, ScenarioSpec } from './spec';
import type { ProcessingModel } from '../kafka/client/consumer/processingModel';
import { brokerGroupConsumerConfigError, groupConfigError, unsupportedConsumerConfigs, type GroupConfigName } from '../kafka/config/groupProtocolConfigs';
import { validateProcessing } from './processing';
import { parseAlertRule, type AlertRule } from '../kafka/metrics/alerts';
import { ALERT_CHECK_PREFIX } from '../check/alertChecks';
import { OPERATOR_ID, readActions, type ScenarioAction } from './actions';
import { readCaption, type Caption } from './captions';

/** A validated scenario: times in microseconds, configs resolved with Kafka's defaults. */
export interface Scenario {
  readonly spec: ScenarioSpec;
  readonly id: string;
  readonly title: string;
  readonly summary: string;
  readonly lesson: string;
  readonly tags: readonly string[];
  readonly seed: number | string;
  readonly durationUs: Micros;
  readonly quietUs: Micros;
  readonly trace: 'minimal' | 'standard' | 'full';
  readonly cluster: ResolvedCluster;
  readonly topics: readonly ResolvedTopic[];
  readonly producers: readonly ResolvedProducer[];
  readonly consumers: readonly ResolvedConsumer[];
  /** Share consumers (KIP-932), each with its share group. */
  readonly shareConsumers: readonly ResolvedShareConsumer[];
  /** Group configs by group id (Kafka names -> values as strings), written as GROUP ConfigRecords at bootstrap. */
  readonly groupConfigs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly faults: readonly Fault[];
  readonly actions: readonly ScenarioAction[];
  readonly captions: readonly Caption[];
  readonly expect: readonly ScenarioExpectation[];
  /** How often every actor's metrics are sampled into the trace; null: not sampled. */
  readonly metricsIntervalUs: Micros | null;
  /** Alert rules over the samples (sampling is on when there are any). */
  readonly alerts: readonly AlertRule[];
}

/** A validated expectation; with "during", its window in microseconds of scenario time. */
export interface ScenarioExpectation extends ExpectationSpec {
  readonly window?: { readonly fromUs: Micros; readonly toUs: Micros };
}

export { OPERATOR_ID, type ScenarioAction } from './actions';

export interface ResolvedCluster {
  readonly controllers: number;
  readonly brokers: number;
  /** Per broker id (index id-1): the name the scenario gives it, or null for "broker N" (brokerNames.ts). */
  readonly brokerNames: readonly string[] | null;
  /** Per broker id (index id-1): its rack, or null. */
  readonly racks: readonly (string | null)[];
  readonly zones: readonly string[];
  readonly brokerConfig: BrokerConfig;
  /** The broker overrides as given (Kafka names), to show in the trace header. */
  readonly brokerOverrides: Readonly<Record<string, unknown>>;
  readonly eligibleLeaderReplicas: boolean;
  readonly legacyHighWatermarkTruncation: boolean;
  /** The finalized `transaction.version` feature (KIP-890): 2 by default, as a new 4.x cluster formats it. */
  readonly transactionVersion: TransactionVersion;
  /** The finalized `share.version` feature: 1 by default (share groups, Kafka 4.2+), 2 adds the dead-letter queue (KIP-1191). */
  readonly shareVersion: ShareVersion;
  readonly network: NonNullable<ScenarioSpec['cluster']>['network'];
  readonly disk: NonNullable<ScenarioSpec['cluster']>['disk'];
}

export interface ResolvedTopic {
  readonly name: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  /** Topic config overrides as strings, as CreateTopics carries them. */
  readonly configs: Readonly<Record<string, string>>;
  readonly assignment: readonly (readonly number[])[] | null;
}

export interface ResolvedProducer {
  readonly id: string;
  readonly config: ProducerConfig;
  readonly workloads: readonly ProducerWorkload[];
  readonly zone: string | null;
  /** When the producer process starts (scenario time; 0 = with the scenario). */
  readonly startUs: Micros;
}

export interface ResolvedConsumer {
  readonly id: string;
  readonly group: string | null;
  readonly topics: readonly string[];
  readonly config: ConsumerConfig;
  readonly processing: ProcessingModel;
  readonly startUs: Micros;
  readonly zone: string | null;
  /** A consume-transform-produce application (and its producer process on the same host), or null. */
  readonly transform: ResolvedTransform | null;
}

export interface ResolvedTransform {
  readonly topic: string;
  readonly guarantee: 'at_least_once' | 'exactly_once_v2';
  /** The producer process beside the consumer: `<consumer>-producer`. */
  readonly producerId: string;
  readonly producerConfig: ProducerConfig;
}

/** The longest a scenario may run (its duration; the quiet period comes on top). */
export const MAX_DURATION_US: Micros = ms(24 * 3600 * 1000);

const SPEC_FIELDS = ['id', 'title', 'summary', 'lesson', 'tags', 'seed', 'duration', 'quiet', 'cluster', 'topics', 'producers', 'consumers', 'shareConsumers', 'groups', 'faults', 'actions', 'captions', 'expect', 'trace', 'metrics', 'alerts'] as const;
const CLUSTER_FIELDS = ['controllers', 'brokers', 'brokerNames', 'racks', 'zones', 'broker', 'eligibleLeaderReplicas', 'legacyHighWatermarkTruncation', 'network', 'disk', 'features'] as const;
const TOPIC_FIELDS = ['name', 'partitions', 'replicationFactor', 'config', 'assignment'] as const;
const PRODUCER_FIELDS = ['id', 'config', 'workload', 'zone', 'start'] as const;
const WORKLOAD_FIELDS = ['topic', 'rate', 'at', 'start', 'stop', 'maxRecords', 'keys', 'valueBytes', 'partition', 'transactionSize', 'abortProbability', 'tombstones'] as const;
const CONSUMER_FIELDS = ['id', 'group', 'topics', 'config', 'processing', 'start', 'zone', 'transform'] as const;
const TRANSFORM_FIELDS = ['topic', 'guarantee', 'producer'] as const;
const EXPECT_FIELDS = ['check', 'op', 'value', 'description', 'during'] as const;
const OPS: readonly ExpectationOp[] = ['=', '!=', '>', '>=', '<', '<='];

/** Reads a time: milliseconds or a duration text. */
export function readTime(v: unknown, path: string): Micros {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return ms(v);
  if (typeof v === 'string') {
    const t = parseDuration(v);
    if (t !== null) return t;
  }
  throw new ValidationError(path, v, 'a time in milliseconds (a number >= 0) or a duration such as "30s", "500ms", "2m"');
}

/** Kafka's longest topic name [Topic.MAX_NAME_LENGTH]; the same bound serves every other name of a scenario. */
export const MAX_NAME_LENGTH = 249;

function readId(v: unknown, path: string): string {
  const s = expectString(v, path);
  if (s.length > MAX_NAME_LENGTH || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s)) {
    throw new ValidationError(path, s, `a name of letters, digits, ".", "_" and "-", starting with a letter or digit, at most ${MAX_NAME_LENGTH} characters`);
  }
  return s;
}

/**
 * A topic name as Kafka allows it: letters, digits, ".", "_" and "-", at most 249 characters, neither "." nor
 * "..". [clients/.../common/internals/Topic.java `validate`]
 */
function readTopicName(v: unknown, path: string): string {
  const s = expectString(v, path);
  if (s.length > MAX_NAME_LENGTH || !/^[A-Za-z0-9._-]+$/.test(s) || s === '.' || s === '..') {
    throw new ValidationError(path, s, `a topic name of letters, digits, ".", "_" and "-", not "." or "..", at most ${MAX_NAME_LENGTH} characters`);
  }
  return s;
}

/** Kafka refuses a topic whose name equals another's once "." is read as "_" (their metric names would collide). [Topic.java `hasCollision`] */
function collisionKey(topic: string): string {
  return topic.replaceAll('.', '_');
}

function readKeys(v: unknown, path: string): KeySpec {
  const o = expectObject(v, path, ['kind', 'key', 'count', 's', 'share', 'salts']);
  const kind = expectOneOf(o.kind, join(path, 'kind'), ['none', 'fixed', 'uniform', 'zipf', 'hot', 'salted'] as const);
  const count = () => expectNumber(o.count, join(path, 'count'), { min: 1, integer: true });
  const share = () => expectNumber(o.share, join(path, 'share'), { min: 0, max: 1 });
  switch (kind) {
    case 'none':
      return { kind };
    case 'fixed':
      return { kind, key: expectString(o.key, join(path, 'key')) };
    case 'uniform':
      return { kind, count: count() };
    case 'zipf':
      return o.s === undefined ? { kind, count: count() } : { kind, count: count(), s: expectNumber(o.s, join(path, 's'), { min: 0.01 }) };
    case 'hot':
      return { kind, count: count(), share: share() };
    case 'salted':
      return { kind, count: count(), share: share(), salts: expectNumber(o.salts, join(path, 'salts'), { min: 1, integer: true }) };
  }
}

/** A time at or before `limitUs`: the end of the duration (what producers and faults do) or of the whole run. */
export function readTimeWithin(v: unknown, path: string, limitUs: Micros, what: 'duration' | 'run', quietUs = 0): Micros {
  const t = readTime(v, path);
  if (t > limitUs) {
    throw new ValidationError(path, v, what === 'duration' ? `a time within the duration (${limitUs / 1000} ms)` : `a time within the run (${limitUs / 1000} ms: ${(limitUs - quietUs) / 1000} ms and the quiet period)`);
  }
  return t;
}

function readWorkload(v: unknown, path: string, topics: ReadonlyMap<string, number>, durationUs: Micros): ProducerWorkload {
  const o = expectObject(v, path, WORKLOAD_FIELDS);
  const topic = expectString(o.topic, join(path, 'topic'));
  if (!topics.has(topic)) throw new ValidationError(join(path, 'topic'), topic, `a topic of this scenario (${[...topics.keys()].join(', ') || 'none declared'})`);
  const w: { -readonly [K in keyof ProducerWorkload]: ProducerWorkload[K] } = { topic };
  if (o.rate !== undefined) w.rate = expectNumber(o.rate, join(path, 'rate'), { min: 0, max: 1_000_000 });
  if (o.at !== undefined) w.at = expectArray(o.at, join(path, 'at')).map((t, i) => readTimeWithin(t, join(join(path, 'at'), i), durationUs, 'duration') / 1000);
  if (w.rate === undefined && w.at === undefined) throw new ValidationError(join(path, 'rate'), undefined, 'a rate (records per second) or a list of send times in "at"');
  if (o.start !== undefined) w.startMs = readTimeWithin(o.start, join(path, 'start'), durationUs, 'duration') / 1000;
  if (o.stop !== undefined) w.stopMs = readTimeWithin(o.stop, join(path, 'stop'), durationUs, 'duration') / 1000;
  if (o.maxRecords !== undefined) w.maxRecords = expectNumber(o.maxRecords, join(path, 'maxRecords'), { min: 1, integer: true });
  if (o.keys !== undefined) w.keys = readKeys(o.keys, join(path, 'keys'));
  if (o.valueBytes !== undefined) w.valueBytes = expectNumber(o.valueBytes, join(path, 'valueBytes'), { min: 0, max: 100 * 1024 * 1024, integer: true });
  if (o.partition !== undefined) {
    const n = topics.get(topic)!;
    w.partition = expectNumber(o.partition, join(path, 'partition'), { min: 0, max: n - 1, integer: true });
  }
  if (o.transactionSize !== undefined) w.transactionSize = expectNumber(o.transactionSize, join(path, 'transactionSize'), { min: 1, max: 1_000_000, integer: true });
  if (o.abortProbability !== undefined) {
    if (w.transactionSize === undefined) throw new ValidationError(join(path, 'abortProbability'), o.abortProbability, 'a transactionSize beside it (abortProbability is the share of transactions the application aborts)');
    w.abortProbability = expectNumber(o.abortProbability, join(path, 'abortProbability'), { min: 0, max: 1 });
  }
  if (o.tombstones !== undefined) {
    const tp = join(path, 'tombstones');
    const share = typeof o.tombstones === 'boolean' ? (o.tombstones ? 1 : 0) : typeof o.tombstones === 'number' ? o.tombstones : NaN;
    if (!(share >= 0 && share <= 1)) throw new ValidationError(tp, o.tombstones, 'true (every record a tombstone), false, or the share of records sent as tombstones (0 to 1)');
    // A tombstone deletes its key: a keyless one deletes nothing (and a compacted topic refuses keyless records).
    if (share > 0 && (w.keys === undefined || w.keys.kind === 'none')) throw new ValidationError(tp, o.tombstones, 'tombstones on a workload with "keys" (a tombstone deletes its key)');
    if (share > 0) w.tombstones = share;
  }
  return w;
}

function readConfigMap(defs: Parameters<typeof readConfig>[0], v: unknown, path: string): Record<string, unknown> {
  if (v === undefined) return {};
  if (!isRecord(v)) throw new ValidationError(path, v, 'an object of Kafka config names to values');
  const out: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(v)) out[k] = readConfig(defs, k, raw, join(path, k));
  return out;
}

/**
 * Checks a scenario document and resolves it. Every error names the field's path, shows the bad value
 * and says what is allowed; unknown fields are rejected with a "did you mean".
 */
export function validateScenario(raw: unknown): Scenario {
  const o = expectObject(raw, '', SPEC_FIELDS);
  const id = readId(o.id, 'id');
  const durationUs = readTime(o.duration, 'duration');
  if (durationUs <= 0) throw new ValidationError('duration', o.duration, 'a duration > 0');
  if (durationUs > MAX_DURATION_US) throw new ValidationError('duration', o.duration, 'at most 24 hours of simulated time');
  const quietUs = o.quiet === undefined ? ms(30_000) : readTime(o.quiet, 'quiet');
  // Producers and faults act within the duration; captions, consumers and their processing may speak of the quiet period.
  const endUs = durationUs + quietUs;

  // cluster
  const c = o.cluster === undefined ? {} : expectObject(o.cluster, 'cluster', CLUSTER_FIELDS);
  const controllers = c.controllers === undefined ? 3 : expectNumber(c.controllers, 'cluster.controllers', { min: 1, max: 9, integer: true });
  const brokers = c.brokers === undefined ? 3 : expectNumber(c.brokers, 'cluster.brokers', { min: 1, max: 100, integer: true });
  const brokerNames = readBrokerNames(c.brokerNames, brokers);
  const racksIn = c.racks === undefined ? null : expectArray(c.racks, 'cluster.racks', { minLength: 1 }).map((r, i) => expectString(r, join('cluster.racks', i)));
  const zonesIn = c.zones === undefined ? null : expectArray(c.zones, 'cluster.zones', { minLength: 1 }).map((z, i) => expectString(z, join('cluster.zones', i)));
  const racks = Array.from({ length: brokers }, (_, i) => (racksIn ? racksIn[i % racksIn.length]! : null));
  const zones = Array.from({ length: brokers }, (_, i) => (zonesIn ? zonesIn[i % zonesIn.length]! : racks[i] ?? 'zone-a'));
  const brokerOverrides = readConfigMap(BROKER_CONFIGS, c.broker, 'cluster.broker');
  const brokerConfig = resolveConfig(BROKER_CONFIGS, brokerOverrides, 'cluster.broker');
  const groupConsumerError = brokerGroupConsumerConfigError(brokerConfig);
  if (groupConsumerError) throw new ValidationError('cluster.broker', brokerOverrides, 'consistent group.consumer.* configs', groupConsumerError);
  const eligibleLeaderReplicas = c.eligibleLeaderReplicas === undefined ? true : expectBoolean(c.eligibleLeaderReplicas, 'cluster.eligibleLeaderReplicas');
  // Finalized features, as `kafka-storage format --feature transaction.version=1` sets them. [src: server-common/.../TransactionVersion.java]
  const features = c.features === undefined ? {} : expectObject(c.features, 'cluster.features', ['transaction.version', 'share.version']);
  const tvRaw = features['transaction.version'];
  if (tvRaw !== undefined && tvRaw !== 1 && tvRaw !== 2) throw new ValidationError('cluster.features.transaction.version', tvRaw, '1 or 2');
  const transactionVersion: TransactionVersion = tvRaw === undefined ? 2 : tvRaw;
  const shareVersion = readShareVersion(features['share.version']);
  const legacyHighWatermarkTruncation =
    c.legacyHighWatermarkTruncation === undefined ? false : expectBoolean(c.legacyHighWatermarkTruncation, 'cluster.legacyHighWatermarkTruncation');
  let network: Scenario['cluster']['network'];
  if (c.network !== undefined) {
    const n = expectObject(c.network, 'cluster.network', ['sameZoneLatencyMs', 'crossZoneLatencyMs', 'jitterMs', 'bandwidthBytesPerSec']);
    network = {
      ...(n.sameZoneLatencyMs !== undefined && { sameZoneLatencyMs: expectNumber(n.sameZoneLatencyMs, 'cluster.network.sameZoneLatencyMs', { min: 0, max: 10_000 }) }),
      ...(n.crossZoneLatencyMs !== undefined && { crossZoneLatencyMs: expectNumber(n.crossZoneLatencyMs, 'cluster.network.crossZoneLatencyMs', { min: 0, max: 10_000 }) }),
      ...(n.jitterMs !== undefined && { jitterMs: expectNumber(n.jitterMs, 'cluster.network.jitterMs', { min: 0, max: 10_000 }) }),
      ...(n.bandwidthBytesPerSec !== undefined && {
        bandwidthBytesPerSec: n.bandwidthBytesPerSec === null ? null : expectNumber(n.bandwidthBytesPerSec, 'cluster.network.bandwidthBytesPerSec', { min: 1 }),
      }),
    };
  }
  let disk: Scenario['cluster']['disk'];
  if (c.disk !== undefined) {
    const d = expectObject(c.disk, 'cluster.disk', ['fsyncLatencyMs', 'writebackDelayMs', 'tornWriteProbability']);
    disk = {
      ...(d.fsyncLatencyMs !== undefined && { fsyncLatencyMs: expectNumber(d.fsyncLatencyMs, 'cluster.disk.fsyncLatencyMs', { min: 0, max: 60_000 }) }),
      ...(d.writebackDelayMs !== undefined && {
        writebackDelayMs: d.writebackDelayMs === null ? null : expectNumber(d.writebackDelayMs, 'cluster.disk.writebackDelayMs', { min: 0 }),
      }),
      ...(d.tornWriteProbability !== undefined && {
        tornWriteProbability: expectNumber(d.tornWriteProbability, 'cluster.disk.tornWriteProbability', { min: 0, max: 1 }),
      }),
    };
  }

  // topics
  const topicNames = new Map<string, number>();
  const collisions = new Map<string, string>();
  const topics: ResolvedTopic[] = (o.topics === undefined ? [] : expectArray(o.topics, 'topics')).map((t, i) => {
    const p = join('topics', i);
    const to = expectObject(t, p, TOPIC_FIELDS);
    const name = readTopicName(to.name, join(p, 'name'));
    if (name.startsWith('__')) throw new ValidationError(join(p, 'name'), name, 'a name that does not start with "__" (internal topics)');
    if (topicNames.has(name)) throw new ValidationError(join(p, 'name'), name, 'a name not used by another topic');
    const collides = collisions.get(collisionKey(name));
    if (collides !== undefined) throw new ValidationError(join(p, 'name'), name, `a name that does not collide with topic "${collides}" ("." and "_" are the same in Kafka's metric names)`);
    collisions.set(collisionKey(name), name);
    const configs: Record<string, string> = {};
    for (const [k, v] of Object.entries(readConfigMap(TOPIC_CONFIGS, to.config, join(p, 'config')))) {
      configs[k] = Array.isArray(v) ? v.join(',') : String(v);
    }
    // A manual replica assignment (kafka-topics --replica-assignment): partition i on the brokers of list i,
    // the first its preferred leader; partitions and the replication factor follow from it. It is sent as
    // CreateTopics sends it (numPartitions and replicationFactor -1), so Kafka's own checks apply too.
    // [ReplicationControlManager.java `createTopic`, `validateManualPartitionAssignment`]
    let assignment: number[][] | null = null;
    if (to.assignment !== undefined) {
      const ap = join(p, 'assignment');
      const a = expectArray(to.assignment, ap, { minLength: 1 });
      assignment = a.map((r, j) => {
        const rp = join(ap, j);
        const ids = expectArray(r, rp, { minLength: 1 }).map((x, k) => expectNumber(x, join(rp, k), { min: 1, max: brokers, integer: true }));
        if (new Set(ids).size !== ids.length) throw new ValidationError(rp, r, 'distinct broker ids');
        return ids;
      });
      if (to.partitions !== undefined && assignment.length !== to.partitions) throw new ValidationError(ap, a, `one replica list per partition (${String(to.partitions)})`);
      assignment.forEach((ids, j) => {
        const rp = join(ap, j);
        if (to.replicationFactor !== undefined && ids.length !== to.replicationFactor) throw new ValidationError(rp, ids, `${String(to.replicationFactor)} broker ids (the replication factor)`);
        if (ids.length !== assignment![0]!.length) throw new ValidationError(rp, ids, `${assignment![0]!.length} broker ids, as many as partition 0 has (every partition has the same replication factor)`);
      });
    }
    const partitions = assignment
      ? assignment.length
      : to.partitions === undefined
        ? brokerConfig['num.partitions']
        : expectNumber(to.partitions, join(p, 'partitions'), { min: 1, max: 10_000, integer: true });
    const replicationFactor = assignment
      ? assignment[0]!.length
      : to.replicationFactor === undefined
        ? brokerConfig['default.replication.factor']
        : expectNumber(to.replicationFactor, join(p, 'replicationFactor'), { min: 1, integer: true });
    if (replicationFactor > brokers) {
      throw new ValidationError(join(p, 'replicationFactor'), replicationFactor, `at most the number of brokers (${brokers})`);
    }
    topicNames.set(name, partitions);
    return { name, partitions, replicationFactor, configs, assignment };
  });

  const clientIds = new Set<string>();
  const claimId = (cid: string, path: string) => {
    if (clientIds.has(cid) || /^(broker|controller)-\d+$/.test(cid) || cid === 'admin' || cid === OPERATOR_ID) {
      throw new ValidationError(path, cid, `an id not used by another client, broker or controller (nor "admin" or "${OPERATOR_ID}")`);
    }
    clientIds.add(cid);
  };

  const producers: ResolvedProducer[] = (o.producers === undefined ? [] : expectArray(o.producers, 'producers')).map((pr, i) => {
    const p = join('producers', i);
    const po = expectObject(pr, p, PRODUCER_FIELDS);
    const pid = readId(po.id, join(p, 'id'));
    claimId(pid, join(p, 'id'));
    const config = resolveConfig(PRODUCER_CONFIGS, readConfigMap(PRODUCER_CONFIGS, po.config, join(p, 'config')), join(p, 'config'));
    // Settings Kafka refuses together when set explicitly (KafkaProducer throws a ConfigException).
    const conflicts = effectiveProducerConfig(config, new Set(Object.keys(isRecord(po.config) ? po.config : {}))).errors;
    if (conflicts.length > 0) throw new ValidationError(join(p, 'config'), conflicts[0], 'settings Kafka accepts together (it refuses this with a ConfigException)');
    const ws = Array.isArray(po.workload) ? po.workload : [po.workload];
    if (po.workload === undefined || ws.length === 0) throw new ValidationError(join(p, 'workload'), po.workload, 'a workload (topic and rate) or a non-empty list of them');
    const workloads = ws.map((w, j) => readWorkload(w, Array.isArray(po.workload) ? join(join(p, 'workload'), j) : join(p, 'workload'), topicNames, durationUs));
    if (config['transactional.id'] === null) {
      const j = workloads.findIndex((w) => w.transactionSize !== undefined);
      if (j >= 0) throw new ValidationError(join(Array.isArray(po.workload) ? join(join(p, 'workload'), j) : join(p, 'workload'), 'transactionSize'), workloads[j]!.transactionSize, 'a producer with config transactional.id (only a transactional producer writes transactions)');
    } else if (workloads.length > 1) {
      throw new ValidationError(join(p, 'workload'), `${workloads.length} workloads`, 'one workload for a transactional producer (its transactions are one application loop)');
    }
    const startUs = po.start === undefined ? 0 : readTimeWithin(po.start, join(p, 'start'), durationUs, 'duration');
    return { id: pid, config, workloads, zone: po.zone === undefined ? null : expectString(po.zone, join(p, 'zone')), startUs };
  });

  const consumers: ResolvedConsumer[] = (o.consumers === undefined ? [] : expectArray(o.consumers, 'consumers')).map((cr, i) => {
    const p = join('consumers', i);
    const co = expectObject(cr, p, CONSUMER_FIELDS);
    const cid = readId(co.id, join(p, 'id'));
    claimId(cid, join(p, 'id'));
    const ts = expectArray(co.topics, join(p, 'topics'), { minLength: 1 }).map((t, j) => {
      const name = expectString(t, join(join(p, 'topics'), j));
      if (!topicNames.has(name)) throw new ValidationError(join(join(p, 'topics'), j), name, `a topic of this scenario (${[...topicNames.keys()].join(', ')})`);
      return name;
    });
    const group = co.group === undefined ? null : readId(co.group, join(p, 'group'));
    const overrides = readConfigMap(CONSUMER_CONFIGS, co.config, join(p, 'config'));
    if (group !== null) overrides['group.id'] = group;
    let transform: ResolvedTransform | null = null;
    if (co.transform !== undefined) {
      const tp = join(p, 'transform');
      const t = expectObject(co.transform, tp, TRANSFORM_FIELDS);
      const topic = expectString(t.topic, join(tp, 'topic'));
      if (!topicNames.has(topic)) throw new ValidationError(join(tp, 'topic'), topic, `a topic of this scenario (${[...topicNames.keys()].join(', ')})`);
      if (ts.includes(topic)) throw new ValidationError(join(tp, 'topic'), topic, 'a topic the application does not read (it writes the derived records there)');
      if (group === null) throw new ValidationError(join(p, 'group'), co.group, 'a group: a consume-transform-produce application commits its input positions to its group');
      const guarantee = t.guarantee === undefined ? 'at_least_once' : expectOneOf(t.guarantee, join(tp, 'guarantee'), ['at_least_once', 'exactly_once_v2'] as const);
      // The application commits itself; with exactly_once_v2 it reads committed data only, as Kafka Streams sets. [StreamsConfig `getMainConsumerConfigs`]
      if (overrides['enable.auto.commit'] === true) throw new ValidationError(join(join(p, 'config'), 'enable.auto.commit'), true, 'false (a consume-transform-produce application commits its input positions itself)');
      overrides['enable.auto.commit'] = false;
      if (guarantee === 'exactly_once_v2' && overrides['isolation.level'] === undefined) overrides['isolation.level'] = 'read_committed';
      const producerOverrides = readConfigMap(PRODUCER_CONFIGS, t.producer, join(tp, 'producer'));
      if (guarantee === 'exactly_once_v2' && producerOverrides['transactional.id'] === undefined) producerOverrides['transactional.id'] = cid;
      if (guarantee === 'at_least_once' && producerOverrides['transactional.id'] !== undefined) throw new ValidationError(join(join(tp, 'producer'), 'transactional.id'), producerOverrides['transactional.id'], 'no transactional.id with guarantee at_least_once (exactly_once_v2 writes in transactions)');
      const producerId = `${cid}-producer`;
      claimId(producerId, join(tp, 'producer'));
      transform = { topic, guarantee, producerId, producerConfig: resolveConfig(PRODUCER_CONFIGS, producerOverrides, join(tp, 'producer')) };
    }
    const config = resolveConfig(CONSUMER_CONFIGS, overrides, join(p, 'config'));
    // The client refuses the configs of the other group protocol. [ConsumerConfig.java `checkUnsupportedConfigsPostProcess`]
    const refused = unsupportedConsumerConfigs(config['group.protocol'], overrides);
    if (refused) {
      const name = refused.names[0]!;
      const why = config['group.protocol'] === 'consumer' ? 'the coordinator assigns and times sessions: use group.remote.assignor and the group.consumer.* / consumer.* group configs' : 'it only applies to group.protocol=consumer';
      throw new ValidationError(join(join(p, 'config'), name), overrides[name], `no ${name} with group.protocol=${config['group.protocol']}`, `${refused.message}; ${why}`);
    }
    const processing = validateProcessing(co.processing, join(p, 'processing'), { endUs, quietUs });
    return {
      id: cid,
      group,
      topics: ts,
      config,
      processing,
      startUs: co.start === undefined ? 0 : readTimeWithin(co.start, join(p, 'start'), endUs, 'run', quietUs),
      zone: co.zone === undefined ? null : expectString(co.zone, join(p, 'zone')),
      transform,
    };
  });

  // A group may mix the classic and the consumer protocol, as Kafka allows during an online migration: a consumer
  // member joining a live classic group upgrades it (group.consumer.migration.policy), a classic member joins a
  // consumer group as a classic member of it.

  const consumerGroups = new Set(consumers.flatMap((c) => (c.group === null ? [] : [c.group])));
  const shareConsumers = readShareConsumers(o.shareConsumers, {
    topicNames: new Set(topicNames.keys()),
    readId,
    claimId,
    readTimeWithin: (v, path) => readTimeWithin(v, path, endUs, 'run', quietUs),
    readTime,
    consumerGroups,
  });
  const shareGroups = new Set(shareConsumers.map((c) => c.group));
  const groupConfigs = readGroupConfigs(o.groups, consumerGroups, brokerConfig, shareGroups);

  // faults: validated against the hosts this scenario will have and the Kafka-level selectors
  const hostIds = [
    ...Array.from({ length: controllers }, (_, i) => `controller-${i + 1}`),
    ...Array.from({ length: brokers }, (_, i) => `broker-${i + 1}`),
    ...producers.map((p) => p.id),
    ...consumers.map((c) => c.id),
    ...shareConsumers.map((c) => c.id),
  ];
  // Actions first: the hosts a fault may name depend on them (the operator's host, partitions they add). A
  // rolling restart's targets are checked against the cluster as declared (its hosts do not depend on actions).
  const hostArgs = { hostIds, brokerConfig, brokers, racks, zones, topics, producers, consumers, shareConsumers };
  const operatorActions = Array.isArray(o.actions) && o.actions.length > 0;
  const actions = readActions(o.actions, { durationUs, topics: topicNames, brokers, resolver: scenarioResolver(scenarioHosts({ ...hostArgs, actions: [], operator: operatorActions })) });
  const faults = validateSchedule(o.faults ?? [], scenarioResolver(scenarioHosts({ ...hostArgs, actions, operator: actions.length > 0 })), 'faults');
  for (const f of faults) {
    if (f.atUs > durationUs) throw new ValidationError(join(join('faults', f.index), 'at'), f.atUs / 1000, `a time within the duration (${durationUs / 1000} ms)`);
  }

  const captions = (o.captions === undefined ? [] : expectArray(o.captions, 'captions')).map((cp, i) => {
    const p = join('captions', i);
    return readCaption(cp, p, (v, at) => readTimeWithin(v, at, endUs, 'run', quietUs), scenarioResolver(scenarioHosts({ ...hostArgs, actions, operator: actions.length > 0 })));
  });

  // The groups a run reports figures for: each consumer's group, or the consumer itself outside any.
  const groups = [...new Set(consumers.map((c) => c.group ?? c.id))];
  const alerts = readAlerts(o.alerts, hostIds);
  const alertChecks = new Set(alerts.map((a) => ALERT_CHECK_PREFIX + a.name));
  const partitionsOf = partitionCounts(topicNames, actions);
  const expect = (o.expect === undefined ? [] : expectArray(o.expect, 'expect')).map((e, i): ScenarioExpectation => {
    const p = join('expect', i);
    const eo = expectObject(e, p, EXPECT_FIELDS);
    const check = expectString(eo.check, join(p, 'check'));
    const problem = alertChecks.has(check) ? null : checkNameProblem(check, groups, consumers.flatMap((c) => (c.group === null ? [] : [c.id])), partitionsOf);
    if (problem) {
      const ofAlerts = alerts.length > 0 ? `, or an alert of this scenario (${[...alertChecks].join(', ')})` : '';
      throw new ValidationError(join(p, 'check'), check, problem.allowed + ofAlerts, problem.hint);
    }
    const op = expectOneOf(eo.op, join(p, 'op'), OPS);
    const value = expectNumber(eo.value, join(p, 'value'));
    const out: { -readonly [K in keyof ScenarioExpectation]: ScenarioExpectation[K] } = { check, op, value };
    if (eo.description !== undefined) out.description = expectString(eo.description, join(p, 'description'));
    if (eo.during !== undefined) {
      const dp = join(p, 'during');
      const refused = windowProblem(check);
      if (refused !== null) throw new ValidationError(dp, eo.during, `no window on ${check}: ${refused}; "during" takes a check that counts moments (${windowCheckNames().join(', ')})`);
      const d = expectArray(eo.during, dp);
      if (d.length !== 2) throw new ValidationError(dp, eo.during, 'a window of two times, ["from", "to"], e.g. ["20s", "40s"]');
      const fromUs = readTimeWithin(d[0], join(dp, 0), endUs, 'run', quietUs);
      const toUs = readTimeWithin(d[1], join(dp, 1), endUs, 'run', quietUs);
      if (toUs <= fromUs) throw new ValidationError(join(dp, 1), d[1], `a time after the window's start (${fromUs / 1000} ms)`);
      out.during = [d[0] as number | string, d[1] as number | string];
      out.window = { fromUs, toUs };
    }
    return out;
  });

  const tags = o.tags === undefined ? [] : expectArray(o.tags, 'tags').map((t, i) => expectString(t, join('tags', i)));
  const trace = o.trace === undefined ? 'standard' : expectOneOf(o.trace, 'trace', ['minimal', 'standard', 'full'] as const);
  const metricsIntervalUs = readMetrics(o.metrics, trace, alerts.length > 0);
  let seed: number | string = 1;
  if (o.seed !== undefined) {
    if (typeof o.seed !== 'number' && typeof o.seed !== 'string') throw new ValidationError('seed', o.seed, 'a number or a string');
    seed = o.seed;
  }

  return {
    spec: raw as ScenarioSpec,
    id,
    title: o.title === undefined ? id : expectString(o.title, 'title'),
    summary: o.summary === undefined ? '' : expectString(o.summary, 'summary'),
    lesson: o.lesson === undefined ? '' : expectString(o.lesson, 'lesson'),
    tags,
    seed,
    durationUs,
    quietUs,
    trace,
    cluster: { controllers, brokers, brokerNames, racks, zones, brokerConfig, brokerOverrides, eligibleLeaderReplicas, legacyHighWatermarkTruncation, transactionVersion, shareVersion, network, disk },
    topics,
    producers,
    consumers,
    shareConsumers,
    groupConfigs,
    faults,
    actions,
    captions,
    expect,
    metricsIntervalUs,
    alerts,
  };
}

/** Per-partition figures name a partition of the scenario's topics: topic -> its partition count, counting those create-partitions adds. */
function partitionCounts(topics: ReadonlyMap<string, number>, actions: readonly ScenarioAction[]): Map<string, number> {
  const out = new Map(topics);
  for (const a of actions) if (a.action === 'create-partitions') out.set(a.topic, Math.max(out.get(a.topic) ?? 0, a.count));
  return out;
}

/**
 * Per-partition figures a caller names for a run's report (`kafkasim run --figure`), checked against the
 * scenario's partitions like an expectation's; refused with the nearest name.
 */
export function readFigures(names: readonly string[], s: Scenario, path = '--figure'): string[] {
  const partitions = partitionCounts(new Map(s.topics.map((t) => [t.name, t.partitions])), s.actions);
  for (const name of names) {
    const pf = partitionFigureName(name);
    const problem = checkNameProblem(name, [], [], partitions);
    if (pf === null) {
      throw new ValidationError(path, name, `a per-partition figure, <figure>.<topic>-<partition> (figures: ${Object.keys(PARTITION_FIGURES).join(', ')})`, problem?.hint);
    }
    if (problem !== null) throw new ValidationError(path, name, problem.allowed, problem.hint);
  }
  return [...names];
}

/** The default sampling interval of the metrics (a common scrape interval is 15 s; 1 s shows a failover). */
export const DEFAULT_METRICS_INTERVAL_US: Micros = ms(1000);

/**
 * `metrics`: false, or `{ "interval": "1s" }`. Sampled by default, every second, except in a minimal trace
 * (benchmarks and exploration), where only an explicit interval turns it on.
 */
function readMetrics(v: unknown, trace: 'minimal' | 'standard' | 'full', alerts: boolean): Micros | null {
  if (v === undefined) return trace === 'minimal' && !alerts ? null : DEFAULT_METRICS_INTERVAL_US;
  if (v === false) {
    if (alerts) throw new ValidationError('metrics', v, 'sampling on (an object, or leave it out): the alerts are evaluated over the samples');
    return null;
  }
  const m = expectObject(v, 'metrics', ['interval']);
  if (m.interval === undefined) return DEFAULT_METRICS_INTERVAL_US;
  const us = readTime(m.interval, 'metrics.interval');
  if (us < ms(10)) throw new ValidationError('metrics.interval', m.interval, 'an interval of at least 10ms');
  return us;
}

/** `alerts`: rules as text, or { name, rule }; names unique. `actors` are the ids a rule may narrow to in braces. */
function readAlerts(v: unknown, actors: readonly string[]): AlertRule[] {
  if (v === undefined) return [];
  const seen = new Set<string>();
  return expectArray(v, 'alerts').map((a, i) => {
    const p = join('alerts', i);
    let rule: AlertRule;
    if (typeof a === 'string') rule = parseAlertRule(a, p, actors);
    else {
      const ao = expectObject(a, p, ['name', 'rule']);
      const name = ao.name === undefined ? undefined : expectString(ao.name, join(p, 'name'));
      if (name !== undefined && !/^[\w.-]+$/.test(name)) throw new ValidationError(join(p, 'name'), name, 'a name of letters, digits, "-", "_" and "."');
      rule = parseAlertRule(expectString(ao.rule, join(p, 'rule')), join(p, 'rule'), actors, name);
    }
    if (seen.has(rule.name)) throw new ValidationError(p, a, `an alert whose name no other alert has ("${rule.name}" is taken)`);
    seen.add(rule.name);
    return rule;
  });
}

/** `groups`: each names a group of the scenario and sets its consumer.* group configs within the broker's bounds. */
function readGroupConfigs(v: unknown, groups: ReadonlySet<string>, broker: BrokerConfig, shareGroups: ReadonlySet<string> = new Set()): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  if (v === undefined) return out;
  expectArray(v, 'groups').forEach((g, i) => {
    const p = join('groups', i);
    const go = expectObject(g, p, ['id', 'config']);
    const id = expectString(go.id, join(p, 'id'));
    const all = [...groups, ...shareGroups];
    if (!groups.has(id) && !shareGroups.has(id)) throw new ValidationError(join(p, 'id'), id, `a group of this scenario's consumers (${all.join(', ') || 'none'})`);
    if (out[id]) throw new ValidationError(join(p, 'id'), id, 'each group once');
    if (shareGroups.has(id)) {
      out[id] = readShareGroupConfig(go.config, join(p, 'config'), broker);
      return;
    }
    const values = readConfigMap(GROUP_CONFIGS, go.config, join(p, 'config')) as Partial<Record<GroupConfigName, number>>;
    for (const [name, value] of Object.entries(values) as [GroupConfigName, number][]) {
      const e = groupConfigError(name, value, broker, values);
      if (e) throw new ValidationError(join(join(p, 'config'), name), value, `a value within the broker's group.consumer.* bounds`, e);
    }
    out[id] = Object.fromEntries(Object.entries(values).map(([k, x]) => [k, String(x)]));
  });
  return out;
}

/** What the scenario's hosts and topics will be, for the validator's resolver (selectors that can never match are refused). */
function scenarioHosts(x: {
  hostIds: readonly string[];
  brokerConfig: BrokerConfig;
  brokers: number;
  racks: readonly (string | null)[];
  zones: readonly string[];
  topics: readonly ResolvedTopic[];
  producers: readonly ResolvedProducer[];
  consumers: readonly ResolvedConsumer[];
  shareConsumers: readonly ResolvedShareConsumer[];
  actions: readonly ScenarioAction[];
  /** Whether the runner starts the operator's admin client (any action at all). */
  operator: boolean;
}): ScenarioHosts {
  // As the cluster builds them: controllers in the brokers' zones, clients in theirs or the first one.
  const zones = [
    ...x.zones,
    ...x.producers.map((p) => p.zone ?? x.zones[0] ?? 'zone-a'),
    ...x.consumers.map((c) => c.zone ?? x.zones[0] ?? 'zone-a'),
    ...x.shareConsumers.map((c) => c.zone ?? x.zones[0] ?? 'zone-a'),
  ];
  const racks = [...x.racks.map((r) => r ?? 'rack-0'), ...[...new Set(x.zones)].map((z) => `controller-rack-${z}`)];
  const tags = ['broker', 'controller', 'client' /* the admin client that creates the topics, and every other */, ...(x.producers.length > 0 ? ['producer'] : []), ...(x.consumers.length > 0 || x.shareConsumers.length > 0 ? ['consumer'] : []), ...(x.shareConsumers.length > 0 ? ['share-consumer'] : []), ...(x.operator ? ['operator'] : [])];
  const topics = new Map<string, { partitions: number; replicationFactor: number }>();
  for (const t of x.topics) topics.set(t.name, { partitions: t.partitions, replicationFactor: t.replicationFactor });
  for (const a of x.actions) {
    if (a.action === 'create-partitions') topics.set(a.topic, { ...topics.get(a.topic)!, partitions: Math.max(topics.get(a.topic)!.partitions, a.count) });
  }
  // __consumer_offsets exists once a consumer joins a group, and only if the cluster has the replicas it asks for.
  const offsetsRf = x.brokerConfig['offsets.topic.replication.factor'];
  if ((x.consumers.some((c) => c.group !== null) || x.shareConsumers.length > 0) && offsetsRf <= x.brokers) {
    topics.set(CONSUMER_OFFSETS_TOPIC, { partitions: x.brokerConfig['offsets.topic.num.partitions'], replicationFactor: offsetsRf });
  }
  // __share_group_state likewise, once share consumers run (`leader:__share_group_state/0`: a share coordinator).
  if (x.shareConsumers.length > 0 && x.brokerConfig['share.coordinator.state.topic.replication.factor'] <= x.brokers) {
    topics.set(SHARE_GROUP_STATE_TOPIC, { partitions: x.brokerConfig['share.coordinator.state.topic.num.partitions'], replicationFactor: x.brokerConfig['share.coordinator.state.topic.replication.factor'] });
  }
  const groups = [...x.consumers.flatMap((c) => (c.group === null ? [] : [c.group])), ...x.shareConsumers.map((c) => c.group)];
  return { hostIds: x.hostIds, zones, racks, tags, brokers: x.brokers, topics, groups };
}
