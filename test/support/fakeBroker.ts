/**
 * A small fake Kafka cluster for consumer and coordinator tests: brokers are real processes on real hosts of a
 * real World (so crashes, pauses and restarts are real), but partitions are in-memory append-only logs shared
 * through a FakeCluster object (standing in for the brokers' disks), with a settable high watermark and log start
 * offset. Each broker answers Metadata, Fetch (with the long-poll wait), ListOffsets, OffsetsForLeaderEpoch,
 * FindCoordinator, Produce and InitProducerId, and routes group RPCs to a real GroupCoordinator whose
 * __consumer_offsets lives in the FakeCluster too.
 */
import { ms, type Micros } from '../../sim/core/time';
import type { TimerId } from '../../sim/core/scheduler';
import type { ProcessContext } from '../../sim/world/host';
import { Process } from '../../sim/world/process';
import { World, type WorldOptions } from '../../sim/world/world';
import type { Host } from '../../sim/world/host';
import { BROKER_CONFIGS, CONSUMER_CONFIGS, type BrokerConfig, type ConsumerConfig } from '../../sim/kafka/config/configs';
import { resolveConfig } from '../../sim/kafka/config/def';
import type { KafkaError } from '../../sim/kafka/errors';
import { GroupCoordinator, type GroupRequest } from '../../sim/kafka/coordinator/groupCoordinator';
import { partitionForGroup } from '../../sim/kafka/coordinator/groupCoordinatorPartition';
import type { CoordinatorRecord, CoordinatorStorage } from '../../sim/kafka/coordinator/storage';
import { brokerActorId } from '../../sim/kafka/client/metadataCache';
import { Consumer, type ConsumerOptions } from '../../sim/kafka/client/consumer/consumer';
import type { ProcessingModel } from '../../sim/kafka/client/consumer/processingModel';
import {
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  batchesBytes,
  type AnyResponse,
  type BrokerRequest,
  type FetchPartitionResponse,
  type FetchRequest,
  type ListOffsetsRequest,
  type OffsetsForLeaderEpochRequest,
  type ProduceRequest,
  type TopicPartition,
} from '../../sim/kafka/protocol';
import { assignOffsets, buildBatch, nextOffset, type RecordBatch } from '../../sim/kafka/records';

/** One partition's log: whole batches with offsets, a high watermark and a log start offset. */
/** The fake cluster's topic id of a topic (a real one is a random Uuid). */
export function fakeTopicId(topic: string): string {
  return `${topic}-topic-id`;
}

export class FakePartition {
  readonly batches: RecordBatch[] = [];
  logStartOffset = 0;
  logEndOffset = 0;
  highWatermark = 0;
  /** When set, appends do not move the high watermark (a lagging ISR). */
  holdHighWatermark = false;
  leaderEpoch = 0;
  /** (epoch, first offset) pairs, for OffsetsForLeaderEpoch. */
  readonly epochStarts: { epoch: number; start: number }[] = [{ epoch: 0, start: 0 }];
  constructor(
    readonly topic: string,
    readonly partition: number,
    public leader: number,
  ) {}

  /** The end offset of `epoch`: the start of the next higher epoch, or the log end. */
  endOffsetFor(epoch: number): { epoch: number; endOffset: number } {
    let best: { epoch: number; start: number } | undefined;
    for (const e of this.epochStarts) if (e.epoch <= epoch) best = e;
    if (!best) return { epoch: -1, endOffset: -1 };
    const next = this.epochStarts.find((e) => e.epoch > best!.epoch);
    return { epoch: best.epoch, endOffset: next ? next.start : this.logEndOffset };
  }

