import type { BrokerRegistration } from './brokerRegistration';
import { isActiveBroker } from './brokerRegistration';
import { ELIGIBLE_LEADER_REPLICAS_VERSION, ELRV_1 } from './features';
import {
  hasPreferredLeader,
  mergePartitionChange,
  registrationFromRecord,
  type PartitionRegistration,
  type TopicIdPartition,
} from './partitionRegistration';
import type { ConfigResourceType, MetadataRecord, PartitionChangeRecord } from './records';
import { NO_LEADER } from './records';
import { resolveTopicConfig } from './topicConfigResolution';

/** A topic in the image. `partitions[i]` is partition i. */
export interface TopicImage {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: readonly PartitionRegistration[];
}

/**
 * The read side of a metadata image: what the controller rules and the brokers ask. Every list comes back
 * in a total order (topics in creation order, then partition index; brokers by id), never in the order of
 * some hash table, so that two images built from the same log answer identically.
 */
export interface MetadataView {
  topics(): readonly TopicImage[];
  topicByName(name: string): TopicImage | undefined;
  topicById(topicId: string): TopicImage | undefined;
  partition(topicId: string, partitionId: number): PartitionRegistration | undefined;

  brokers(): readonly BrokerRegistration[];
  broker(brokerId: number): BrokerRegistration | undefined;
  /** Registered, unfenced and not in controlled shutdown. */
  isActive(brokerId: number): boolean;
  /** The metadata offset of the broker's current RegisterBrokerRecord (needed to unfence it). */
  registerBrokerRecordOffset(brokerId: number): number | undefined;

  partitionsLedBy(brokerId: number): readonly TopicIdPartition[];
  hasLeaderships(brokerId: number): boolean;
  partitionsWithReplica(brokerId: number): readonly TopicIdPartition[];
  partitionsWithBrokerInIsr(brokerId: number): readonly TopicIdPartition[];
  partitionsWithBrokerInElr(brokerId: number): readonly TopicIdPartition[];
  partitionsWithNoLeader(): readonly TopicIdPartition[];
  /** Partitions not led by their preferred replica (leaderless ones included). */
  imbalancedPartitions(): readonly TopicIdPartition[];

  /** The dynamic configs of one resource (ConfigRecords), or undefined when it has none. */
  resourceConfigs(resourceType: ConfigResourceType, resourceName: string): ReadonlyMap<string, string> | undefined;
  effectiveTopicConfig(topicName: string, name: string): string | undefined;
  effectiveMinIsr(topicName: string): number;
  uncleanLeaderElectionEnabled(topicName: string): boolean;
  featureLevel(name: string): number;
  elrEnabled(): boolean;
  nextProducerId(): number;
}

export interface MetadataImageOptions {
  /** The node's static config (server.properties), consulted after the dynamic configs. */
  readonly staticConfig?: Readonly<Record<string, string>>;
  /** The node's id: its own dynamic BROKER config takes precedence over the cluster default. */
  readonly nodeId?: number;
}

/** Partitions per topic an index key can hold; Kafka topics have far fewer. */
const KEY_SPAN = 1 << 20;

interface MutableTopic {
  readonly name: string;
  readonly topicId: string;
  readonly ordinal: number;
  partitions: PartitionRegistration[];
}

/** broker id -> keys of the partitions it appears in, for one role (leader, replica, ISR, ELR). */
class BrokerIndex {
  private readonly byBroker: Map<number, Set<number>>;

  constructor(from?: BrokerIndex) {
    this.byBroker = new Map();
    if (from) for (const [b, keys] of from.byBroker) this.byBroker.set(b, new Set(keys));
  }

  add(broker: number, key: number): void {
    let keys = this.byBroker.get(broker);
    if (!keys) this.byBroker.set(broker, (keys = new Set()));
    keys.add(key);
  }

  remove(broker: number, key: number): void {
    const keys = this.byBroker.get(broker);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.byBroker.delete(broker);
  }

  /** Moves `key` from the brokers of `before` to those of `after`, touching only the difference. */
  update(key: number, before: readonly number[], after: readonly number[]): void {
    for (const b of before) if (!after.includes(b)) this.remove(b, key);
    for (const b of after) if (!before.includes(b)) this.add(b, key);
  }

  has(broker: number): boolean {
    return this.byBroker.has(broker);
  }

