/**
 * The dead-letter queue of share groups (KIP-1191) as decisions: whether a group's DLQ topic may be written,
 * which of its partitions takes a record, the context headers of the DLQ record, why the record is dead-lettered,
 * and how long to wait before a retry. The wiring (CreateTopics, Produce, timers) is `shareGroupDlqManager.ts`.
 * [src: server/src/main/java/org/apache/kafka/server/share/dlq/ShareGroupDLQStateManager.java,
 * ShareGroupDLQValidator.java, ShareGroupDLQRecordHelper.java]
 */
import type { RecordHeader } from '../records';

/** What the DLQ checks read of the cluster, as the broker's metadata cache and configs say. */
export interface DlqTopicView {
  /** The topic is in this broker's metadata. */
  exists(topic: string): boolean;
  /** The topic's `errors.deadletterqueue.group.enable` (false unless set). */
  dlqEnabledOnTopic(topic: string): boolean;
  /** The broker's `errors.deadletterqueue.topic.name.prefix` ('' allows any name). */
  readonly prefix: string;
  /** The broker's `errors.deadletterqueue.auto.create.topics.enable`. */
  readonly autoCreate: boolean;
}

/**
 * Why the group's DLQ topic cannot be written now, in one line; null when it can (it exists and is enabled, or
 * it may be created). Checked before each attempt: the configs are dynamic.
 * [ShareGroupDLQStateManager.java `validateDlqTopic`; ShareGroupDLQValidator.java `validateDlqTopicConfig`]
 */
export function dlqTopicError(group: string, topic: string, view: DlqTopicView): string | null {
  if (topic === '') return `no DLQ topic is configured for share group ${group}`;
  if (topic.startsWith('__')) return `the DLQ topic ${topic} of share group ${group} cannot start with __`;
  const exists = view.exists(topic);
  if (exists && !view.dlqEnabledOnTopic(topic)) return `DLQ is not enabled on topic ${topic} (errors.deadletterqueue.group.enable=false) for share group ${group}`;
  if (view.prefix !== '' && !topic.startsWith(view.prefix)) return `the DLQ topic ${topic} of share group ${group} does not start with the prefix ${view.prefix} (errors.deadletterqueue.topic.name.prefix)`;
  if (!exists && !view.autoCreate) return `the DLQ topic ${topic} does not exist and errors.deadletterqueue.auto.create.topics.enable is false (share group ${group})`;
  return null;
}

/** The DLQ partition a source partition's records go to. [ShareGroupDLQRecordHelper.java `dlqDestinationPartition`] */
export function dlqDestinationPartition(sourcePartition: number, dlqPartitions: number): number {
  return sourcePartition % dlqPartitions;
}

/** Why a record is dead-lettered: the member rejected it, or it was released at the delivery-count limit. */
export type DlqReason = 'rejected' | 'delivery-count-limit';

/**
 * The reason of a record found ARCHIVING after a re-initialisation, where only its delivery count is persisted:
 * at the limit it was released there, below it it was rejected. [SharePartition.java (DLQ rerun on initialization)]
 */
export function inferredDlqReason(deliveryCount: number, deliveryCountLimit: number): DlqReason {
  return deliveryCount >= deliveryCountLimit ? 'delivery-count-limit' : 'rejected';
}

/** The text of the `__dlq.errors.message` header (our words). */
export function dlqMessage(reason: DlqReason, deliveryCount: number): string {
  return reason === 'rejected' ? `record rejected by the share consumer (delivery ${deliveryCount})` : `delivery count limit reached (${deliveryCount} deliveries)`;
}

/**
 * The context headers of a DLQ record, after the source record's own headers when it is copied (the last header
 * of a name wins). [ShareGroupDLQRecordHelper.java `headers`, `HEADER_DLQ_ERRORS_*`]
 */
export function dlqHeaders(
  source: { readonly topic: string; readonly partition: number; readonly offset: number; readonly group: string; readonly deliveryCount: number; readonly reason: DlqReason },
  original: readonly RecordHeader[] = [],
): RecordHeader[] {
  return [
    ...original,
    { key: '__dlq.errors.topic', value: source.topic },
    { key: '__dlq.errors.partition', value: String(source.partition) },
    { key: '__dlq.errors.offset', value: String(source.offset) },
    { key: '__dlq.errors.group', value: source.group },
    { key: '__dlq.errors.delivery.count', value: String(source.deliveryCount) },
    { key: '__dlq.errors.message', value: dlqMessage(source.reason, source.deliveryCount) },
  ];
}

/** Attempts of one request kind (CreateTopics, Produce) before the write is given up. [ShareGroupDLQStateManager.java `MAX_REQUEST_ATTEMPTS`] */
export const DLQ_MAX_REQUEST_ATTEMPTS = 5;
/** [ShareGroupDLQStateManager.java `REQUEST_BACKOFF_MS`, `REQUEST_BACKOFF_MAX_MS`] */
export const DLQ_REQUEST_BACKOFF_MS = 1000;
export const DLQ_REQUEST_BACKOFF_MAX_MS = 30_000;
/** The Produce of a DLQ record: acks=all with the broker's default request timeout. [ShareGroupDLQStateManager.java `coalesceProduceRequests`] */
export const DLQ_PRODUCE_TIMEOUT_MS = 30_000;

/**
 * The wait before the next attempt after `attempts` attempts (exponential, base 2, capped), or null when the
 * attempts are spent. Kafka adds ±20% jitter; here there is none.
 * [clients/.../utils/internals/ExponentialBackoffManager.java `canAttempt`, `backOff`]
 */
export function dlqRetryBackoffMs(attempts: number): number | null {
  if (attempts >= DLQ_MAX_REQUEST_ATTEMPTS) return null;
  return Math.min(DLQ_REQUEST_BACKOFF_MS * 2 ** attempts, DLQ_REQUEST_BACKOFF_MAX_MS);
}

/** Produce errors worth another attempt; any other error fails the write at once. [ShareGroupDLQStateManager.java `handleProduceResponse`] */
export function isRetriableDlqProduceError(error: string): boolean {
  return error === 'NOT_LEADER_OR_FOLLOWER' || error === 'NETWORK_EXCEPTION' || error === 'REQUEST_TIMED_OUT';
}

/**
 * CreateTopics errors worth another attempt. [ShareGroupDLQStateManager.java `handleCreateTopicsResponse`]
 * NOT_CONTROLLER is ours: the simulated broker sends CreateTopics to the controller itself, where Kafka's
 * request forwarding retries a controller change.
 */
export function isRetriableDlqCreateError(error: string): boolean {
  return error === 'TOPIC_ALREADY_EXISTS' || error === 'THROTTLING_QUOTA_EXCEEDED' || error === 'NETWORK_EXCEPTION' || error === 'REQUEST_TIMED_OUT' || error === 'NOT_CONTROLLER';
}
