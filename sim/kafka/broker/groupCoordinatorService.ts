import type { FindCoordinatorRequest } from '../protocol';
import { GroupCoordinator, type GroupRequest, type OffsetsPartitionAdder } from '../coordinator/groupCoordinator';
import { PayloadTable } from '../records';
import type { CoordinatorStorage } from '../coordinator/storage';
import { coordinatorBatch, readCoordinatorLog } from './coordinatorLog';
import { partitionForGroup } from '../coordinator/groupCoordinatorPartition';
import type { MetadataImage } from '../metadata/metadataImage';
import type { Broker, BrokerExtension } from './broker';

/** Kafka's internal topic of group metadata and committed offsets. */
export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';

const GROUP_REQUESTS = new Set(['JoinGroup', 'SyncGroup', 'Heartbeat', 'LeaveGroup', 'OffsetCommit', 'TxnOffsetCommit', 'OffsetFetch', 'ConsumerGroupHeartbeat']);

/**
 * The broker's side of group coordination [core/.../server/KafkaApis.scala; group-coordinator/.../GroupCoordinatorService.java]:
 * answers FindCoordinator from the metadata it applied, routes group requests to the embedded
 * GroupCoordinator, tells it when this broker gains or loses leadership of a __consumer_offsets partition,
 * and stores its records in that partition through the replica manager (replicated, acks=all).
 */
export class GroupCoordinatorService implements BrokerExtension {
  private readonly coordinator: GroupCoordinator;
  /** Partition -> leader epoch this broker leads it in (as the coordinator knows it). */
  private readonly led = new Map<number, number>();

  constructor(
    private readonly broker: Broker,
    /** The broker's transaction coordinator service, when it runs one (version 2 TxnOffsetCommits add their partition through it). */
    transactions?: OffsetsPartitionAdder,
  ) {
    // The coordinator's own records: its batches point to these keys and values.
    const payloads = new PayloadTable();
    const storage: CoordinatorStorage = {
      append: (partition, records, done, transactional) => {
        const batch = coordinatorBatch(records, Math.floor(broker.now / 1000), payloads, transactional);
        broker.replicas.appendAsLeaderAndWait(CONSUMER_OFFSETS_TOPIC, partition, batch, broker.config['offsets.commit.timeout.ms'], done, transactional ? 'COORDINATOR' : 'CLIENT');
      },
      readLog: (partition) => readCoordinatorLog(broker, CONSUMER_OFFSETS_TOPIC, partition),
    };
    this.coordinator = new GroupCoordinator({
      host: broker,
      trace: broker.trace,
      random: broker.random.fork('group-coordinator'),
      config: broker.config,
      storage,
      ...(transactions ? { transactions } : {}),
      // What the broker's applied metadata says: partition counts and topic ids for consumer groups, group configs.
      metadata: {
        partitionCount: (topic) => broker.image.topicByName(topic)?.partitions.length ?? -1,
        topicId: (topic) => broker.image.topicByName(topic)?.topicId,
        topicName: (topicId) => broker.image.topicById(topicId)?.name,
        groupConfig: (groupId) => broker.image.resourceConfigs('GROUP', groupId),
      },
    });
  }

  handle(from: string, msg: { type: string; correlationId: number }): boolean {
    if (msg.type === 'FindCoordinator') {
      const req = msg as FindCoordinatorRequest;
      const p = partitionForGroup(req.key, this.broker.config['offsets.topic.num.partitions']);
      const leader = this.broker.image.partitionByName(CONSUMER_OFFSETS_TOPIC, p)?.leader ?? -1;
      const live = leader >= 0 && this.broker.image.broker(leader)?.fenced === false;
      this.broker.send(
        from,
        { type: 'FindCoordinatorResponse', correlationId: req.correlationId, error: live ? 'NONE' : 'COORDINATOR_NOT_AVAILABLE', nodeId: live ? leader : -1 },
        32,
      );
      return true;
    }
    if (!GROUP_REQUESTS.has(msg.type)) return false;
    this.coordinator.handle(from, msg as GroupRequest, (resp) => this.broker.send(from, resp, 64));
    return true;
  }

  /** A marker on __consumer_offsets ends a transaction's offsets (made committed or dropped). */
  onTxnMarkerWritten(topic: string, partition: number, producerId: number, commit: boolean): void {
    if (topic === CONSUMER_OFFSETS_TOPIC) this.coordinator.completeTransaction(partition, producerId, commit);
  }

  /** After each metadata update: load the partitions this broker now leads, unload those it lost. */
  onMetadataApplied(_image: MetadataImage): void {
    const n = this.broker.config['offsets.topic.num.partitions'];
    for (let p = 0; p < n; p++) {
      const replica = this.broker.replicas.partition(CONSUMER_OFFSETS_TOPIC, p);
      const leading = replica?.isLeader === true;
      const epoch = this.led.get(p);
      if (leading && epoch !== replica!.leaderEpoch) {
        if (epoch !== undefined) this.coordinator.onResign(p);
        this.led.set(p, replica!.leaderEpoch);
        this.coordinator.onBecomeLeader(p, replica!.leaderEpoch);
      } else if (!leading && epoch !== undefined) {
        this.led.delete(p);
        this.coordinator.onResign(p);
      }
    }
  }

  /** Inspection (tests, the UI). */
  get groups(): GroupCoordinator {
    return this.coordinator;
  }
}