  /** Keys in ascending order (creation order of topics, then partition index). */
  sortedKeys(broker: number): number[] {
    const keys = this.byBroker.get(broker);
    return keys ? Array.from(keys).sort((a, b) => a - b) : [];
  }
}

function sortedArray(keys: ReadonlySet<number>): number[] {
  return Array.from(keys).sort((a, b) => a - b);
}

const NO_CONFIGS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The cluster metadata as of some offset of the metadata log: topics and partitions, broker registrations,
 * configs and features. The active controller, every standby controller and every broker own one and replay
 * the committed records into it in log order. Replay mutates in place and costs O(size of the record), plus
 * small index updates: replaying thousands of records is cheap.
 *
 * It indexes partitions by the brokers that lead them, host replicas of them, or sit in their ISR or ELR,
 * like Kafka's BrokersToIsrs and BrokersToElrs, so that fencing a broker never scans every partition.
 * [metadata/.../controller/ReplicationControlManager.java `replay`; ClusterControlManager.java `replay`;
 * metadata/.../image/MetadataDelta.java]
 */
export class MetadataImage implements MetadataView {
  private readonly staticConfig: Readonly<Record<string, string>>;
  private readonly nodeId: number | undefined;

  private readonly topicsById = new Map<string, MutableTopic>();
  private readonly topicIdsByName = new Map<string, string>();
  /** Live topics in creation order. */
  private readonly topicsInOrder: MutableTopic[] = [];
  /** Every topic ever created, by ordinal (index keys name topics by ordinal; a deleted one leaves a hole). */
  private readonly topicsByOrdinal: (MutableTopic | undefined)[] = [];

  private readonly brokerRegistrations = new Map<number, BrokerRegistration>();
  private readonly registerOffsets = new Map<number, number>();

  private readonly configs = new Map<string, Map<string, string>>();
  /** effectiveMinIsr's answers since the last replayed record. */
  private readonly minIsrByTopic = new Map<string, number>();
  private readonly features = new Map<string, number>();
  private producerIdNext = 0;

  private leaders = new BrokerIndex();
  private replicaHosts = new BrokerIndex();
  private isrMembers = new BrokerIndex();
  private elrMembers = new BrokerIndex();
  private leaderless = new Set<number>();
  private imbalanced = new Set<number>();

  /** The offset of the last record replayed with an offset, or -1. */
  lastOffset = -1;

  constructor(options: MetadataImageOptions = {}) {
    this.staticConfig = options.staticConfig ?? NO_CONFIGS;
    this.nodeId = options.nodeId;
  }

  /** An independent copy (for a controller that must be able to drop uncommitted records it replayed). */
  clone(): MetadataImage {
    const c = new MetadataImage(this.nodeId === undefined ? { staticConfig: this.staticConfig } : { staticConfig: this.staticConfig, nodeId: this.nodeId });
    c.topicsByOrdinal.length = this.topicsByOrdinal.length;
    for (const t of this.topicsInOrder) {
      const copy: MutableTopic = { name: t.name, topicId: t.topicId, ordinal: t.ordinal, partitions: t.partitions.slice() };
      c.topicsInOrder.push(copy);
      c.topicsByOrdinal[t.ordinal] = copy;
      c.topicsById.set(t.topicId, copy);
      c.topicIdsByName.set(t.name, t.topicId);
    }
    for (const [k, v] of this.brokerRegistrations) c.brokerRegistrations.set(k, v);
    for (const [k, v] of this.registerOffsets) c.registerOffsets.set(k, v);
    for (const [k, v] of this.configs) c.configs.set(k, new Map(v));
    for (const [k, v] of this.features) c.features.set(k, v);
    c.producerIdNext = this.producerIdNext;
    c.leaders = new BrokerIndex(this.leaders);
    c.replicaHosts = new BrokerIndex(this.replicaHosts);
    c.isrMembers = new BrokerIndex(this.isrMembers);
    c.elrMembers = new BrokerIndex(this.elrMembers);
    c.leaderless = new Set(this.leaderless);
    c.imbalanced = new Set(this.imbalanced);
    c.lastOffset = this.lastOffset;
    return c;
  }

  // ---- replay ----

