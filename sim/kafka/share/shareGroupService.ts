/**
 * The broker's side of share groups, as a broker extension: ShareGroupHeartbeat goes to the share-group
 * coordinator (when this broker coordinates the group), ShareFetch and ShareAcknowledge to the share-partition
 * manager (for the partitions this broker leads). FindCoordinator is the group coordinator service's: share
 * groups live beside consumer groups in `__consumer_offsets`. [src: core/.../server/KafkaApis.scala
 * `handleShareGroupHeartbeat`, `handleShareFetchRequest`, `handleShareAcknowledgeRequest`]
 */
import type { Broker, BrokerExtension } from '../broker/broker';
import { CONSUMER_OFFSETS_TOPIC } from '../broker/groupCoordinatorService';
import { partitionForGroup } from '../coordinator/groupCoordinatorPartition';
import { ShareGroupCoordinator } from './shareGroupCoordinator';
import { SharePartitionManager } from './sharePartitionManager';
import type { ShareAcknowledgeRequest, ShareFetchRequest, ShareGroupHeartbeatRequest } from './shareProtocol';
import type { ShareStateStore } from './shareStateStore';
import { ShareGroupDlqManager, type DlqHost } from './shareGroupDlqManager';
import { DLQ_PRODUCE_TIMEOUT_MS } from './dlqRules';
import type { CreateTopicsRequest, CreateTopicsResponse, ProduceRequest, ProduceResponse } from '../protocol';
import type { KafkaError } from '../errors';
import { DEFAULT_SHARE_VERSION, supportsShareGroups, type ShareVersion } from './shareVersion';

/** Kafka's message of UNSUPPORTED_VERSION. [src: clients/.../common/protocol/Errors.java] */
const UNSUPPORTED_VERSION_MESSAGE = 'The version of API is not supported.';

export class ShareGroupService implements BrokerExtension {
  private readonly coordinator: ShareGroupCoordinator;
  private readonly partitions: SharePartitionManager;

  constructor(
    private readonly broker: Broker,
    store: ShareStateStore,
    private readonly shareVersion: ShareVersion = DEFAULT_SHARE_VERSION,
  ) {
    const groupConfig = (groupId: string): Record<string, string> => Object.fromEntries(broker.image.resourceConfigs('GROUP', groupId) ?? []);
    const setTimer = (d: number, fn: () => void): number => broker.setTimer(d, fn);
    const cancelTimer = (id: number): void => broker.cancelTimer(id);
    // Getters, not copies: the clock moves (an object spread would freeze it at construction).
    this.coordinator = new ShareGroupCoordinator({
      get nodeId() {
        return broker.id;
      },
      get now() {
        return broker.now;
      },
      trace: broker.trace,
      config: broker.config,
      setTimer,
      cancelTimer,
      groupConfig,
      coordinates: (groupId) => broker.replicas.partition(CONSUMER_OFFSETS_TOPIC, partitionForGroup(groupId, broker.config['offsets.topic.num.partitions']))?.isLeader === true,
      partitionCount: (topic) => broker.image.topicByName(topic)?.partitions.length ?? -1,
    });
    this.partitions = new SharePartitionManager(
      {
        get nodeId() {
          return broker.id;
        },
        get now() {
          return broker.now;
        },
        trace: broker.trace,
        config: broker.config,
        setTimer,
        cancelTimer,
        groupConfig,
        leaderOf: (topic, partition) => {
          const p = broker.replicas.partition(topic, partition);
          return p?.isLeader ? { leaderEpoch: p.leaderEpoch, log: p.log } : null;
        },
        leaderHint: (topic, partition) => {
          const p = broker.image.partitionByName(topic, partition);
          return p ? { leaderId: p.leader, leaderEpoch: p.leaderEpoch } : null;
        },
        send: (to, msg, bytes) => broker.send(to, msg, bytes),
      },
      store,
      new ShareGroupDlqManager(dlqHost(broker, groupConfig)),
      shareVersion,
    );
    broker.replicas.highWatermarkListener = () => this.partitions.onHighWatermark();
  }

  handle(from: string, msg: { type: string; correlationId: number }): boolean {
    if (!supportsShareGroups(this.shareVersion) && this.refuse(from, msg)) return true;
    switch (msg.type) {
      case 'ShareGroupHeartbeat':
        this.broker.send(from, this.coordinator.heartbeat(from, msg as ShareGroupHeartbeatRequest), 64);
        return true;
      case 'ShareFetch':
        this.partitions.handleFetch(from, msg as ShareFetchRequest);
        return true;
      case 'ShareAcknowledge':
        this.partitions.handleAcknowledge(from, msg as ShareAcknowledgeRequest);
        return true;
      default:
        return false;
    }
  }

