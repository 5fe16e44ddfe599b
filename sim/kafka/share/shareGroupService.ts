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

export class ShareGroupService implements BrokerExtension {
  private readonly coordinator: ShareGroupCoordinator;
  private readonly partitions: SharePartitionManager;

  constructor(
    private readonly broker: Broker,
    store: ShareStateStore,
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

  onMetadataApplied(): void {
    this.coordinator.onMetadataApplied();
    this.partitions.onMetadataApplied();
  }
}