  /** Applies one committed record. `offset` is its position in the metadata log (needed for RegisterBrokerRecord). */
  replay(record: MetadataRecord, offset?: number): void {
    this.minIsrByTopic.clear();
    if (offset !== undefined) {
      if (offset <= this.lastOffset) throw new Error(`MetadataImage: replay of offset ${offset} after ${this.lastOffset}`);
      this.lastOffset = offset;
    }
    switch (record.type) {
      case 'TopicRecord': {
        if (this.topicIdsByName.has(record.name)) throw new Error(`TopicRecord: topic ${record.name} already exists`);
        if (this.topicsById.has(record.topicId)) throw new Error(`TopicRecord: topic id ${record.topicId} already exists`);
        const t: MutableTopic = { name: record.name, topicId: record.topicId, ordinal: this.topicsByOrdinal.length, partitions: [] };
        this.topicsInOrder.push(t);
        this.topicsByOrdinal.push(t);
        this.topicsById.set(t.topicId, t);
        this.topicIdsByName.set(t.name, t.topicId);
        return;
      }
      case 'RemoveTopicRecord': {
        // The partitions leave every index, and the topic's configs go with it
        // [ReplicationControlManager.replay(RemoveTopicRecord); ConfigurationControlManager.deleteTopicConfigs].
        const t = this.topicOrThrow(record.topicId, record.type);
        const none: readonly number[] = [];
        t.partitions.forEach((p, i) => {
          const key = t.ordinal * KEY_SPAN + i;
          this.replicaHosts.update(key, p.replicas, none);
          this.isrMembers.update(key, p.isr, none);
          this.elrMembers.update(key, p.elr, none);
          if (p.leader !== NO_LEADER) this.leaders.remove(p.leader, key);
          this.leaderless.delete(key);
          this.imbalanced.delete(key);
        });
        this.topicsById.delete(t.topicId);
        this.topicIdsByName.delete(t.name);
        this.topicsInOrder.splice(this.topicsInOrder.indexOf(t), 1);
        this.topicsByOrdinal[t.ordinal] = undefined;
        this.configs.delete(`TOPIC:${t.name}`);
        return;
      }
      case 'PartitionRecord': {
        const t = this.topicOrThrow(record.topicId, record.type);
        if (!Number.isInteger(record.partitionId) || record.partitionId < 0 || record.partitionId >= KEY_SPAN) {
          throw new Error(`PartitionRecord: bad partition id ${record.partitionId}`);
        }
        this.setPartition(t, record.partitionId, registrationFromRecord(record));
        return;
      }
      case 'PartitionChangeRecord': {
        const t = this.topicOrThrow(record.topicId, record.type);
        const prev = t.partitions[record.partitionId];
        if (!prev) throw new Error(`PartitionChangeRecord: no partition ${t.name}-${record.partitionId}`);
        this.setPartition(t, record.partitionId, mergePartitionChange(prev, record));
        return;
      }
      case 'RegisterBrokerRecord': {
        this.brokerRegistrations.set(record.brokerId, {
          id: record.brokerId,
          epoch: record.brokerEpoch,
          incarnationId: record.incarnationId,
          rack: record.rack,
          fenced: record.fenced,
          inControlledShutdown: record.inControlledShutdown,
        });
        if (offset !== undefined) this.registerOffsets.set(record.brokerId, offset);
        return;
      }
      case 'UnregisterBrokerRecord': {
        this.brokerWithEpochOrThrow(record.brokerId, record.brokerEpoch, record.type);
        this.brokerRegistrations.delete(record.brokerId);
        this.registerOffsets.delete(record.brokerId);
        return;
      }
      case 'BrokerRegistrationChangeRecord': {
        const b = this.brokerWithEpochOrThrow(record.brokerId, record.brokerEpoch, record.type);
        const fenced = record.fenced ?? b.fenced;
        const inControlledShutdown = record.inControlledShutdown ?? b.inControlledShutdown;
        if (fenced !== b.fenced || inControlledShutdown !== b.inControlledShutdown) {
          this.brokerRegistrations.set(b.id, { ...b, fenced, inControlledShutdown });
        }
        return;
      }
      case 'ConfigRecord': {
        const key = `${record.resourceType}:${record.resourceName}`;
        let m = this.configs.get(key);
        if (record.value === null) {
          m?.delete(record.name);
          if (m && m.size === 0) this.configs.delete(key);
        } else {
          if (!m) this.configs.set(key, (m = new Map()));
          m.set(record.name, record.value);
        }
        return;
      }
      case 'FeatureLevelRecord': {
        if (record.featureLevel === 0) this.features.delete(record.name);
        else this.features.set(record.name, record.featureLevel);
        return;
      }
      case 'ClearElrRecord': {
        if (record.topicName === '') {
          for (const t of this.topicsInOrder) this.clearTopicElrs(t);
        } else {
          const id = this.topicIdsByName.get(record.topicName);
          if (id === undefined) throw new Error(`ClearElrRecord: no topic named ${record.topicName}`);
          this.clearTopicElrs(this.topicsById.get(id)!);
        }
        return;
      }
      case 'NoOpRecord':
        return;
      case 'ProducerIdsRecord': {
        if (record.nextProducerId <= this.producerIdNext) {
          throw new Error(`ProducerIdsRecord: next producer id ${record.nextProducerId} is not above ${this.producerIdNext}`);
        }
        this.producerIdNext = record.nextProducerId;
        return;
      }
    }
  }

