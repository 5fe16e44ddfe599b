/**
 * A group coordinator on a bare scheduler, with an in-memory __consumer_offsets, for unit tests of the
 * coordinator's state machine without brokers or network.
 */
import type { TxnOffsetCommitResponse } from '../../../sim/kafka/protocol';
import { Random } from '../../../sim/core/random';
import { Scheduler } from '../../../sim/core/scheduler';
import { ms } from '../../../sim/core/time';
import { MemorySink, Trace, makeHeader, ofKind, type TraceEvent, type TraceEventOf, type TraceKind } from '../../../sim/core/trace';
import { BROKER_CONFIGS, type BrokerConfig } from '../../../sim/kafka/config/configs';
import { resolveConfig } from '../../../sim/kafka/config/def';
import type { KafkaError } from '../../../sim/kafka/errors';
import { GroupCoordinator, type GroupRequest, type GroupResponse } from '../../../sim/kafka/coordinator/groupCoordinator';
import { partitionForGroup } from '../../../sim/kafka/coordinator/groupCoordinatorPartition';
import type { CoordinatorRecord, CoordinatorStorage, TransactionalWriter } from '../../../sim/kafka/coordinator/storage';
import type {
  ConsumerGroupHeartbeatResponse,
  HeartbeatResponse,
  JoinGroupProtocol,
  JoinGroupResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
  SyncGroupResponse,
  TopicPartition,
} from '../../../sim/kafka/protocol';

/** __consumer_offsets in memory: appends land at once, and commit after `commitDelayMs` (or fail, or hang). */
export class MemoryStorage implements CoordinatorStorage {
  readonly logs = new Map<number, CoordinatorRecord[]>();
  commitDelayMs = 1;
  failWith: KafkaError | null = null;
  hang = false;
  constructor(private readonly scheduler: Scheduler) {}
  append(partition: number, records: readonly CoordinatorRecord[], done: (error: KafkaError) => void, transactional?: TransactionalWriter): void {
    if (transactional) records = records.map((r) => ({ ...r, producerId: transactional.producerId }));
    if (this.failWith) {
      const e = this.failWith;
      this.scheduler.after(ms(this.commitDelayMs), () => done(e));
      return;
    }
    let log = this.logs.get(partition);
    if (!log) this.logs.set(partition, (log = []));
    log.push(...records);
    if (this.hang) return;
    this.scheduler.after(ms(this.commitDelayMs), () => done('NONE'));
  }
  readLog(partition: number): readonly CoordinatorRecord[] {
    return this.logs.get(partition) ?? [];
  }
  /** A transaction marker of `producerId` in the partition's log (as WriteTxnMarkers appends it). */
  marker(partition: number, producerId: number, control: 'COMMIT' | 'ABORT'): void {
    let log = this.logs.get(partition);
    if (!log) this.logs.set(partition, (log = []));
    log.push({ key: control, value: null, producerId, control });
  }
}

/** A request body without its correlation id (distributes over the union). */
export type RequestBody<T> = T extends unknown ? Omit<T, 'correlationId'> : never;

export interface Pending<R> {
  response: R | undefined;
}

export class CoordinatorHarness {
  readonly scheduler = new Scheduler();
  readonly sink = new MemorySink();
  readonly trace = new Trace(this.scheduler, makeHeader('coordinator-test', 1, {}), [this.sink]);
  readonly storage: MemoryStorage;
  readonly config: BrokerConfig;
  coordinator: GroupCoordinator;
  /** Topic name -> partition count, as the broker's metadata would say (consumer groups read it). */
  readonly topics = new Map<string, number>();
  /** Group configs (kafka-configs --entity-type groups). */
  readonly groupConfigs = new Map<string, Map<string, string>>();
  private cid = 1;

  constructor(overrides: Record<string, unknown> = {}, storage?: MemoryStorage, brokerId = 0) {
    this.config = resolveConfig(BROKER_CONFIGS, overrides, 'broker');
    this.storage = storage ?? new MemoryStorage(this.scheduler);
    this.coordinator = this.makeCoordinator(brokerId);
  }

  makeCoordinator(brokerId: number): GroupCoordinator {
    const scheduler = this.scheduler;
    return new GroupCoordinator({
      host: {
        id: `broker-${brokerId}`,
        get now() {
          return scheduler.now;
        },
        setTimer: (d, fn) => scheduler.after(d, () => fn()),
        cancelTimer: (id) => {
          scheduler.cancel(id);
        },
      },
      trace: this.trace,
      random: Random.root(1).fork(`broker-${brokerId}`),
      config: this.config,
      storage: this.storage,
      metadata: {
        partitionCount: (t) => this.topics.get(t) ?? -1,
        topicId: (t) => (this.topics.has(t) ? `id-${t}` : undefined),
        topicName: (id) => (id.startsWith('id-') && this.topics.has(id.slice(3)) ? id.slice(3) : undefined),
        groupConfig: (g) => this.groupConfigs.get(g),
      },
    });
  }

  partitionOf(group: string): number {
    return partitionForGroup(group, this.config['offsets.topic.num.partitions']);
  }

  /** Becomes leader of the group's partition and waits until it is loaded. */
  lead(group: string, epoch = 1, coordinator = this.coordinator): void {
    coordinator.onBecomeLeader(this.partitionOf(group), epoch);
    this.runFor(50);
  }

