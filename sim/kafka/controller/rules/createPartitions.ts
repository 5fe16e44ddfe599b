import type { Random } from '../../../core/random';
import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import type { MetadataRecord } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';
import { newPartitionRecord, usableBrokers } from './createTopic';
import { placeReplicas } from './stripedReplicaPlacer';

/** One topic of a CreatePartitions request: grow `name` to `count` partitions in all. */
export interface CreatePartitionsTopic {
  readonly name: string;
  readonly count: number;
}

/** [CreatePartitionsResponseData.CreatePartitionsTopicResult] */
export interface CreatePartitionsTopicResult {
  readonly name: string;
  readonly error: KafkaError;
  readonly message: string;
}

/** The CreatePartitions RPC (admin -> active controller), as the simulator carries it. */
export interface CreatePartitionsRequest {
  readonly type: 'CreatePartitions';
  readonly correlationId: number;
  readonly topics: readonly CreatePartitionsTopic[];
}
export interface CreatePartitionsResponse {
  readonly type: 'CreatePartitionsResponse';
  readonly correlationId: number;
  readonly results: readonly CreatePartitionsTopicResult[];
}

function failure(name: string, error: KafkaError, message: string): ControllerResult<CreatePartitionsTopicResult> {
  return { records: [], response: { name, error, message }, elections: [] };
}

/**
 * CreatePartitions for one topic [metadata/.../controller/ReplicationControlManager.java `createPartitions`]: an
 * unknown topic is UNKNOWN_TOPIC_OR_PARTITION; a count that is not an increase is INVALID_PARTITIONS (partitions
 * are never removed). The new partitions get the replication factor of the topic's first partition and are
 * placed by the striped placer over the usable brokers, as createTopic's are; each starts with ISR = its active
 * replicas and the first of them as leader, epochs 0. The existing partitions are untouched, so keys hashed with
 * the old count now map elsewhere: producers see the new count at their next metadata refresh.
 *
 * @param placementRandom the controller's placer stream, kept across calls.
 */
export function createPartitions(image: MetadataView, topic: CreatePartitionsTopic, placementRandom: Random): ControllerResult<CreatePartitionsTopicResult> {
  const t = image.topicByName(topic.name);
  if (!t) return failure(topic.name, 'UNKNOWN_TOPIC_OR_PARTITION', `Topic '${topic.name}' does not exist.`);
  const current = t.partitions.length;
  if (topic.count === current) return failure(topic.name, 'INVALID_PARTITIONS', `Topic already has ${current} partition(s).`);
  if (!Number.isInteger(topic.count) || topic.count < current) {
    return failure(topic.name, 'INVALID_PARTITIONS', `Topic ${topic.name} has ${current} partition(s); ${topic.count} would not be an increase.`);
  }
  const first = t.partitions[0];
  if (!first) return failure(topic.name, 'UNKNOWN_SERVER_ERROR', `Topic ${topic.name} has no partitions.`);
  const replicationFactor = first.replicas.length;
  const additional = topic.count - current;
  const placement = placeReplicas(usableBrokers(image), additional, replicationFactor, placementRandom);
  if (!placement.ok) {
    return failure(topic.name, 'INVALID_REPLICATION_FACTOR', `Cannot place ${replicationFactor} replica(s) of each new partition: ${placement.message}.`);
  }
  const records: MetadataRecord[] = [];
  for (let i = 0; i < placement.assignments.length; i++) {
    const record = newPartitionRecord(image, t.topicId, current + i, placement.assignments[i]!);
    if (!record) {
      return failure(
        topic.name,
        'INVALID_REPLICATION_FACTOR',
        `Unable to replicate the partition ${replicationFactor} time(s): every broker is fenced or in controlled shutdown.`,
      );
    }
    records.push(record);
  }
  return { records, response: { name: topic.name, error: 'NONE', message: '' }, elections: [] };
}
