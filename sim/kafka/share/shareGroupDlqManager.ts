/**
 * Phase 2 of the DLQ flow on the share-partition leader (KIP-1191): a record gone ARCHIVING is written to its
 * group's dead-letter topic — checked first (`dlqTopicError`), created with CreateTopics when it is missing and
 * auto-create is on, then one Produce (acks=all) to the leader of partition `source partition % DLQ partitions`,
 * retried with backoff on retriable errors up to five attempts. When the write ends, written or not, the caller
 * archives the record; a failure is only traced (Kafka logs it). One record per write: Kafka coalesces the
 * writes bound for one broker into one Produce.
 * [src: server/src/main/java/org/apache/kafka/server/share/dlq/ShareGroupDLQStateManager.java `dlq`,
 * `ProduceRequestHandler`, `SendThread.generateRequests`; ShareGroupDLQRecordHelper.java `buildDLQRecords`]
 */
import type { TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import { buildBatch, PayloadTable, type RecordBatch, type RecordHeader } from '../records';
import {
  dlqDestinationPartition,
  dlqHeaders,
  dlqRetryBackoffMs,
  dlqTopicError,
  isRetriableDlqCreateError,
  isRetriableDlqProduceError,
  type DlqReason,
} from './dlqRules';

/** What the broker lends the DLQ manager. */
export interface DlqHost {
  readonly nodeId: string;
  readonly now: Micros;
  readonly trace: Trace;
  readonly config: BrokerConfig;
  setTimer(delay: Micros, fn: () => void): TimerId;
  groupConfig(groupId: string): Readonly<Record<string, string>>;
  /** The topic's configs as this broker's metadata holds them, or null when the topic is unknown here. */
  topicConfigs(topic: string): Readonly<Record<string, string>> | null;
  /** Each partition's leader (-1 when leaderless), or null when the topic is unknown here. */
  partitionLeaders(topic: string): readonly number[] | null;
  /** The source record at `offset` of the local log (for errors.deadletterqueue.copy.record.enable), or null. */
  sourceRecord(topic: string, partition: number, offset: number): { readonly key: string | null; readonly value: string | null; readonly headers: readonly RecordHeader[] } | null;
  /** Produce with acks=all to the partition's leader; `done` gets its error (NONE once written). */
  produce(leader: number, topic: string, partition: number, batch: RecordBatch, done: (error: KafkaError) => void): void;
  /** CreateTopics through the active controller; `done` gets the topic's error. */
  createTopic(name: string, configs: Readonly<Record<string, string>>, done: (error: KafkaError) => void): void;
}

/** One record to dead-letter. */
export interface DlqWrite {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly deliveryCount: number;
  readonly reason: DlqReason;
}

interface Handler {
  readonly write: DlqWrite;
  readonly done: (written: boolean) => void;
  createAttempts: number;
  produceAttempts: number;
}

export class ShareGroupDlqManager {
  /** The DLQ records' keys, values and headers. */
  private readonly payloads = new PayloadTable();

  constructor(private readonly host: DlqHost) {}

  /** Writes the record to its group's DLQ topic; `done(true)` once written, `done(false)` when it could not be. */
  dlq(write: DlqWrite, done: (written: boolean) => void): void {
    this.attempt({ write, done, createAttempts: 0, produceAttempts: 0 });
  }

  private dlqTopic(group: string): string {
    return (this.host.groupConfig(group)['errors.deadletterqueue.topic.name'] ?? '').trim();
  }

  /** Validate (the configs are dynamic), then produce if the topic and its leaders are known, else create it. */
  private attempt(h: Handler): void {
    const { group } = h.write;
    const topic = this.dlqTopic(group);
    const problem = dlqTopicError(group, topic, {
      exists: (t) => this.host.topicConfigs(t) !== null,
      dlqEnabledOnTopic: (t) => (this.host.topicConfigs(t)?.['errors.deadletterqueue.group.enable'] ?? 'false').trim().toLowerCase() === 'true',
      prefix: this.host.config['errors.deadletterqueue.topic.name.prefix'],
      autoCreate: this.host.config['errors.deadletterqueue.auto.create.topics.enable'],
    });
    if (problem !== null) return this.fail(h, topic, 'INVALID_CONFIG', problem);
    const leaders = this.host.partitionLeaders(topic);
    // A topic this broker does not know yet, or with a leaderless partition, takes the CreateTopics path (an
    // existing topic answers TOPIC_ALREADY_EXISTS, retried). [ShareGroupDLQStateManager.java `dlqTopicExists`, `populateDLQTopicData`]
    if (leaders === null || leaders.length === 0 || leaders.some((l) => l < 0)) return this.create(h, topic);
    const partition = dlqDestinationPartition(h.write.partition, leaders.length);
    this.produce(h, topic, partition, leaders[partition]!);
  }

  private create(h: Handler, topic: string): void {
    // The DLQ topic takes the cluster's partition count and replication factor, is enabled for DLQ writes, and
    // keeps the DLQ records' own timestamps. [ShareGroupDLQStateManager.java `createTopicBuilder`]
    this.host.createTopic(topic, { 'errors.deadletterqueue.group.enable': 'true', 'message.timestamp.type': 'CreateTime' }, (error) => {
      h.createAttempts++;
      if (error === 'NONE' || isRetriableDlqCreateError(error)) {
        // Created: produce as soon as this broker's metadata has the topic and its leaders.
        const leaders = this.host.partitionLeaders(topic);
        if (error === 'NONE' && leaders !== null && leaders.length > 0 && leaders.every((l) => l >= 0)) return this.attempt(h);
        return this.retry(h, topic, h.createAttempts, error === 'NONE' ? 'LEADER_NOT_AVAILABLE' : error);
      }
      this.fail(h, topic, error, `CreateTopics of the DLQ topic ${topic} failed with ${error}`);
    });
  }

  private produce(h: Handler, topic: string, partition: number, leader: number): void {
    const w = h.write;
    const copy = (this.host.groupConfig(w.group)['errors.deadletterqueue.copy.record.enable'] ?? 'false').trim().toLowerCase() === 'true';
    const source = copy ? this.host.sourceRecord(w.topic, w.partition, w.offset) : null;
    const headers = dlqHeaders({ topic: w.topic, partition: w.partition, offset: w.offset, group: w.group, deliveryCount: w.deliveryCount, reason: w.reason }, source?.headers ?? []);
    // Stamped with the DLQ write time. [ShareGroupDLQRecordHelper.java `buildDLQRecords`]
    const batch = buildBatch([{ key: source?.key ?? null, value: source?.value ?? null, headers, timestamp: Math.floor(this.host.now / 1000) }], { payloads: this.payloads });
    this.host.produce(leader, topic, partition, batch, (error) => {
      h.produceAttempts++;
      if (error === 'NONE') return this.succeed(h, topic, partition);
      if (isRetriableDlqProduceError(error)) return this.retry(h, topic, h.produceAttempts, error);
      this.fail(h, topic, error, `the Produce to ${topic}-${partition} failed with ${error}`);
    });
  }

  private retry(h: Handler, topic: string, attempts: number, error: KafkaError): void {
    const backoff = dlqRetryBackoffMs(attempts);
    if (backoff === null) return this.fail(h, topic, error, `gave up after ${attempts} attempts (last error ${error})`);
    this.host.setTimer(ms(backoff), () => this.attempt(h));
  }

  private succeed(h: Handler, dlqTopic: string, dlqPartition: number): void {
    const w = h.write;
    this.host.trace.emit('share.dead-letter', this.host.nodeId, { group: w.group, topic: w.topic, partition: w.partition, offset: w.offset, dlqTopic, reason: w.reason, deliveryCount: w.deliveryCount, dlqPartition });
    h.done(true);
  }

  private fail(h: Handler, dlqTopic: string, error: KafkaError, message: string): void {
    const w = h.write;
    this.host.trace.emit('share.dead-letter.failed', this.host.nodeId, { group: w.group, topic: w.topic, partition: w.partition, offset: w.offset, dlqTopic, reason: w.reason, deliveryCount: w.deliveryCount, error, message });
    h.done(false);
  }
}