  runFor(msAmount: number): void {
    this.scheduler.runUntil(this.scheduler.now + ms(msAmount));
  }

  send<R extends GroupResponse = Exclude<GroupResponse, TxnOffsetCommitResponse>>(request: RequestBody<GroupRequest>, from = 'consumer-1', coordinator = this.coordinator): Pending<R> {
    const p: Pending<R> = { response: undefined };
    coordinator.handle(from, { ...request, correlationId: this.cid++ } as GroupRequest, (r) => {
      if (p.response !== undefined) throw new Error(`second reply to one ${request.type}`);
      p.response = r as R;
    });
    return p;
  }

  join(group: string, memberId: string, opts: { from?: string; instance?: string | null; protocols?: JoinGroupProtocol[]; session?: number; rebalance?: number } = {}): Pending<JoinGroupResponse> {
    return this.send<JoinGroupResponse>(
      {
        type: 'JoinGroup',
        groupId: group,
        sessionTimeoutMs: opts.session ?? 10_000,
        rebalanceTimeoutMs: opts.rebalance ?? 30_000,
        memberId,
        groupInstanceId: opts.instance ?? null,
        protocolType: 'consumer',
        protocols: opts.protocols ?? [protocol('range', ['t'])],
        reason: 'test',
      },
      opts.from,
    );
  }

  /** JoinGroup, answering MEMBER_ID_REQUIRED by rejoining with the given id (dynamic members). */
  joinNew(group: string, from: string, opts: Parameters<CoordinatorHarness['join']>[2] = {}): { memberId: string; join: Pending<JoinGroupResponse> } {
    if (opts.instance) {
      const join = this.join(group, '', { ...opts, from });
      return { memberId: '', join };
    }
    const first = this.join(group, '', { ...opts, from });
    const r = first.response!;
    if (r.error !== 'MEMBER_ID_REQUIRED') throw new Error(`expected MEMBER_ID_REQUIRED, got ${r.error}`);
    const join = this.join(group, r.memberId, { ...opts, from });
    return { memberId: r.memberId, join };
  }

  sync(group: string, memberId: string, generationId: number, assignments: { memberId: string; partitions: TopicPartition[] }[] = [], instance: string | null = null): Pending<SyncGroupResponse> {
    return this.send<SyncGroupResponse>({ type: 'SyncGroup', groupId: group, generationId, memberId, groupInstanceId: instance, assignments });
  }

  heartbeat(group: string, memberId: string, generationId: number, instance: string | null = null): Pending<HeartbeatResponse> {
    return this.send<HeartbeatResponse>({ type: 'Heartbeat', groupId: group, generationId, memberId, groupInstanceId: instance });
  }

  commit(group: string, memberId: string, generationId: number, offsets: { topic: string; partition: number; offset: number }[], instance: string | null = null): Pending<OffsetCommitResponse> {
    return this.send<OffsetCommitResponse>({
      type: 'OffsetCommit',
      groupId: group,
      generationId,
      memberId,
      groupInstanceId: instance,
      offsets: offsets.map((o) => ({ ...o, leaderEpoch: 0, metadata: '' })),
    });
  }

  fetchOffsets(group: string, partitions: TopicPartition[] | null, coordinator = this.coordinator): Pending<OffsetFetchResponse> {
    return this.send<OffsetFetchResponse>({ type: 'OffsetFetch', groupId: group, partitions }, 'consumer-1', coordinator);
  }

  /** A ConsumerGroupHeartbeat (KIP-848); `owned` as {topic: partitions}, null = not sent. */
  consumerHeartbeat(
    group: string,
    memberId: string,
    memberEpoch: number,
    opts: { from?: string; instance?: string | null; topics?: string[] | null; owned?: Record<string, number[]> | null; rebalanceTimeoutMs?: number; assignor?: string | null } = {},
  ): Pending<ConsumerGroupHeartbeatResponse> {
    const joining = memberEpoch === 0;
    const owned = opts.owned === undefined ? (joining ? {} : null) : opts.owned;
    return this.send<ConsumerGroupHeartbeatResponse>(
      {
        type: 'ConsumerGroupHeartbeat',
        groupId: group,
        memberId,
        memberEpoch,
        instanceId: opts.instance ?? null,
        rackId: null,
        rebalanceTimeoutMs: opts.rebalanceTimeoutMs ?? (joining ? 300_000 : -1),
        subscribedTopicNames: opts.topics === undefined ? (joining ? ['t'] : null) : opts.topics,
        subscribedTopicRegex: null,
        serverAssignor: opts.assignor ?? null,
        topicPartitions: owned === null ? null : Object.entries(owned).map(([t, ps]) => ({ topicId: `id-${t}`, partitions: ps })),
      },
      opts.from ?? memberId,
    );
  }

  events<K extends TraceKind>(kind: K): TraceEventOf<K>[] {
    return ofKind(this.sink.events, kind);
  }

  stateOf(group: string, coordinator = this.coordinator): string | undefined {
    return coordinator.describeGroup(group)?.state;
  }
}

export function protocol(name: string, topics: string[], owned: TopicPartition[] = [], generation = -1): JoinGroupProtocol {
  return { name, topics, ownedPartitions: owned, generation };
}