  /** Replays records in order; with `firstOffset`, record i has offset firstOffset + i. */
  replayAll(records: readonly MetadataRecord[], firstOffset?: number): void {
    for (let i = 0; i < records.length; i++) this.replay(records[i]!, firstOffset === undefined ? undefined : firstOffset + i);
  }

  private topicOrThrow(topicId: string, what: string): MutableTopic {
    const t = this.topicsById.get(topicId);
    if (!t) throw new Error(`${what}: no topic with id ${topicId}`);
    return t;
  }

  private brokerWithEpochOrThrow(brokerId: number, epoch: number, what: string): BrokerRegistration {
    const b = this.brokerRegistrations.get(brokerId);
    if (!b) throw new Error(`${what}: broker ${brokerId} is not registered`);
    if (b.epoch !== epoch) throw new Error(`${what}: broker ${brokerId} has epoch ${b.epoch}, not ${epoch}`);
    return b;
  }

  // Clearing the ELR goes through a partition change, so it bumps the partition epoch.
  // [ReplicationControlManager.java `removeTopicElrs`; image/TopicDelta.java `maybeClearElr`]
  private clearTopicElrs(t: MutableTopic): void {
    for (let i = 0; i < t.partitions.length; i++) {
      const p = t.partitions[i];
      if (!p || (p.elr.length === 0 && p.lastKnownElr.length === 0)) continue;
      const clear: PartitionChangeRecord = {
        type: 'PartitionChangeRecord',
        topicId: t.topicId,
        partitionId: i,
        eligibleLeaderReplicas: [],
        lastKnownElr: [],
      };
      this.setPartition(t, i, mergePartitionChange(p, clear));
    }
  }

  private setPartition(t: MutableTopic, partitionId: number, next: PartitionRegistration): void {
    const key = t.ordinal * KEY_SPAN + partitionId;
    const prev = t.partitions[partitionId];
    t.partitions[partitionId] = next;
    const none: readonly number[] = [];
    this.replicaHosts.update(key, prev?.replicas ?? none, next.replicas);
    this.isrMembers.update(key, prev?.isr ?? none, next.isr);
    this.elrMembers.update(key, prev?.elr ?? none, next.elr);
    const prevLeader = prev?.leader ?? NO_LEADER;
    if (prevLeader !== next.leader) {
      if (prevLeader !== NO_LEADER) this.leaders.remove(prevLeader, key);
      if (next.leader !== NO_LEADER) this.leaders.add(next.leader, key);
    }
    if (next.leader === NO_LEADER) this.leaderless.add(key);
    else this.leaderless.delete(key);
    if (hasPreferredLeader(next)) this.imbalanced.delete(key);
    else this.imbalanced.add(key);
  }

  private toPartitions(keys: readonly number[]): TopicIdPartition[] {
    const out: TopicIdPartition[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const t = this.topicsByOrdinal[Math.floor(k / KEY_SPAN)]!;
      out[i] = { topicId: t.topicId, partitionId: k % KEY_SPAN };
    }
    return out;
  }

  // ---- topics and partitions ----

  topics(): readonly TopicImage[] {
    return this.topicsInOrder;
  }

  topicByName(name: string): TopicImage | undefined {
    const id = this.topicIdsByName.get(name);
    return id === undefined ? undefined : this.topicsById.get(id);
  }

  topicById(topicId: string): TopicImage | undefined {
    return this.topicsById.get(topicId);
  }