  /** Index of the first batch whose end is past `offset` (binary search). */
  batchIndexFor(offset: number): number {
    let lo = 0;
    let hi = this.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (nextOffset(this.batches[mid]!) <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export interface FakeRecordInput {
  readonly key?: string | null;
  readonly value: string;
  /** CreateTime in ms; default now. */
  readonly timestampMs?: number;
}

/** The cluster's shared state: topics, __consumer_offsets, who leads what. */
export class FakeCluster {
  readonly topics = new Map<string, FakePartition[]>();
  /** __consumer_offsets: records per partition, and the leading broker and epoch of each. */
  readonly offsetsLogs = new Map<number, CoordinatorRecord[]>();
  readonly offsetsLeaders = new Map<number, { leader: number; epoch: number }>();
  readonly brokers: number[];
  readonly live = new Map<number, FakeBroker>();
  readonly brokerConfig: BrokerConfig;
  /** Group configs (consumer.session.timeout.ms, ...), as kafka-configs --entity-type groups sets them. */
  readonly groupConfigs = new Map<string, Map<string, string>>();
  /** Delay until a coordinator write counts as committed. */
  coordinatorCommitDelayMs = 1;
  /** When set, coordinator writes fail with this error. */
  coordinatorAppendError: KafkaError | null = null;
  private producerIds = 1000;

  constructor(
    readonly world: World,
    brokers: readonly number[],
    brokerOverrides: Record<string, unknown> = {},
  ) {
    this.brokers = [...brokers].sort((a, b) => a - b);
    this.brokerConfig = resolveConfig(BROKER_CONFIGS, { 'group.initial.rebalance.delay.ms': 0, ...brokerOverrides }, 'broker');
    const n = this.brokerConfig['offsets.topic.num.partitions'];
    for (let p = 0; p < n; p++) this.offsetsLeaders.set(p, { leader: this.brokers[p % this.brokers.length]!, epoch: 0 });
  }

  get now(): Micros {
    return this.world.now;
  }

  createTopic(name: string, partitions: number, leaderOf: (p: number) => number = (p) => this.brokers[p % this.brokers.length]!): void {
    this.topics.set(
      name,
      Array.from({ length: partitions }, (_, p) => new FakePartition(name, p, leaderOf(p))),
    );
  }

  partition(topic: string, p: number): FakePartition {
    const part = this.topics.get(topic)?.[p];
    if (!part) throw new Error(`no partition ${topic}-${p}`);
    return part;
  }

  /** Appends records as one batch; returns its base offset. Wakes parked fetches on the leader. */
  append(topic: string, p: number, records: readonly FakeRecordInput[]): number {
    const part = this.partition(topic, p);
    const nowMs = Math.floor(this.now / 1000);
    const batch = buildBatch(records.map((r) => ({ key: r.key ?? null, value: r.value, timestamp: r.timestampMs ?? nowMs })));
    return this.appendBatch(part, batch);
  }

  appendBatch(part: FakePartition, batch: RecordBatch): number {
    const placed = assignOffsets(batch, part.logEndOffset, part.leaderEpoch);
    part.batches.push(placed);
    part.logEndOffset = nextOffset(placed);
    if (!part.holdHighWatermark) part.highWatermark = part.logEndOffset;
    this.notify(part.leader);
    return placed.baseOffset;
  }

  setHighWatermark(topic: string, p: number, hw: number): void {
    const part = this.partition(topic, p);
    part.highWatermark = Math.min(hw, part.logEndOffset);
    this.notify(part.leader);
  }

  /** Retention: everything before `offset` (rounded down to a batch start) is gone. */
  deleteRecordsBefore(topic: string, p: number, offset: number): void {
    const part = this.partition(topic, p);
    while (part.batches.length > 0 && nextOffset(part.batches[0]!) <= offset) part.batches.shift();
    part.logStartOffset = Math.min(Math.max(part.logStartOffset, offset), part.logEndOffset);
  }

  /** The log loses everything from `offset` on (an unclean leader election); the high watermark follows. */
  truncate(topic: string, p: number, offset: number): void {
    const part = this.partition(topic, p);
    while (part.batches.length > 0 && part.batches[part.batches.length - 1]!.baseOffset >= offset) part.batches.pop();
    part.logEndOffset = part.batches.length > 0 ? nextOffset(part.batches[part.batches.length - 1]!) : part.logStartOffset;
    part.highWatermark = Math.min(part.highWatermark, part.logEndOffset);
  }

  /** Moves leadership of a partition (a new leader epoch starting at the log end). */
  moveLeader(topic: string, p: number, broker: number): void {
    const part = this.partition(topic, p);
    part.leader = broker;
    part.leaderEpoch++;
    part.epochStarts.push({ epoch: part.leaderEpoch, start: part.logEndOffset });
  }

  /** The coordinator of __consumer_offsets-`p` moves to `broker`. */
  moveCoordinator(p: number, broker: number): void {
    const cur = this.offsetsLeaders.get(p)!;
    const old = this.live.get(cur.leader);
    if (old && old.alive) old.inGate(() => old.coordinator.onResign(p));
    const next = { leader: broker, epoch: cur.epoch + 1 };
    this.offsetsLeaders.set(p, next);
    const b = this.live.get(broker);
    if (b && b.alive) b.inGate(() => b.coordinator.onBecomeLeader(p, next.epoch));
  }

  coordinatorPartitionOf(groupId: string): number {
    return partitionForGroup(groupId, this.brokerConfig['offsets.topic.num.partitions']);
  }

  nextProducerId(): number {
    return this.producerIds++;
  }

  private notify(broker: number): void {
    const b = this.live.get(broker);
    if (b && b.alive) b.inGate(() => b.onDataChanged());
  }

  // ---- inspection for tests ----

  /** The group's committed offset of a partition as its coordinator holds it, or null. */
  committed(groupId: string, topic: string, p: number): number | null {
    const leader = this.offsetsLeaders.get(this.coordinatorPartitionOf(groupId))!.leader;
    const d = this.live.get(leader)?.coordinator.describeGroup(groupId);
    const o = d?.offsets.find((x) => x.topic === topic && x.partition === p);
    return o ? o.offset : null;
  }
}

interface ParkedFetch {
  readonly from: string;
  readonly req: FetchRequest;
  readonly timer: TimerId;
}

/** A fake broker process. */
export class FakeBroker extends Process {
  readonly coordinator: GroupCoordinator;
  private parked: ParkedFetch[] = [];

  constructor(
    ctx: ProcessContext,
    readonly brokerId: number,
    readonly cluster: FakeCluster,
  ) {
    super(brokerActorId(brokerId), ctx);
    const storage: CoordinatorStorage = {
      append: (partition, records, done) => {
        const err = cluster.coordinatorAppendError;
        if (err) {
          this.setTimer(ms(cluster.coordinatorCommitDelayMs), () => done(err));
          return;
        }
        let log = cluster.offsetsLogs.get(partition);
        if (!log) cluster.offsetsLogs.set(partition, (log = []));
        log.push(...records);
        this.setTimer(ms(cluster.coordinatorCommitDelayMs), () => done('NONE'));
      },
      readLog: (partition) => cluster.offsetsLogs.get(partition) ?? [],
    };
    this.coordinator = new GroupCoordinator({
      host: this,
      trace: this.trace,
      random: this.random.fork('group-coordinator'),
      config: cluster.brokerConfig,
      storage,
      metadata: {
        partitionCount: (t) => cluster.topics.get(t)?.length ?? -1,
        topicId: (t) => (cluster.topics.has(t) ? fakeTopicId(t) : undefined),
        topicName: (id) => [...cluster.topics.keys()].find((t) => fakeTopicId(t) === id),
        groupConfig: (g) => cluster.groupConfigs.get(g),
      },
    });
  }

  override onStart(): void {
    this.cluster.live.set(this.brokerId, this);
    for (const [p, l] of this.cluster.offsetsLeaders) if (l.leader === this.brokerId) this.coordinator.onBecomeLeader(p, l.epoch);
  }

  /** Runs work for this broker the way its host admits it (queued while paused). */
  inGate(fn: () => void): void {
    this.ctx.gate.admit(this, fn);
  }

  onMessage(from: string, msg: unknown): void {
    const req = msg as BrokerRequest;
    switch (req.type) {
      case 'ApiVersions':
        return this.reply(from, { type: 'ApiVersionsResponse', correlationId: req.correlationId, error: 'NONE' });
      case 'Metadata':
        return this.reply(from, this.metadata(req.correlationId));
      case 'Fetch':
        return this.onFetch(from, req);
      case 'ListOffsets':
        return this.reply(from, this.listOffsets(req));
      case 'OffsetsForLeaderEpoch':
        return this.reply(from, this.offsetsForLeaderEpoch(req));
      case 'FindCoordinator': {
        const p = this.cluster.coordinatorPartitionOf(req.key);
        const l = this.cluster.offsetsLeaders.get(p);
        return this.reply(from, { type: 'FindCoordinatorResponse', correlationId: req.correlationId, error: l ? 'NONE' : 'COORDINATOR_NOT_AVAILABLE', nodeId: l ? l.leader : -1 });
      }
      case 'Produce':
        return this.reply(from, this.produce(req));
      case 'InitProducerId':
        return this.reply(from, { type: 'InitProducerIdResponse', correlationId: req.correlationId, error: 'NONE', producerId: this.cluster.nextProducerId(), producerEpoch: 0 });
      case 'JoinGroup':
      case 'SyncGroup':
      case 'Heartbeat':
      case 'LeaveGroup':
      case 'OffsetCommit':
      case 'OffsetFetch':
      case 'ConsumerGroupHeartbeat':
        return this.coordinator.handle(from, req as GroupRequest, (r) => this.reply(from, r));
    }
  }

  private reply(to: string, msg: AnyResponse): void {
    const bytes = msg.type === 'FetchResponse' ? msg.partitions.reduce((n, p) => n + batchesBytes(p.batches), 0) : 0;
    this.send(to, msg, 64 + bytes);
  }

  private metadata(correlationId: number) {
    const topics = [...this.cluster.topics].map(([name, parts]) => ({
      name,
      topicId: fakeTopicId(name),
      error: 'NONE' as const,
      partitions: parts.map((p) => ({
        partition: p.partition,
        error: 'NONE' as const,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: [p.leader],
        isr: [p.leader],
        elr: [],
      })),
    }));
    return { type: 'MetadataResponse' as const, correlationId, brokers: this.cluster.brokers.map((id) => ({ id, rack: null })), controllerId: -1, topics };
  }

  // ---- Fetch with the long poll ----
  // No fetch sessions (as a broker with max.incremental.fetch.session.cache.slots=0): session id 0 in every
  // answer, so every fetch the consumer sends is a full one, answered for all its partitions.

  private onFetch(from: string, req: FetchRequest): void {
    const r = this.readFetch(req);
    if (r.bytes >= req.minBytes || r.error || req.maxWaitMs <= 0) return this.reply(from, { type: 'FetchResponse', correlationId: req.correlationId, error: 'NONE', sessionId: 0, partitions: r.partitions });
    const timer = this.setTimer(ms(req.maxWaitMs), () => this.completeParked(from, req, true));
    this.parked.push({ from, req, timer });
  }

  private completeParked(from: string, req: FetchRequest, timedOut: boolean): void {
    const i = this.parked.findIndex((p) => p.req === req && p.from === from);
    if (i < 0) return;
    const r = this.readFetch(req);
    if (!timedOut && r.bytes < req.minBytes && !r.error) return;
    const [p] = this.parked.splice(i, 1);
    this.cancelTimer(p!.timer);
    this.reply(from, { type: 'FetchResponse', correlationId: req.correlationId, error: 'NONE', sessionId: 0, partitions: r.partitions });
  }

  /** New data or a new high watermark: parked fetches may be complete. */
  onDataChanged(): void {
    for (const p of [...this.parked]) this.completeParked(p.from, p.req, false);
  }

  private readFetch(req: FetchRequest): { partitions: FetchPartitionResponse[]; bytes: number; error: boolean } {
    const out: FetchPartitionResponse[] = [];
    let bytes = 0;
    let error = false;
    for (const fp of req.partitions) {
      const base = { topic: fp.topic, partition: fp.partition, divergingEpoch: null, currentLeader: null };
      const part = this.cluster.topics.get(fp.topic)?.[fp.partition];
      const fail = (e: KafkaError, hw = -1): FetchPartitionResponse => {
        error = true;
        return { ...base, error: e, highWatermark: hw, logStartOffset: part?.logStartOffset ?? -1, logEndOffset: part?.logEndOffset ?? -1, batches: [] };
      };
      if (!part) {
        out.push(fail('UNKNOWN_TOPIC_OR_PARTITION'));
        continue;
      }
      if (part.leader !== this.brokerId) {
        out.push({ ...fail('NOT_LEADER_OR_FOLLOWER'), currentLeader: { leaderId: part.leader, leaderEpoch: part.leaderEpoch } });
        continue;
      }
      if (fp.currentLeaderEpoch >= 0 && fp.currentLeaderEpoch < part.leaderEpoch) {
        out.push(fail('FENCED_LEADER_EPOCH'));
        continue;
      }
      if (fp.currentLeaderEpoch > part.leaderEpoch) {
        out.push(fail('UNKNOWN_LEADER_EPOCH'));
        continue;
      }
      if (fp.fetchOffset < part.logStartOffset || fp.fetchOffset > part.logEndOffset) {
        out.push(fail('OFFSET_OUT_OF_RANGE', part.highWatermark));
        continue;
      }
      // Whole batches from the one holding the fetch offset, below the high watermark, within the byte limits;
      // the first batch of the response always goes (KIP-74).
      const batches: RecordBatch[] = [];
      let partBytes = 0;
      for (let i = part.batchIndexFor(fp.fetchOffset); i < part.batches.length; i++) {
        const b = part.batches[i]!;
        if (nextOffset(b) > part.highWatermark) break;
        const first = bytes === 0 && batches.length === 0;
        if (!first && (partBytes + b.sizeInBytes > fp.maxBytes || bytes + b.sizeInBytes > req.maxBytes)) break;
        batches.push(b);
        partBytes += b.sizeInBytes;
        bytes += b.sizeInBytes;
      }
      out.push({ ...base, error: 'NONE', highWatermark: part.highWatermark, logStartOffset: part.logStartOffset, logEndOffset: part.logEndOffset, batches });
    }
    return { partitions: out, bytes, error };
  }

  private listOffsets(req: ListOffsetsRequest) {
    const partitions = req.partitions.map((lp) => {
      const part = this.cluster.topics.get(lp.topic)?.[lp.partition];
      const base = { topic: lp.topic, partition: lp.partition };
      if (!part) return { ...base, error: 'UNKNOWN_TOPIC_OR_PARTITION' as KafkaError, offset: -1, leaderEpoch: -1 };
      if (part.leader !== this.brokerId) return { ...base, error: 'NOT_LEADER_OR_FOLLOWER' as KafkaError, offset: -1, leaderEpoch: -1 };
      if (lp.timestamp === EARLIEST_TIMESTAMP) return { ...base, error: 'NONE' as KafkaError, offset: part.logStartOffset, leaderEpoch: part.leaderEpoch };
      if (lp.timestamp === LATEST_TIMESTAMP) return { ...base, error: 'NONE' as KafkaError, offset: part.highWatermark, leaderEpoch: part.leaderEpoch };
      for (const b of part.batches) {
        if (nextOffset(b) > part.highWatermark) break;
        for (const r of b.recordList()) {
          const offset = b.baseOffset + r.offsetDelta;
          if (offset >= part.logStartOffset && b.baseTimestamp + r.timestampDelta >= lp.timestamp) {
            return { ...base, error: 'NONE' as KafkaError, offset, leaderEpoch: b.partitionLeaderEpoch };
          }
        }
      }
      return { ...base, error: 'NONE' as KafkaError, offset: -1, leaderEpoch: -1 };
    });
    return { type: 'ListOffsetsResponse' as const, correlationId: req.correlationId, partitions };
  }

  private offsetsForLeaderEpoch(req: OffsetsForLeaderEpochRequest) {
    const partitions = req.partitions.map((p) => {
      const part = this.cluster.topics.get(p.topic)?.[p.partition];
      const base = { topic: p.topic, partition: p.partition };
      if (!part || part.leader !== this.brokerId) return { ...base, error: 'NOT_LEADER_OR_FOLLOWER' as KafkaError, leaderEpoch: -1, endOffset: -1 };
      const e = part.endOffsetFor(p.leaderEpoch);
      return { ...base, error: 'NONE' as KafkaError, leaderEpoch: e.epoch, endOffset: e.endOffset };
    });
    return { type: 'OffsetsForLeaderEpochResponse' as const, correlationId: req.correlationId, partitions };
  }

  private produce(req: ProduceRequest) {
    const partitions = req.partitions.map((pp) => {
      const part = this.cluster.topics.get(pp.topic)?.[pp.partition];
      const base = { topic: pp.topic, partition: pp.partition, logAppendTimeMs: -1 };
      if (!part) return { ...base, error: 'UNKNOWN_TOPIC_OR_PARTITION' as KafkaError, baseOffset: -1, logStartOffset: -1 };
      if (part.leader !== this.brokerId) return { ...base, error: 'NOT_LEADER_OR_FOLLOWER' as KafkaError, baseOffset: -1, logStartOffset: -1 };
      const offset = this.cluster.appendBatch(part, pp.batch);
      return { ...base, error: 'NONE' as KafkaError, baseOffset: offset, logStartOffset: part.logStartOffset };
    });
    return { type: 'ProduceResponse' as const, correlationId: req.correlationId, partitions };
  }
}

// ---- a world with a fake cluster and consumers ----

export interface FakeWorldOptions {
  readonly seed: number | string;
  readonly brokers?: number;
  readonly topics?: readonly { readonly name: string; readonly partitions: number }[];
  readonly brokerConfig?: Record<string, unknown>;
  readonly world?: Partial<WorldOptions>;
}

export interface ConsumerSpec {
  readonly config?: Record<string, unknown>;
  readonly topics?: readonly string[];
  readonly assign?: readonly TopicPartition[];
  readonly processing?: ProcessingModel;
  /** Host id; default "h-<id>". */
  readonly host?: string;
}

export class FakeWorld {
  readonly world: World;
  readonly cluster: FakeCluster;
  readonly brokerIds: number[];

  constructor(opts: FakeWorldOptions) {
    this.world = new World({ seed: opts.seed, ...opts.world });
    const n = opts.brokers ?? 1;
    this.brokerIds = Array.from({ length: n }, (_, i) => i);
    this.cluster = new FakeCluster(this.world, this.brokerIds, opts.brokerConfig);
    for (const t of opts.topics ?? []) this.cluster.createTopic(t.name, t.partitions);
    for (const id of this.brokerIds) {
      const host = this.world.addHost({ id: `b${id}`, tags: ['broker'] });
      host.addProcess({ id: brokerActorId(id), create: (ctx) => new FakeBroker(ctx, id, this.cluster) });
    }
  }

  consumerConfig(overrides: Record<string, unknown> = {}): ConsumerConfig {
    return resolveConfig(CONSUMER_CONFIGS, overrides, 'consumer');
  }

  /** Adds a consumer process on its own host. */
  addConsumer(id: string, spec: ConsumerSpec): Host {
    const host = this.world.addHost({ id: spec.host ?? `h-${id}`, tags: ['consumer'] });
    const options: ConsumerOptions = {
      id,
      config: this.consumerConfig(spec.config),
      bootstrap: this.brokerIds,
      ...(spec.topics ? { topics: spec.topics } : {}),
      ...(spec.assign ? { assign: spec.assign } : {}),
      ...(spec.processing ? { processing: spec.processing } : {}),
    };
    host.addProcess({ id, create: (ctx) => new Consumer(ctx, options) });
    return host;
  }

  broker(id: number): FakeBroker | undefined {
    const b = this.cluster.live.get(id);
    return b && b.alive ? b : undefined;
  }

  consumer(id: string): Consumer | undefined {
    const p = this.world.host(`h-${id}`).process(id);
    return p instanceof Consumer ? p : undefined;
  }

  start(): this {
    this.world.start();
    return this;
  }

  runUntilMs(t: number): void {
    this.world.runUntil(ms(t));
  }

  /** Produces `count` records into a partition, one batch of `perBatch` at a time, every `everyMs` from `startMs`. */
  produce(topic: string, p: number, opts: { count: number; perBatch?: number; startMs?: number; everyMs?: number; value?: (i: number) => string; key?: (i: number) => string | null }): void {
    const perBatch = opts.perBatch ?? 1;
    const every = opts.everyMs ?? 0;
    const value = opts.value ?? ((i: number) => `${topic}-${p}:${i}`);
    const key = opts.key ?? (() => null);
    let i = 0;
    let step = 0;
    const batches = Math.ceil(opts.count / perBatch);
    for (let b = 0; b < batches; b++) {
      const at = ms((opts.startMs ?? 0) + every * step++);
      const from = i;
      const n = Math.min(perBatch, opts.count - i);
      i += n;
      this.world.scheduler.at(Math.max(at, this.world.now), () => {
        const recs: FakeRecordInput[] = [];
        for (let k = from; k < from + n; k++) recs.push({ key: key(k), value: value(k) });
        this.cluster.append(topic, p, recs);
      });
    }
  }

  events(kind: string): Record<string, unknown>[] {
    return (this.world.memory?.events ?? []).filter((e) => e.kind === kind) as Record<string, unknown>[];
  }
}