  /**
   * With share.version 0 the share-group APIs are off: each request is answered UNSUPPORTED_VERSION.
   * [src: core/.../server/KafkaApis.scala `handleShareGroupHeartbeat`, `handleShareFetchRequest`,
   * `handleShareAcknowledgeRequest` (`isShareGroupProtocolEnabled`)]
   */
  private refuse(from: string, msg: { type: string; correlationId: number }): boolean {
    const base = { correlationId: msg.correlationId, error: 'UNSUPPORTED_VERSION' as const };
    switch (msg.type) {
      case 'ShareGroupHeartbeat':
        this.broker.send(from, { ...base, type: 'ShareGroupHeartbeatResponse', errorMessage: UNSUPPORTED_VERSION_MESSAGE, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null }, 64);
        return true;
      case 'ShareFetch':
        this.broker.send(from, { ...base, type: 'ShareFetchResponse', partitions: [] }, 32);
        return true;
      case 'ShareAcknowledge':
        this.broker.send(from, { ...base, type: 'ShareAcknowledgeResponse', partitions: [] }, 32);
        return true;
      default:
        return false;
    }
  }

  onMetadataApplied(): void {
    this.coordinator.onMetadataApplied();
    this.partitions.onMetadataApplied();
  }
}

/** The broker's side of the DLQ writes: its metadata, its local logs, Produce to a DLQ leader, CreateTopics to the controller. */
function dlqHost(broker: Broker, groupConfig: (groupId: string) => Record<string, string>): DlqHost {
  return {
    get nodeId() {
      return broker.id;
    },
    get now() {
      return broker.now;
    },
    trace: broker.trace,
    config: broker.config,
    setTimer: (d, fn) => broker.setTimer(d, fn),
    groupConfig,
    topicConfigs: (topic) => (broker.image.topicByName(topic) ? Object.fromEntries(broker.image.resourceConfigs('TOPIC', topic) ?? []) : null),
    partitionLeaders: (topic) => broker.image.topicByName(topic)?.partitions.map((p) => p.leader) ?? null,
    sourceRecord: (topic, partition, offset) => {
      const log = broker.replicas.partition(topic, partition)?.log;
      if (!log || offset < log.logStartOffset || offset >= log.logEndOffset) return null;
      const r = log.read(offset, 1 << 20, offset + 1, true);
      for (const b of r.batches) {
        for (let i = 0; i < b.recordCount; i++) if (b.offsetAt(i) === offset) return { key: b.keyAt(i), value: b.valueAt(i), headers: b.headersAt(i) };
      }
      return null;
    },
    produce: (leader, topic, partition, batch, done) => {
      // On this broker the append is local (acks=all semantics); elsewhere a Produce. [ShareGroupDLQStateManager.java `coalesceProduceRequests`: acks -1]
      if (leader === broker.brokerId) return broker.replicas.appendAsLeaderAndWait(topic, partition, batch, DLQ_PRODUCE_TIMEOUT_MS, done);
      const req: Omit<ProduceRequest, 'correlationId'> = { type: 'Produce', acks: -1, timeoutMs: DLQ_PRODUCE_TIMEOUT_MS, partitions: [{ topic, partition, batch }] };
      broker.sendToBroker<typeof req, ProduceResponse>(leader, req, DLQ_PRODUCE_TIMEOUT_MS, (o) => done(o.ok ? (o.response.partitions[0]?.error ?? 'UNKNOWN_SERVER_ERROR') : o.error));
    },
    createTopic: (name, configs, done) => {
      const req: Omit<CreateTopicsRequest, 'correlationId'> = { type: 'CreateTopics', topics: [{ name, numPartitions: -1, replicationFactor: -1, configs }] };
      // A controller that is no longer active answers NOT_CONTROLLER without topics (Kafka's forwarding retries it).
      broker.sendToController<typeof req, CreateTopicsResponse & { error?: KafkaError }>(req, DLQ_PRODUCE_TIMEOUT_MS, (o) =>
        done(o.ok ? (o.response.topics?.[0]?.error ?? o.response.error ?? 'UNKNOWN_SERVER_ERROR') : o.error),
      );
    },
  };
}
