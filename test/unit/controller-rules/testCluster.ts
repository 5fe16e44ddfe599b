import { handleBrokerFenced, handleBrokerUnfenced } from '../../../sim/kafka/controller/rules/brokerFencing';
import { registerBroker, unregisterBroker } from '../../../sim/kafka/controller/rules/brokerRegistration';
import { handleBrokerInControlledShutdown } from '../../../sim/kafka/controller/rules/controlledShutdown';
import type { ControllerResult, PartitionElection } from '../../../sim/kafka/controller/rules/controllerResult';
import { bootstrapRecords } from '../../../sim/kafka/metadata/bootstrap';
import { MetadataImage } from '../../../sim/kafka/metadata/metadataImage';
import type { PartitionRegistration } from '../../../sim/kafka/metadata/partitionRegistration';
import type { MetadataRecord } from '../../../sim/kafka/metadata/records';

/**
 * A metadata log and its image, driven by the controller rules: what a controller does, without Raft. Each
 * step appends what a rule returned and replays it, so tests walk the image through real records.
 */
export class TestCluster {
  readonly image = new MetadataImage();
  readonly log: MetadataRecord[] = [];
  readonly elections: PartitionElection[] = [];
  private incarnations = new Map<number, number>();
  /** The broker epoch each broker would find in its clean-shutdown file (set by cleanShutdown). */
  private cleanShutdownEpochs = new Map<number, number>();

  constructor(opts: { elr: boolean; clusterConfigs?: Record<string, string> }) {
    this.append(bootstrapRecords({ eligibleLeaderReplicas: opts.elr, ...(opts.clusterConfigs ? { clusterConfigs: opts.clusterConfigs } : {}) }));
  }

  get nextOffset(): number {
    return this.log.length;
  }

  append(records: readonly MetadataRecord[]): readonly MetadataRecord[] {
    this.image.replayAll(records, this.log.length);
    this.log.push(...records);
    return records;
  }

  apply<T>(result: ControllerResult<T>): T {
    this.append(result.records);
    this.elections.push(...result.elections);
    return result.response;
  }

  /** Registers a new incarnation (clean when the broker left a clean-shutdown file) and unfences it. */
  startBroker(id: number, rack: string | null = null): void {
    const n = (this.incarnations.get(id) ?? 0) + 1;
    this.incarnations.set(id, n);
    const previousBrokerEpoch = this.cleanShutdownEpochs.get(id) ?? -1;
    this.cleanShutdownEpochs.delete(id);
    const reply = this.apply(registerBroker(this.image, { brokerId: id, incarnationId: `broker-${id}-${n}`, rack, previousBrokerEpoch }, this.nextOffset, false));
    if (reply.error !== 'NONE') throw new Error(`registration of ${id} failed: ${reply.error}`);
  }

  unfence(id: number): void {
    const b = this.image.broker(id)!;
    this.apply(handleBrokerUnfenced(this.image, id, b.epoch));
  }

  fence(id: number): void {
    this.apply(handleBrokerFenced(this.image, id));
  }

  /** A controlled shutdown that completes: leadership moves away, then the broker is fenced and leaves its epoch behind. */
  cleanShutdown(id: number): void {
    const b = this.image.broker(id)!;
    this.apply(handleBrokerInControlledShutdown(this.image, id, b.epoch));
    this.apply(handleBrokerFenced(this.image, id));
    this.cleanShutdownEpochs.set(id, b.epoch);
  }

  /** A crash: the session expires and the controller fences the broker; no clean-shutdown file. */
  crash(id: number): void {
    if (!this.image.broker(id)!.fenced) this.fence(id);
    this.cleanShutdownEpochs.delete(id);
  }

  unregister(id: number): void {
    this.apply(unregisterBroker(this.image, id));
  }

  /** A topic with a manual assignment: ISR = replicas, leader = first replica, epochs 0. */
  createTopic(name: string, assignment: number[][], configs: Record<string, string> = {}): string {
    const topicId = `id-${name}`;
    const records: MetadataRecord[] = [{ type: 'TopicRecord', name, topicId }];
    for (const key of Object.keys(configs).sort()) {
      records.push({ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: name, name: key, value: configs[key]! });
    }
    assignment.forEach((replicas, partitionId) =>
      records.push({
        type: 'PartitionRecord',
        topicId,
        partitionId,
        replicas,
        isr: replicas,
        leader: replicas[0]!,
        leaderRecoveryState: 'RECOVERED',
        leaderEpoch: 0,
        partitionEpoch: 0,
        eligibleLeaderReplicas: [],
        lastKnownElr: [],
      }),
    );
    this.append(records);
    return topicId;
  }

  partition(topic: string, partitionId = 0): PartitionRegistration {
    const p = this.image.partitionByName(topic, partitionId);
    if (!p) throw new Error(`no partition ${topic}-${partitionId}`);
    return p;
  }
}
