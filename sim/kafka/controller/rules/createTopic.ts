import type { Random } from '../../../core/random';
import { TOPIC_CONFIGS } from '../../config/configs';
import { configDef } from '../../config/def';
import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import type { MetadataRecord, PartitionRecord } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';
import { placeReplicas, type UsableBroker } from './stripedReplicaPlacer';

/** One topic of a CreateTopics request. -1 for numPartitions / replicationFactor means the broker default. */
export interface CreatableTopic {
  readonly name: string;
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly configs?: Readonly<Record<string, string>>;
  /** A manual replica assignment: partition i on the brokers of list i (then numPartitions and replicationFactor are -1). */
  readonly assignments?: readonly (readonly number[])[];
}

export interface CreateTopicDefaults {
  /** num.partitions (default 1). */
  readonly numPartitions: number;
  /** default.replication.factor (default 1). */
  readonly replicationFactor: number;
}

export const KAFKA_CREATE_TOPIC_DEFAULTS: CreateTopicDefaults = { numPartitions: 1, replicationFactor: 1 };

export interface CreateTopicReply {
  readonly error: KafkaError;
  readonly message: string;
  readonly topicId: string | null;
  readonly numPartitions: number;
  readonly replicationFactor: number;
}

function failure(error: KafkaError, message: string): ControllerResult<CreateTopicReply> {
  return { records: [], response: { error, message, topicId: null, numPartitions: -1, replicationFactor: -1 }, elections: [] };
}

/** Registered and not in controlled shutdown, fenced or not. [BrokerHeartbeatManager.java `usableBrokers`] */
export function usableBrokers(image: MetadataView): UsableBroker[] {
  return image
    .brokers()
    .filter((b) => !b.inControlledShutdown)
    .map((b) => ({ id: b.id, rack: b.rack, fenced: b.fenced }));
}

/**
 * CreateTopics for one topic: TOPIC_ALREADY_EXISTS for a taken name, INVALID_CONFIG for a config Kafka would
 * refuse, INVALID_REPLICATION_FACTOR for 0 or below -1, INVALID_PARTITIONS likewise, then placement over the
 * usable brokers (INVALID_REPLICATION_FACTOR when it cannot be done). Each partition starts with ISR = its
 * active replicas (all of them when every chosen broker is unfenced), leader = the first of those (the first
 * replica, which the placer always takes from an unfenced broker), epochs 0, RECOVERED.
 * Records: TopicRecord, the topic's ConfigRecords (plus a ClearElrRecord when ELR is on and
 * min.insync.replicas is set, as every min.insync.replicas change makes), then the PartitionRecords.
 * [metadata/.../controller/ReplicationControlManager.java `createTopics`, `createTopic`,
 * `buildPartitionRegistration`; ConfigurationControlManager.java `createClearElrRecordsAsNeeded`]
 *
 * @param placementRandom the controller's placer stream, kept across calls.
 * @param topicId the new topic's id (e.g. newUuid of a seeded stream).
 */
export function createTopic(
  image: MetadataView,
  topic: CreatableTopic,
  placementRandom: Random,
  topicId: string,
  defaults: CreateTopicDefaults = KAFKA_CREATE_TOPIC_DEFAULTS,
): ControllerResult<CreateTopicReply> {
  if (image.topicByName(topic.name)) return failure('TOPIC_ALREADY_EXISTS', `Topic '${topic.name}' already exists.`);
  if (image.topicById(topicId)) throw new Error(`createTopic: topic id ${topicId} is already in use`);

  const configs = topic.configs ?? {};
  const configNames = Object.keys(configs).sort();
  for (const name of configNames) {
    const def = configDef(TOPIC_CONFIGS, name);
    if (!def) return failure('INVALID_CONFIG', `unknown topic config ${name}`);
    if (def.read(configs[name]) === undefined) return failure('INVALID_CONFIG', `${name}=${configs[name]} is not ${def.allowed}`);
  }

  if (topic.assignments !== undefined && topic.assignments.length > 0) return createAssigned(image, topic, topicId, configNames, configs);
  if (topic.replicationFactor < -1 || topic.replicationFactor === 0) {
    return failure('INVALID_REPLICATION_FACTOR', 'The replication factor must be above 0, or -1 for the default.');
  }
  if (topic.numPartitions < -1 || topic.numPartitions === 0) {
    return failure('INVALID_PARTITIONS', 'The number of partitions must be above 0, or -1 for the default.');
  }
  const numPartitions = topic.numPartitions === -1 ? defaults.numPartitions : topic.numPartitions;
  const replicationFactor = topic.replicationFactor === -1 ? defaults.replicationFactor : topic.replicationFactor;

  const placement = placeReplicas(usableBrokers(image), numPartitions, replicationFactor, placementRandom);
  if (!placement.ok) {
    return failure('INVALID_REPLICATION_FACTOR', `Cannot place ${replicationFactor} replica(s) of each partition: ${placement.message}.`);
  }

  const records = topicRecords(image, topic.name, topicId, configNames, configs);
  for (let p = 0; p < placement.assignments.length; p++) {
    const record = newPartitionRecord(image, topicId, p, placement.assignments[p]!);
    if (!record) {
      return failure('INVALID_REPLICATION_FACTOR', `Cannot place ${replicationFactor} replica(s) of each partition: every broker is fenced or in controlled shutdown.`);
    }
    records.push(record);
  }
  return { records, response: { error: 'NONE', message: '', topicId, numPartitions, replicationFactor }, elections: [] };
}

