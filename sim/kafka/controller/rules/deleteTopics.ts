import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import type { MetadataRecord } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';

/** One topic of a DeleteTopics request, by name or by id (KIP-516); the other is null. */
export interface DeleteTopicsTopic {
  readonly name: string | null;
  readonly topicId: string | null;
}

/** [DeleteTopicsResponseData.DeletableTopicResult] */
export interface DeleteTopicsTopicResult {
  readonly name: string | null;
  readonly topicId: string | null;
  readonly error: KafkaError;
  readonly message: string;
}

/** The DeleteTopics RPC (broker, forwarding a client's request -> active controller), as the simulator carries it. */
export interface DeleteTopicsRequest {
  readonly type: 'DeleteTopics';
  readonly correlationId: number;
  readonly topics: readonly DeleteTopicsTopic[];
}
export interface DeleteTopicsResponse {
  readonly type: 'DeleteTopicsResponse';
  readonly correlationId: number;
  readonly results: readonly DeleteTopicsTopicResult[];
}

/**
 * DeleteTopics [metadata/.../controller/ReplicationControlManager.java `deleteTopics`, `deleteTopic`;
 * ControllerApis.deleteTopics]: each existing topic becomes one RemoveTopicRecord, which takes its partitions and
 * configs with it when replayed; brokers then stop and delete their replicas. A name no topic has is
 * UNKNOWN_TOPIC_OR_PARTITION, an id UNKNOWN_TOPIC_ID; a topic named twice is INVALID_REQUEST.
 */
export function deleteTopics(image: MetadataView, topics: readonly DeleteTopicsTopic[]): ControllerResult<DeleteTopicsTopicResult[]> {
  const records: MetadataRecord[] = [];
  const results: DeleteTopicsTopicResult[] = [];
  const named = new Map<string, number>();
  for (const t of topics) {
    const k = t.topicId ?? `name:${t.name}`;
    named.set(k, (named.get(k) ?? 0) + 1);
  }
  const removed = new Set<string>();
  for (const t of topics) {
    const k = t.topicId ?? `name:${t.name}`;
    if (named.get(k)! > 1) {
      results.push({ name: t.name, topicId: t.topicId, error: 'INVALID_REQUEST', message: t.topicId ? 'Duplicate topic id.' : 'Duplicate topic name.' });
      continue;
    }
    const topic = t.topicId !== null ? image.topicById(t.topicId) : t.name !== null ? image.topicByName(t.name) : undefined;
    if (!topic) {
      results.push(
        t.topicId !== null
          ? { name: null, topicId: t.topicId, error: 'UNKNOWN_TOPIC_ID', message: `No topic with id ${t.topicId}.` }
          : { name: t.name, topicId: null, error: 'UNKNOWN_TOPIC_OR_PARTITION', message: 'This server does not host this topic-partition.' },
      );
      continue;
    }
    if (!removed.has(topic.topicId)) {
      removed.add(topic.topicId);
      records.push({ type: 'RemoveTopicRecord', topicId: topic.topicId });
    }
    results.push({ name: topic.name, topicId: topic.topicId, error: 'NONE', message: '' });
  }
  return { records, response: results, elections: [] };
}
