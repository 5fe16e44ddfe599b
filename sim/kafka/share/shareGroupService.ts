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