/** The TopicRecord, the topic's ConfigRecords, and the ClearElrRecord a min.insync.replicas setting makes under ELR. */
function topicRecords(image: MetadataView, name: string, topicId: string, configNames: readonly string[], configs: Readonly<Record<string, string>>): MetadataRecord[] {
  const records: MetadataRecord[] = [{ type: 'TopicRecord', name, topicId }];
  for (const c of configNames) records.push({ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: name, name: c, value: configs[c]! });
  if (image.elrEnabled() && configNames.includes('min.insync.replicas')) records.push({ type: 'ClearElrRecord', topicName: name });
  return records;
}

/**
 * CreateTopics with a manual replica assignment: numPartitions and replicationFactor must be -1; each list must be
 * non-empty, name registered brokers once each, and be as long as the first; at least one of its brokers must be
 * active. Partition i is placed as list i says, its first active broker leads.
 * [ReplicationControlManager.java `createTopic` (topic.assignments()), `validateManualPartitionAssignment`]
 */
function createAssigned(
  image: MetadataView,
  topic: CreatableTopic,
  topicId: string,
  configNames: readonly string[],
  configs: Readonly<Record<string, string>>,
): ControllerResult<CreateTopicReply> {
  const assignments = topic.assignments!;
  if (topic.replicationFactor !== -1) return failure('INVALID_REQUEST', 'A manual partition assignment was specified, but replication factor was not set to -1.');
  if (topic.numPartitions !== -1) return failure('INVALID_REQUEST', 'A manual partition assignment was specified, but numPartitions was not set to -1.');
  const records = topicRecords(image, topic.name, topicId, configNames, configs);
  for (let p = 0; p < assignments.length; p++) {
    const replicas = assignments[p]!;
    const error = manualAssignmentError(image, replicas, assignments[0]!.length);
    if (error) return failure('INVALID_REPLICA_ASSIGNMENT', error);
    const record = newPartitionRecord(image, topicId, p, replicas);
    if (!record) return failure('INVALID_REPLICA_ASSIGNMENT', `All brokers specified in the manual partition assignment for partition ${p} are fenced or in controlled shutdown.`);
    records.push(record);
  }
  return { records, response: { error: 'NONE', message: '', topicId, numPartitions: assignments.length, replicationFactor: assignments[0]!.length }, elections: [] };
}

/**
 * What is wrong with a manual replica list, or null: empty, an unregistered broker, a broker twice, or a length
 * other than the first partition's (CreateTopics) or none checked (a reassignment's target).
 * [ReplicationControlManager.java `validateManualPartitionAssignment`]
 */
export function manualAssignmentError(image: MetadataView, replicas: readonly number[], replicationFactor?: number): string | null {
  if (replicas.length === 0) return 'The manual partition assignment includes an empty replica list.';
  const sorted = [...replicas].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    const b = sorted[i]!;
    if (!image.broker(b)) return `The manual partition assignment includes broker ${b}, but no such broker is registered.`;
    if (i > 0 && sorted[i - 1] === b) return `The manual partition assignment includes the broker ${b} more than once.`;
  }
  if (replicationFactor !== undefined && replicas.length !== replicationFactor) {
    return `The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not consistent with previous partitions, which have ${replicationFactor} replica(s).`;
  }
  return null;
}

/**
 * The registration of a new partition (a new topic's, or one CreatePartitions adds): the ISR is its replicas that
 * are active, the first of them leads, both epochs start at 0, no ELR. null when no replica is active.
 */
export function newPartitionRecord(image: MetadataView, topicId: string, partitionId: number, replicas: readonly number[]): PartitionRecord | null {
  const isr = replicas.filter((r) => image.isActive(r));
  if (isr.length === 0) return null;
  return {
    type: 'PartitionRecord',
    topicId,
    partitionId,
    replicas,
    isr,
    leader: isr[0]!,
    leaderRecoveryState: 'RECOVERED',
    leaderEpoch: 0,
    partitionEpoch: 0,
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
  };
}