  partition(topicId: string, partitionId: number): PartitionRegistration | undefined {
    return this.topicsById.get(topicId)?.partitions[partitionId];
  }

  /** The partition by topic name, for callers that speak names (brokers, clients). */
  partitionByName(topicName: string, partitionId: number): PartitionRegistration | undefined {
    return this.topicByName(topicName)?.partitions[partitionId];
  }

  // ---- brokers ----

  brokers(): readonly BrokerRegistration[] {
    return Array.from(this.brokerRegistrations.values()).sort((a, b) => a.id - b.id);
  }

  broker(brokerId: number): BrokerRegistration | undefined {
    return this.brokerRegistrations.get(brokerId);
  }

  isActive(brokerId: number): boolean {
    return isActiveBroker(this.brokerRegistrations.get(brokerId));
  }

  registerBrokerRecordOffset(brokerId: number): number | undefined {
    return this.registerOffsets.get(brokerId);
  }

  // ---- indexes ----

  partitionsLedBy(brokerId: number): readonly TopicIdPartition[] {
    return this.toPartitions(this.leaders.sortedKeys(brokerId));
  }

  hasLeaderships(brokerId: number): boolean {
    return this.leaders.has(brokerId);
  }

  partitionsWithReplica(brokerId: number): readonly TopicIdPartition[] {
    return this.toPartitions(this.replicaHosts.sortedKeys(brokerId));
  }

  partitionsWithBrokerInIsr(brokerId: number): readonly TopicIdPartition[] {
    return this.toPartitions(this.isrMembers.sortedKeys(brokerId));
  }

  partitionsWithBrokerInElr(brokerId: number): readonly TopicIdPartition[] {
    return this.toPartitions(this.elrMembers.sortedKeys(brokerId));
  }

  partitionsWithNoLeader(): readonly TopicIdPartition[] {
    return this.toPartitions(sortedArray(this.leaderless));
  }

  imbalancedPartitions(): readonly TopicIdPartition[] {
    return this.toPartitions(sortedArray(this.imbalanced));
  }

  // ---- configs and features ----

  resourceConfigs(resourceType: ConfigResourceType, resourceName: string): ReadonlyMap<string, string> | undefined {
    return this.configs.get(`${resourceType}:${resourceName}`);
  }

  effectiveTopicConfig(topicName: string, name: string): string | undefined {
    return resolveTopicConfig(name, {
      topic: this.configs.get(`TOPIC:${topicName}`),
      node: this.nodeId === undefined ? undefined : this.configs.get(`BROKER:${this.nodeId}`),
      cluster: this.configs.get('BROKER:'),
      staticConfig: this.staticConfig,
    });
  }

  /**
   * min(min.insync.replicas, replication factor): the min ISR the ELR rules use.
   * [ReplicationControlManager.java `getTopicEffectiveMinIsr`]
   */
  effectiveMinIsr(topicName: string): number {
    // Asked on every high watermark check of every partition; the answer stands until the next record.
    let v = this.minIsrByTopic.get(topicName);
    if (v === undefined) this.minIsrByTopic.set(topicName, (v = this.computeEffectiveMinIsr(topicName)));
    return v;
  }

  private computeEffectiveMinIsr(topicName: string): number {
    const parsed = Number.parseInt(this.effectiveTopicConfig(topicName, 'min.insync.replicas') ?? '1', 10);
    const minIsr = Number.isNaN(parsed) ? 1 : parsed;
    const replicationFactor = this.topicByName(topicName)?.partitions[0]?.replicas.length;
    return replicationFactor === undefined ? minIsr : Math.min(minIsr, replicationFactor);
  }

  /** [ConfigurationControlManager.java `uncleanLeaderElectionEnabledForTopic`: Boolean.parseBoolean] */
  uncleanLeaderElectionEnabled(topicName: string): boolean {
    return (this.effectiveTopicConfig(topicName, 'unclean.leader.election.enable') ?? '').toLowerCase() === 'true';
  }

  featureLevel(name: string): number {
    return this.features.get(name) ?? 0;
  }

  /** [FeatureControlManager.java `isElrFeatureEnabled`] */
  elrEnabled(): boolean {
    return this.featureLevel(ELIGIBLE_LEADER_REPLICAS_VERSION) >= ELRV_1;
  }

  nextProducerId(): number {
    return this.producerIdNext;
  }
}
