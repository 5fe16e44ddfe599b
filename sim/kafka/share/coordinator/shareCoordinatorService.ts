/**
 * The share coordinator on a broker: for each partition of `__share_group_state` this broker leads, a shard
 * loaded from that partition's log when the leadership arrives (so the state survives crashes as the groups'
 * does in `__consumer_offsets`), serving ReadShareGroupState and WriteShareGroupState from the share-partition
 * leaders. A write's ShareSnapshot or ShareUpdate record is appended through the replica manager (acks=all,
 * `share.coordinator.write.timeout.ms`) and applied once committed; writes of one partition go one at a time.
 * [src: share-coordinator/src/main/java/org/apache/kafka/coordinator/share/ShareCoordinatorService.java
 * `writeState`, `readState`, `onElection`, `onResignation`; coordinator-common/.../runtime/CoordinatorRuntime.java]
 */
import type { Trace } from '../../../core/trace';
import type { KafkaError } from '../../errors';
import { PayloadTable } from '../../records';
import type { Broker } from '../../broker/broker';
import { coordinatorBatch, readCoordinatorLog } from '../../broker/coordinatorLog';
import type { ReadShareGroupStateRequest, ReadShareGroupStateResponse, WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../shareProtocol';
import { SHARE_GROUP_STATE_TOPIC, shareStatePartition } from './shareCoordinatorKey';
import { ShareCoordinatorShard } from './shareCoordinatorShard';

interface Loaded {
  readonly leaderEpoch: number;
  readonly shard: ShareCoordinatorShard;
  /** Writes waiting for the one in flight. */
  readonly queue: (() => void)[];
  busy: boolean;
}

/**
 * A failed append as the share-partition leader reads it: a lost leadership means another coordinator; the
 * rest means try again later. [src: ShareCoordinatorService.java `handleOperationException`]
 */
function writeError(e: KafkaError): KafkaError {
  if (e === 'NOT_LEADER_OR_FOLLOWER' || e === 'KAFKA_STORAGE_ERROR') return 'NOT_COORDINATOR';
  if (e === 'NOT_ENOUGH_REPLICAS' || e === 'NOT_ENOUGH_REPLICAS_AFTER_APPEND' || e === 'REQUEST_TIMED_OUT' || e === 'UNKNOWN_TOPIC_OR_PARTITION') return 'COORDINATOR_NOT_AVAILABLE';
  return e;
}

export class ShareCoordinatorService {
  private readonly loaded = new Map<number, Loaded>();
  private readonly payloads = new PayloadTable();

  constructor(
    private readonly broker: Broker,
    private readonly trace: Trace,
  ) {}

  private get numPartitions(): number {
    return this.broker.config['share.coordinator.state.topic.num.partitions'];
  }

  private partitionOf(groupId: string, topicId: string, partition: number): number {
    return shareStatePartition(groupId, topicId, partition, this.numPartitions);
  }

  read(req: Omit<ReadShareGroupStateRequest, 'type' | 'correlationId'>, done: (r: Omit<ReadShareGroupStateResponse, 'type' | 'correlationId'>) => void): void {
    const l = this.loaded.get(this.partitionOf(req.groupId, req.topicId, req.partition));
    if (!l) return done({ error: 'NOT_COORDINATOR', startOffset: -1, stateBatches: [] });
    const r = l.shard.read(req.groupId, req.topicId, req.partition, req.leaderEpoch);
    done({ error: r.error, startOffset: r.state?.startOffset ?? -1, stateBatches: r.state?.stateBatches ?? [] });
  }

  write(req: Omit<WriteShareGroupStateRequest, 'type' | 'correlationId'>, done: (r: Omit<WriteShareGroupStateResponse, 'type' | 'correlationId'>) => void): void {
    const p = this.partitionOf(req.groupId, req.topicId, req.partition);
    const l = this.loaded.get(p);
    if (!l) return done({ error: 'NOT_COORDINATOR' });
    const run = (): void => {
      if (this.loaded.get(p) !== l) return done({ error: 'NOT_COORDINATOR' });
      const r = l.shard.write(req);
      if (r.error !== 'NONE' || r.records.length === 0) {
        done({ error: r.error });
        return this.next(l);
      }
      const batch = coordinatorBatch(r.records, Math.floor(this.broker.now / 1000), this.payloads);
      this.broker.replicas.appendAsLeaderAndWait(SHARE_GROUP_STATE_TOPIC, p, batch, this.broker.config['share.coordinator.write.timeout.ms'], (error) => {
        if (this.loaded.get(p) !== l) {
          done({ error: 'NOT_COORDINATOR' });
          return;
        }
        if (error === 'NONE') for (const rec of r.records) l.shard.replay(rec);
        done({ error: error === 'NONE' ? 'NONE' : writeError(error) });
        this.next(l);
      });
    };
    if (l.busy) l.queue.push(run);
    else {
      l.busy = true;
      run();
    }
  }

  private next(l: Loaded): void {
    const n = l.queue.shift();
    if (n) n();
    else l.busy = false;
  }

  /** The request of a remote share-partition leader. */
  handle(from: string, msg: { type: string; correlationId: number }): boolean {
    if (msg.type === 'ReadShareGroupState') {
      this.read(msg as ReadShareGroupStateRequest, (r) => this.broker.send(from, { type: 'ReadShareGroupStateResponse', correlationId: msg.correlationId, ...r }, 64 + 16 * r.stateBatches.length));
      return true;
    }
    if (msg.type === 'WriteShareGroupState') {
      this.write(msg as WriteShareGroupStateRequest, (r) => this.broker.send(from, { type: 'WriteShareGroupStateResponse', correlationId: msg.correlationId, ...r }, 32));
      return true;
    }
    return false;
  }

  /** After each metadata update: load the partitions of __share_group_state this broker now leads, drop those it lost. [ShareCoordinatorService.java `onElection`, `onResignation`] */
  onMetadataApplied(): void {
    for (let p = 0; p < this.numPartitions; p++) {
      const replica = this.broker.replicas.partition(SHARE_GROUP_STATE_TOPIC, p);
      const leading = replica?.isLeader === true;
      const l = this.loaded.get(p);
      if (leading && l?.leaderEpoch !== replica!.leaderEpoch) {
        const shard = new ShareCoordinatorShard(this.broker.config['share.coordinator.snapshot.update.records.per.snapshot']);
        const records = readCoordinatorLog(this.broker, SHARE_GROUP_STATE_TOPIC, p);
        for (const r of records) shard.replay(r);
        this.loaded.set(p, { leaderEpoch: replica!.leaderEpoch, shard, queue: [], busy: false });
        if (records.length > 0) this.trace.emit('share.coordinator.load', this.broker.id, { partition: p, leaderEpoch: replica!.leaderEpoch, records: records.length, sharePartitions: shard.keys() });
      } else if (!leading && l) {
        this.loaded.delete(p);
      }
    }
  }
}
