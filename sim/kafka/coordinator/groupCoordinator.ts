import type { Random } from '../../core/random';
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import {
  tpKey,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
  type TxnOffsetCommitRequest,
  type TxnOffsetCommitResponse,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type SyncGroupRequest,
  type SyncGroupResponse,
  type TopicPartition,
} from '../protocol';
import { ClassicGroup } from './classicGroup';
import { ClassicGroupMember, joinError, UNKNOWN_MEMBER_ID, type JoinGroupResult, type SyncGroupResult } from './classicGroupMember';
import type { ClassicGroupState } from './classicGroupState';
import {
  appendErrorToResponseError,
  heartbeatError,
  sessionTimeoutError,
  syncGroupError,
  validateMember,
  validateOffsetCommit,
} from './classicGroupValidation';
import {
  groupMetadataRecord,
  offsetCommitRecord,
  offsetTombstone,
  replayRecords,
  type CommittedOffset,
  type GroupMetadataValue,
} from './groupCoordinatorRecords';
import { partitionForGroup } from './groupCoordinatorPartition';
import type { CoordinatorRecord, CoordinatorStorage, TransactionalWriter } from './storage';
import { GroupCoordinatorShard as Shard, type PendingWrite } from './groupCoordinatorShard';
import { ConsumerGroupManager, type ConsumerGroupConfig, type ConsumerGroupDescription, type CoordinatorMetadata } from './consumerGroupManager';
import type { ClassicGroupView } from './consumer/groupMigration';
import { defineKinds, list, nullable, num, obj, oneOf, record, str, type KindsOf } from '../../core/traceSchema';

/** The group coordinator's decisions. */
export const GROUP_KINDS = defineKinds({
  /** A classic group changed state. `generation` is the group's generation after the change. */
  'group.state': { group: str, from: str, to: str, generation: num },
  /**
   * A join phase completed: a new generation with these members (member ids), the chosen protocol and leader.
   * `rejoined`: the members that took part (sent a JoinGroup); static members that did not stay in the group but
   * are behind: whatever they own from an older generation is no longer theirs to keep.
   */
  'group.rebalance': { group: str, generation: num, protocol: str, leader: str, members: list(str), rejoined: list(str), reason: str },
  /** The leader's assignment was stored and sent: member id -> "topic-partition" list. */
  'group.assignment': { group: str, generation: num, assignment: record(list(str)) },
  /** A member entered the group (`replaced`: the old member id a static member took over, fenced from now on). */
  'group.member.join': { group: str, memberId: str, groupInstanceId: nullable(str), clientId: str, replaced: nullable(str) },
  /** A member left with LeaveGroup (a consumer closing, or exceeding max.poll.interval.ms). */
  'group.member.leave': { group: str, memberId: str, groupInstanceId: nullable(str), reason: str },
  /** The coordinator removed a member: session timeout, no rejoin within the rebalance timeout, no SyncGroup in time. */
  'group.member.expire': { group: str, memberId: str, groupInstanceId: nullable(str), reason: str },
  /** An OffsetCommit was answered: `error` NONE when the offsets are committed in __consumer_offsets. */
  'group.offset.commit': {
    group: str,
    memberId: str,
    generation: num,
    offsets: list(obj({ topic: str, partition: num, offset: num })),
    error: str,
  },
  /**
   * Transactional offsets (TxnOffsetCommit): `pending` when written, `commit` / `abort` when the producer's
   * transaction marker reached the partition (only then do committed offsets move).
   */
  'group.offset.txn': { group: str, producerId: num, result: oneOf('pending', 'commit', 'abort', 'refused'), offsets: list(obj({ topic: str, partition: num, offset: num })), error: str },
  /** Offsets of an empty group expired (offsets.retention.minutes). */
  'group.offset.expire': { group: str, offsets: list(obj({ topic: str, partition: num })) },
  /** The coordinator finished loading a partition of __consumer_offsets and now serves its groups. */
  'group.load': { partition: num, leaderEpoch: num, groups: list(str), offsets: num, records: num },
  /** The coordinator stopped serving a partition (it lost leadership). */
  'group.unload': { partition: num, groups: list(str) },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof GROUP_KINDS> {}
}

/** The broker configs the group coordinator reads. [group-coordinator/.../GroupCoordinatorConfig.java] */
export type GroupCoordinatorConfig = Pick<
  BrokerConfig,
  | 'offsets.topic.num.partitions'
  | 'offsets.commit.timeout.ms'
  | 'offsets.retention.minutes'
  | 'offsets.retention.check.interval.ms'
  | 'group.initial.rebalance.delay.ms'
  | 'group.min.session.timeout.ms'
  | 'group.max.session.timeout.ms'
  | 'group.max.size'
> &
  ConsumerGroupConfig;

/** What the embedding broker lends the coordinator: its clock and its timers (which die with the broker). */
export interface CoordinatorHost {
  readonly id: string;
  readonly now: Micros;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
}

export interface GroupCoordinatorOptions {
  readonly host: CoordinatorHost;
  readonly trace: Trace;
  /** For member ids (Kafka uses random UUIDs). */
  readonly random: Random;
  readonly config: GroupCoordinatorConfig;
  readonly storage: CoordinatorStorage;
  /** Loading a partition takes baseMs plus perRecordUs per record (a simulator estimate). Defaults 5 ms, 1 us. */
  readonly loadTime?: { readonly baseMs: number; readonly perRecordUs: number };
  /** Topic metadata and group configs as the broker applied them (consumer groups need them); default: none known. */
  readonly metadata?: CoordinatorMetadata;
  /**
   * The broker's transaction side: adds the group's `__consumer_offsets` partition to a version 2 client's
   * transaction before its TxnOffsetCommit is written (absent when the brokers run no transaction coordinator).
   */
  readonly transactions?: OffsetsPartitionAdder;
}

/** Adds `__consumer_offsets-partition` to the producer's transaction (AddPartitionsToTxn from this broker, KIP-890 part 2). */
export interface OffsetsPartitionAdder {
  addOffsetsPartition(transactionalId: string, producerId: number, producerEpoch: number, tp: { topic: string; partition: number }, done: (error: KafkaError) => void): void;
}

/** The topic this coordinator's partitions are (broker/groupCoordinatorService.ts names it for the broker). */
const CONSUMER_OFFSETS = '__consumer_offsets';

const NO_METADATA: CoordinatorMetadata = { partitionCount: () => -1, topicId: () => undefined, topicName: () => undefined, groupConfig: () => undefined };

export type GroupRequest =
  | JoinGroupRequest
  | SyncGroupRequest
  | HeartbeatRequest
  | LeaveGroupRequest
  | OffsetCommitRequest
  | TxnOffsetCommitRequest
  | OffsetFetchRequest
  | ConsumerGroupHeartbeatRequest;
export type GroupResponse =
  | JoinGroupResponse
  | SyncGroupResponse
  | HeartbeatResponse
  | LeaveGroupResponse
  | OffsetCommitResponse
  | TxnOffsetCommitResponse
  | OffsetFetchResponse
  | ConsumerGroupHeartbeatResponse;

/** A JoinGroup of a new member is parked at most this long. [GroupCoordinatorConfig.java `CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS`] */
export const CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;
/** Timers a group holds outside its members. */
interface GroupTimers {
  join: TimerId;
  sync: TimerId;
  readonly pending: Map<string, TimerId>;
}

/** Inspection (tests, UI, describe): never read by actor logic. */
export interface GroupDescription {
  readonly groupId: string;
  readonly state: ClassicGroupState;
  readonly generationId: number;
  readonly protocol: string | null;
  readonly leader: string | null;
  readonly members: readonly { memberId: string; groupInstanceId: string | null; clientId: string; assignment: readonly TopicPartition[] }[];
  readonly offsets: readonly CommittedOffset[];
}

/**
 * The classic group coordinator a broker embeds [group-coordinator/.../GroupMetadataManager.java (classic
 * groups), OffsetMetadataManager.java, GroupCoordinatorService.java]. It serves the groups whose
 * `__consumer_offsets` partition this broker leads: JoinGroup / SyncGroup / Heartbeat / LeaveGroup drive the
 * state machine of reference 9.1; OffsetCommit and group metadata are written through `CoordinatorStorage`
 * and answered only once committed; on becoming leader it reloads everything from the partition.
 */
export class GroupCoordinator {
  private readonly host: CoordinatorHost;
  private readonly trace: Trace;
  private readonly random: Random;
  private readonly config: GroupCoordinatorConfig;
  private readonly storage: CoordinatorStorage;
  private readonly transactions: OffsetsPartitionAdder | undefined;
  private readonly shards = new Map<number, Shard>();
  private readonly timers = new WeakMap<ClassicGroup, GroupTimers>();
  private readonly retentionCheckMs: number;
  private readonly loadTime: { readonly baseMs: number; readonly perRecordUs: number };
  /** The consumer groups (KIP-848) of every shard. */
  private readonly consumer: ConsumerGroupManager;

  constructor(opts: GroupCoordinatorOptions) {
    this.host = opts.host;
    this.trace = opts.trace;
    this.random = opts.random;
    this.config = opts.config;
    this.storage = opts.storage;
    this.transactions = opts.transactions;
    this.retentionCheckMs = opts.config['offsets.retention.check.interval.ms'];
    this.loadTime = opts.loadTime ?? { baseMs: 5, perRecordUs: 1 };
    const host = this.host;
    this.consumer = new ConsumerGroupManager({
      get id() {
        return host.id;
      },
      get now() {
        return host.now;
      },
      trace: this.trace,
      config: this.config,
      setTimer: (d, fn) => host.setTimer(d, fn),
      cancelTimer: (id) => host.cancelTimer(id),
      write: (shard, records, onDone) => this.write(shard, records, onDone),
      isCurrent: (shard) => this.shards.get(shard.partition) === shard && shard.state === 'active',
      metadata: opts.metadata ?? NO_METADATA,
      classic: {
        view: (shard, groupId) => this.classicView(shard, groupId),
        release: (shard, groupId) => this.releaseClassic(shard, groupId),
        adopt: (shard, view, reason) => this.adoptClassic(shard, view, reason),
      },
    });
  }

  private get now(): Micros {
    return this.host.now;
  }

  private get node(): string {
    return this.host.id;
  }

  /** The __consumer_offsets partition of a group. */
  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.config['offsets.topic.num.partitions']);
  }

  /** Whether this coordinator serves (or is loading) a partition. */
  isLeaderOf(partition: number): boolean {
    return this.shards.has(partition);
  }

  // ---- leadership of __consumer_offsets partitions ----

  /** This broker became leader of `__consumer_offsets-partition`: load its groups and offsets. [GroupCoordinatorService.java `onElection`] */
  onBecomeLeader(partition: number, leaderEpoch: number): void {
    const existing = this.shards.get(partition);
    if (existing && existing.leaderEpoch >= leaderEpoch) return;
    if (existing) this.unload(existing);
    const shard = new Shard(partition, leaderEpoch);
    this.shards.set(partition, shard);
    const records = this.storage.readLog(partition).length;
    const delay = ms(this.loadTime.baseMs) + Math.round(records * this.loadTime.perRecordUs);
    shard.loadTimer = this.host.setTimer(delay, () => this.completeLoad(shard));
  }

  /** This broker is no longer leader of the partition: drop its groups (parked requests get NOT_COORDINATOR). [GroupCoordinatorService.java `onResignation`] */
  onResign(partition: number): void {
    const shard = this.shards.get(partition);
    if (shard) this.unload(shard);
  }

  private completeLoad(shard: Shard): void {
    if (this.shards.get(shard.partition) !== shard) return;
    const log = this.storage.readLog(shard.partition);
    const replayed = replayRecords(log);
    for (const [groupId, value] of replayed.groups) shard.groups.set(groupId, this.groupFromRecord(groupId, value));
    for (const [groupId, g] of replayed.consumerGroups) shard.consumerGroups.set(groupId, g);
    shard.pendingTxnOffsets = replayed.pending;
    let offsetCount = 0;
    for (const [groupId, offsets] of replayed.offsets) {
      shard.offsets.set(groupId, offsets);
      offsetCount += offsets.size;
      // Offsets without group metadata belong to a "simple" group (manual assignment). [GroupMetadataManager.java `getOrMaybeCreatePersistedClassicGroup`]
      if (!shard.groups.has(groupId) && !shard.consumerGroups.has(groupId)) shard.groups.set(groupId, new ClassicGroup(groupId, this.now));
    }
    shard.state = 'active';
    // Every loaded member gets a fresh session. [GroupMetadataManager.java `onLoaded`]
    for (const group of shard.groups.values()) {
      for (const m of group.members.values()) this.rescheduleHeartbeat(shard, group, m, m.sessionTimeoutMs);
    }
    this.consumer.onLoaded(shard);
    this.trace.emit('group.load', this.node, {
      partition: shard.partition,
      leaderEpoch: shard.leaderEpoch,
      groups: [...shard.groups.keys(), ...shard.consumerGroups.keys()],
      offsets: offsetCount,
      records: log.length,
    });
    this.scheduleRetentionCheck(shard);
  }

  private groupFromRecord(groupId: string, v: GroupMetadataValue): ClassicGroup {
    const group = new ClassicGroup(groupId, ms(v.currentStateTimestampMs), {
      state: v.members.length === 0 ? 'Empty' : 'Stable',
      generationId: v.generation,
      protocolType: v.protocolType,
      protocolName: v.protocol,
      leaderId: v.leader,
    });
    for (const mv of v.members) {
      const m = new ClassicGroupMember(mv.memberId, mv.groupInstanceId, mv.clientId, mv.rebalanceTimeoutMs, mv.sessionTimeoutMs, [mv.subscription], mv.assignment);
      group.add(m);
    }
    group.leaderId = v.leader;
    return group;
  }

  private unload(shard: Shard): void {
    this.shards.delete(shard.partition);
    this.host.cancelTimer(shard.loadTimer);
    this.host.cancelTimer(shard.retentionTimer);
    const ids = [...shard.groups.keys(), ...shard.consumerGroups.keys()];
    this.consumer.onUnloaded(shard);
    shard.consumerGroups.clear();
    for (const group of shard.groups.values()) {
      group.completeAllJoins('NOT_COORDINATOR');
      group.completeAllSyncs('NOT_COORDINATOR');
      this.cancelGroupTimers(group);
      if (!group.is('Dead')) this.transition(group, 'Dead');
    }
    shard.groups.clear();
    shard.offsets.clear();
    shard.pendingTxnOffsets.clear();
    if (shard.state === 'active') this.trace.emit('group.unload', this.node, { partition: shard.partition, groups: ids });
  }

  // ---- requests ----

  /**
   * Serves one group request routed here by FindCoordinator. `reply` is called once, maybe much later (a
   * JoinGroup is parked until the rebalance completes; a commit until it is replicated).
   */
  handle(from: string, request: GroupRequest, reply: (response: GroupResponse) => void): void {
    const shard = this.shards.get(this.partitionFor(request.groupId));
    const unavailable: KafkaError | null = !shard ? 'NOT_COORDINATOR' : shard.state === 'loading' ? 'COORDINATOR_LOAD_IN_PROGRESS' : null;
    const cid = request.correlationId;
    switch (request.type) {
      case 'JoinGroup': {
        const send = (r: JoinGroupResult): void => reply({ type: 'JoinGroupResponse', correlationId: cid, ...r });
        if (unavailable) return send(joinError(unavailable, request.memberId));
        const e = sessionTimeoutError(request.sessionTimeoutMs, this.config['group.min.session.timeout.ms'], this.config['group.max.session.timeout.ms']);
        if (e !== 'NONE') return send(joinError(e, request.memberId));
        // A consumer group with members takes classic members too (an online migration). [GroupMetadataManager.java `classicGroupJoin`]
        if (this.consumer.servesClassic(shard!, request.groupId)) return this.consumer.classicJoin(shard!, from, request, this.newMemberId(from, request), send);
        return this.joinGroup(shard!, from, request, send);
      }
      case 'SyncGroup': {
        const send = (r: SyncGroupResult): void => reply({ type: 'SyncGroupResponse', correlationId: cid, ...r });
        if (unavailable) return send({ error: unavailable, partitions: [] });
        if (this.consumer.servesClassic(shard!, request.groupId)) return this.consumer.classicSync(shard!, request, send);
        return this.syncGroup(shard!, request, send);
      }
      case 'Heartbeat': {
        const error = unavailable ?? (shard!.consumerGroups.has(request.groupId) ? this.consumer.classicHeartbeat(shard!, request) : this.heartbeat(shard!, request));
        return reply({ type: 'HeartbeatResponse', correlationId: cid, error });
      }
      case 'LeaveGroup': {
        const send = (error: KafkaError): void => reply({ type: 'LeaveGroupResponse', correlationId: cid, error });
        if (unavailable) return send(unavailable);
        if (shard!.consumerGroups.has(request.groupId)) return this.consumer.classicLeave(shard!, request, send);
        return send(this.leaveGroup(shard!, request));
      }
      case 'OffsetCommit': {
        const send = (error: KafkaError): void =>
          reply({
            type: 'OffsetCommitResponse',
            correlationId: cid,
            error,
            partitions: request.offsets.map((o) => ({ topic: o.topic, partition: o.partition, error })),
          });
        if (unavailable) return send(unavailable);
        return this.commitOffsets(shard!, request, send);
      }
      case 'TxnOffsetCommit': {
        const send = (error: KafkaError): void =>
          reply({ type: 'TxnOffsetCommitResponse', correlationId: cid, partitions: request.offsets.map((o) => ({ topic: o.topic, partition: o.partition, error })) });
        if (unavailable) return send(unavailable);
        return this.commitTransactionalOffsets(shard!, request, send);
      }
      case 'OffsetFetch': {
        const error = unavailable ?? this.offsetFetchError(shard!, request);
        if (error !== 'NONE') return reply({ type: 'OffsetFetchResponse', correlationId: cid, error, partitions: [] });
        return reply({ type: 'OffsetFetchResponse', correlationId: cid, error: 'NONE', partitions: this.fetchOffsets(shard!, request) });
      }
      case 'ConsumerGroupHeartbeat':
        if (unavailable) {
          return reply({ type: 'ConsumerGroupHeartbeatResponse', correlationId: cid, error: unavailable, errorMessage: null, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null });
        }
        return this.consumer.heartbeat(shard!, from, request, reply);
    }
  }

  // ---- JoinGroup [GroupMetadataManager.java `classicGroupJoinToClassicGroup` and what it calls] ----

  private joinGroup(shard: Shard, from: string, req: JoinGroupRequest, send: (r: JoinGroupResult) => void): void {
    const isUnknown = req.memberId === UNKNOWN_MEMBER_ID;
    // An empty consumer group gives way to the classic one (its offsets stay).
    const tombstones = this.consumer.giveWayToClassic(shard, req.groupId);
    if (tombstones.length > 0) this.write(shard, tombstones, () => {});
    let group = shard.groups.get(req.groupId);
    if (!group) {
      if (!isUnknown) return send(joinError('UNKNOWN_MEMBER_ID', req.memberId));
      group = new ClassicGroup(req.groupId, this.now);
      shard.groups.set(req.groupId, group);
    }
    if (!this.acceptJoiningMember(group, req.memberId)) {
      this.removeMember(shard, group, req.memberId);
      return send(joinError('GROUP_MAX_SIZE_REACHED', UNKNOWN_MEMBER_ID));
    }
    if (isUnknown) this.joinNewMember(shard, group, from, req, send);
    else this.joinExistingMember(shard, group, from, req, send);
  }

  /** [GroupMetadataManager.java `acceptJoiningMember`] */
  private acceptJoiningMember(group: ClassicGroup, memberId: string): boolean {
    const max = this.config['group.max.size'];
    switch (group.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance': {
        const m = group.members.get(memberId);
        return (m !== undefined && m.isAwaitingJoin) || this.awaitingJoinCount(group) < max;
      }
      default:
        return group.hasMember(memberId) || group.size < max;
    }
  }

  private awaitingJoinCount(group: ClassicGroup): number {
    let n = 0;
    for (const m of group.members.values()) if (m.isAwaitingJoin) n++;
    return n;
  }

  private joinNewMember(shard: Shard, group: ClassicGroup, from: string, req: JoinGroupRequest, send: (r: JoinGroupResult) => void): void {
    if (group.is('Dead')) return send(joinError('COORDINATOR_NOT_AVAILABLE', UNKNOWN_MEMBER_ID));
    if (!group.supportsProtocols(req.protocolType, req.protocols.map((p) => p.name))) return send(joinError('INCONSISTENT_GROUP_PROTOCOL', UNKNOWN_MEMBER_ID));
    const newMemberId = this.newMemberId(from, req);
    if (req.groupInstanceId !== null) {
      const existing = group.staticMemberId(req.groupInstanceId);
      if (existing !== undefined) return this.updateStaticMemberThenRebalanceOrCompleteJoin(shard, group, from, req, existing, newMemberId, send);
      return this.addMemberThenRebalanceOrCompleteJoin(shard, group, from, req, newMemberId, send);
    }
    // KIP-394: a dynamic member first gets its id and must come back with it. [GroupMetadataManager.java `classicGroupJoinNewDynamicMember`]
    group.addPendingMember(newMemberId);
    const timers = this.timersOf(group);
    timers.pending.set(
      newMemberId,
      this.host.setTimer(ms(req.sessionTimeoutMs), () => this.onHeartbeatExpired(shard, group, newMemberId)),
    );
    send(joinError('MEMBER_ID_REQUIRED', newMemberId));
  }

  private joinExistingMember(shard: Shard, group: ClassicGroup, from: string, req: JoinGroupRequest, send: (r: JoinGroupResult) => void): void {
    const memberId = req.memberId;
    if (group.is('Dead')) return send(joinError('COORDINATOR_NOT_AVAILABLE', memberId));
    if (!group.supportsProtocols(req.protocolType, req.protocols.map((p) => p.name))) return send(joinError('INCONSISTENT_GROUP_PROTOCOL', memberId));
    if (group.isPendingMember(memberId)) {
      this.cancelPendingTimer(group, memberId);
      return this.addMemberThenRebalanceOrCompleteJoin(shard, group, from, req, memberId, send);
    }
    const e = validateMember(group, memberId, req.groupInstanceId);
    if (e !== 'NONE') return send(joinError(e, memberId));
    const member = group.member(memberId);
    switch (group.state) {
      case 'PreparingRebalance':
        return this.updateMemberThenRebalanceOrCompleteJoin(shard, group, member, req, `member ${memberId} rejoined during PreparingRebalance (${req.reason})`, send);
      case 'CompletingRebalance':
        if (member.matches(req.protocols)) {
          // The member missed its JoinGroup response: give it the current generation again.
          return send(this.joinResult(group, memberId, group.isLeader(memberId), false));
        }
        return this.updateMemberThenRebalanceOrCompleteJoin(shard, group, member, req, `member ${memberId} changed its metadata during CompletingRebalance (${req.reason})`, send);
      case 'Stable':
        if (group.isLeader(memberId)) {
          return this.updateMemberThenRebalanceOrCompleteJoin(shard, group, member, req, `leader ${memberId} rejoined (${req.reason})`, send);
        }
        if (!member.matches(req.protocols)) {
          return this.updateMemberThenRebalanceOrCompleteJoin(shard, group, member, req, `member ${memberId} changed its metadata (${req.reason})`, send);
        }
        return send(this.joinResult(group, memberId, false, false));
      default:
        return send(joinError('UNKNOWN_MEMBER_ID', memberId));
    }
  }

  private joinResult(group: ClassicGroup, memberId: string, withMembers: boolean, skipAssignment: boolean): JoinGroupResult {
    return {
      error: 'NONE',
      generationId: group.generationId,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      skipAssignment,
      memberId,
      members: withMembers ? group.currentMembers() : [],
    };
  }

  /** A static member came back with a new member id. [GroupMetadataManager.java `updateStaticMemberThenRebalanceOrCompleteJoin`] */
  private updateStaticMemberThenRebalanceOrCompleteJoin(
    shard: Shard,
    group: ClassicGroup,
    from: string,
    req: JoinGroupRequest,
    oldMemberId: string,
    newMemberId: string,
    send: (r: JoinGroupResult) => void,
  ): void {
    const instanceId = req.groupInstanceId!;
    const old = group.member(oldMemberId);
    this.host.cancelTimer(old.heartbeatTimer);
    const newMember = new ClassicGroupMember(newMemberId, instanceId, from, old.rebalanceTimeoutMs, old.sessionTimeoutMs, old.protocols, old.assignment);
    group.replaceStaticMember(instanceId, oldMemberId, newMember);
    this.trace.emit('group.member.join', this.node, { group: group.groupId, memberId: newMemberId, groupInstanceId: instanceId, clientId: from, replaced: oldMemberId });
    this.rescheduleHeartbeat(shard, group, newMember, newMember.sessionTimeoutMs);
    const oldProtocols = newMember.protocols;
    const oldRebalanceTimeoutMs = newMember.rebalanceTimeoutMs;
    const oldSessionTimeoutMs = newMember.sessionTimeoutMs;
    group.updateMember(newMember, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, send);
    const reason = `static member ${instanceId} rejoined as ${newMemberId} (${req.reason})`;
    if (group.is('Stable')) {
      if (group.protocolName === group.selectProtocol()) {
        // Same protocol: no rebalance. Persist the new member id, then answer with the current generation.
        this.write(shard, [groupMetadataRecord(group.groupId, this.groupMetadataValue(group))], (error) => {
          if (!this.isCurrent(shard, group)) return;
          const member = group.members.get(newMemberId);
          if (!member) return;
          if (error !== 'NONE') {
            const reply = member.awaitingJoin;
            group.updateMember(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
            this.host.cancelTimer(member.heartbeatTimer);
            const restored = new ClassicGroupMember(oldMemberId, instanceId, old.clientId, old.rebalanceTimeoutMs, old.sessionTimeoutMs, old.protocols, member.assignment);
            group.replaceStaticMember(instanceId, newMemberId, restored);
            this.rescheduleHeartbeat(shard, group, restored, restored.sessionTimeoutMs);
            reply?.({ ...joinError(appendErrorToResponseError(error), UNKNOWN_MEMBER_ID), generationId: group.generationId, leader: group.leaderId ?? '' });
            return;
          }
          const isLeader = group.isLeader(newMemberId);
          // A static leader gets the members but must not reassign (KIP-814 skipAssignment).
          group.completeJoin(member, this.joinResult(group, newMemberId, isLeader, isLeader));
        });
        return;
      }
      return this.maybePrepareRebalanceOrCompleteJoin(shard, group, reason);
    }
    if (group.is('CompletingRebalance')) return this.prepareRebalance(shard, group, reason);
    this.maybeCompleteJoinPhase(shard, group);
  }

  /** [GroupMetadataManager.java `addMemberThenRebalanceOrCompleteJoin`] */
  private addMemberThenRebalanceOrCompleteJoin(
    shard: Shard,
    group: ClassicGroup,
    from: string,
    req: JoinGroupRequest,
    memberId: string,
    send: (r: JoinGroupResult) => void,
  ): void {
    const member = new ClassicGroupMember(memberId, req.groupInstanceId, from, req.rebalanceTimeoutMs, req.sessionTimeoutMs, req.protocols);
    member.isNew = true;
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member, send);
    this.trace.emit('group.member.join', this.node, { group: group.groupId, memberId, groupInstanceId: req.groupInstanceId, clientId: from, replaced: null });
    // A parked new member cannot heartbeat: its join expires on its own. [`classicGroupNewMemberJoinTimeoutMs`]
    this.rescheduleHeartbeat(shard, group, member, CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.maybePrepareRebalanceOrCompleteJoin(shard, group, `new member ${memberId} joined (${req.reason})`);
  }

  private updateMemberThenRebalanceOrCompleteJoin(
    shard: Shard,
    group: ClassicGroup,
    member: ClassicGroupMember,
    req: JoinGroupRequest,
    reason: string,
    send: (r: JoinGroupResult) => void,
  ): void {
    group.updateMember(member, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, send);
    this.maybePrepareRebalanceOrCompleteJoin(shard, group, reason);
  }

  private maybePrepareRebalanceOrCompleteJoin(shard: Shard, group: ClassicGroup, reason: string): void {
    if (group.canRebalance()) this.prepareRebalance(shard, group, reason);
    else this.maybeCompleteJoinPhase(shard, group);
  }

  /** [GroupMetadataManager.java `maybeCompleteJoinPhase`] */
  private maybeCompleteJoinPhase(shard: Shard, group: ClassicGroup): void {
    if (!group.is('PreparingRebalance')) return;
    // The initial rebalance completes only when its delay runs out.
    if (group.previousState === 'Empty') return;
    if (!group.hasAllMembersJoined()) return;
    this.completeJoin(shard, group);
  }

  /** [GroupMetadataManager.java `prepareRebalance`] */
  private prepareRebalance(shard: Shard, group: ClassicGroup, reason: string): void {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentWithError(shard, group, 'REBALANCE_IN_PROGRESS');
    this.removeSyncExpiration(group);
    const initial = group.is('Empty');
    const timers = this.timersOf(group);
    if (initial) {
      const delayMs = this.config['group.initial.rebalance.delay.ms'];
      const remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
      this.host.cancelTimer(timers.join);
      timers.join = this.host.setTimer(ms(delayMs), () => this.tryCompleteInitialRebalanceElseSchedule(shard, group, delayMs, remainingMs));
    }
    group.rebalanceReason = reason;
    this.transition(group, 'PreparingRebalance');
    if (!initial) this.maybeCompleteJoinElseSchedule(shard, group);
  }

  private maybeCompleteJoinElseSchedule(shard: Shard, group: ClassicGroup): void {
    if (group.hasAllMembersJoined()) return this.completeJoin(shard, group);
    const timers = this.timersOf(group);
    this.host.cancelTimer(timers.join);
    timers.join = this.host.setTimer(ms(group.rebalanceTimeoutMs()), () => this.completeJoinIfCurrent(shard, group));
  }

  /** Each member joining during the initial delay extends it, up to the rebalance timeout. [GroupMetadataManager.java `tryCompleteInitialRebalanceElseSchedule`] */
  private tryCompleteInitialRebalanceElseSchedule(shard: Shard, group: ClassicGroup, delayMs: number, remainingMs: number): void {
    if (!this.isCurrent(shard, group)) return;
    if (group.newMemberAdded && remainingMs !== 0) {
      group.newMemberAdded = false;
      const newDelayMs = Math.min(this.config['group.initial.rebalance.delay.ms'], remainingMs);
      const newRemainingMs = Math.max(remainingMs - delayMs, 0);
      const timers = this.timersOf(group);
      timers.join = this.host.setTimer(ms(newDelayMs), () => this.tryCompleteInitialRebalanceElseSchedule(shard, group, newDelayMs, newRemainingMs));
      return;
    }
    this.completeJoin(shard, group);
  }

  private completeJoinIfCurrent(shard: Shard, group: ClassicGroup): void {
    if (this.isCurrent(shard, group)) this.completeJoin(shard, group);
  }

  /**
   * The join phase ends: dynamic members that did not rejoin are removed, the generation advances, the protocol
   * is chosen, and every parked JoinGroup is answered (the leader with all members' metadata).
   * [GroupMetadataManager.java `completeClassicGroupJoin`]
   */
  private completeJoin(shard: Shard, group: ClassicGroup): void {
    const timers = this.timersOf(group);
    this.host.cancelTimer(timers.join);
    timers.join = NO_TIMER;
    for (const m of group.notYetRejoinedMembers()) {
      if (m.isStatic) continue;
      this.removeMember(shard, group, m.memberId);
      this.trace.emit('group.member.expire', this.node, {
        group: group.groupId,
        memberId: m.memberId,
        groupInstanceId: null,
        reason: 'did not rejoin within the rebalance timeout',
      });
    }
    if (group.is('Dead')) return;
    if (!group.maybeElectNewJoinedLeader() && group.size > 0) {
      // Nobody rejoined: wait another rebalance timeout for session timeouts to clear the group.
      timers.join = this.host.setTimer(ms(group.rebalanceTimeoutMs()), () => this.completeJoinIfCurrent(shard, group));
      return;
    }
    group.initNextGeneration(this.now);
    this.trace.emit('group.state', this.node, { group: group.groupId, from: group.previousState, to: group.state, generation: group.generationId });
    if (group.is('Empty')) {
      this.write(shard, [groupMetadataRecord(group.groupId, this.groupMetadataValue(group))], () => {});
      return;
    }
    this.trace.emit('group.rebalance', this.node, {
      group: group.groupId,
      generation: group.generationId,
      protocol: group.protocolName ?? '',
      leader: group.leaderId ?? '',
      members: [...group.members.keys()],
      rejoined: [...group.members.values()].filter((m) => m.isAwaitingJoin).map((m) => m.memberId),
      reason: group.rebalanceReason,
    });
    for (const m of [...group.members.values()]) {
      group.completeJoin(m, this.joinResult(group, m.memberId, group.isLeader(m.memberId), false));
      this.rescheduleHeartbeat(shard, group, m, m.sessionTimeoutMs);
      m.isNew = false;
      group.addPendingSyncMember(m.memberId);
    }
    // Members that do not sync within the rebalance timeout are removed. [GroupMetadataManager.java `schedulePendingSync`]
    const generation = group.generationId;
    timers.sync = this.host.setTimer(ms(group.rebalanceTimeoutMs()), () => this.expirePendingSync(shard, group, generation));
  }

  /** [GroupMetadataManager.java `expirePendingSync`] */
  private expirePendingSync(shard: Shard, group: ClassicGroup, generation: number): void {
    if (!this.isCurrent(shard, group) || group.generationId !== generation) return;
    if (!(group.is('CompletingRebalance') || group.is('Stable')) || group.hasReceivedSyncFromAllMembers()) return;
    const pending = group.pendingSyncMemberIds();
    for (const id of pending) {
      const m = group.members.get(id);
      this.removeMember(shard, group, id);
      this.trace.emit('group.member.expire', this.node, { group: group.groupId, memberId: id, groupInstanceId: m?.groupInstanceId ?? null, reason: 'no SyncGroup within the rebalance timeout' });
    }
    this.prepareRebalance(shard, group, `members ${pending.join(', ')} did not sync in time`);
  }

  // ---- SyncGroup [GroupMetadataManager.java `classicGroupSyncToClassicGroup`] ----

  private syncGroup(shard: Shard, req: SyncGroupRequest, send: (r: SyncGroupResult) => void): void {
    const group = shard.groups.get(req.groupId);
    if (!group || group.is('Empty')) return send({ error: 'UNKNOWN_MEMBER_ID', partitions: [] });
    const e = syncGroupError(group, req.memberId, req.groupInstanceId, req.generationId);
    if (e !== 'NONE') return send({ error: e, partitions: [] });
    if (group.is('PreparingRebalance')) return send({ error: 'REBALANCE_IN_PROGRESS', partitions: [] });
    const member = group.member(req.memberId);
    if (group.is('Stable')) {
      group.removePendingSyncMember(req.memberId);
      this.maybeCancelSyncTimer(group);
      return send({ error: 'NONE', partitions: member.assignment });
    }
    // CompletingRebalance: park until the leader's assignment is stored.
    member.awaitingSync = send;
    group.removePendingSyncMember(req.memberId);
    this.maybeCancelSyncTimer(group);
    if (!group.isLeader(req.memberId)) return;
    const assignment = new Map<string, readonly TopicPartition[]>();
    for (const a of req.assignments) if (group.hasMember(a.memberId)) assignment.set(a.memberId, a.partitions);
    for (const id of group.members.keys()) if (!assignment.has(id)) assignment.set(id, []);
    const generation = group.generationId;
    const value = this.groupMetadataValue(group, assignment);
    this.write(shard, [groupMetadataRecord(group.groupId, value)], (error) => {
      // The group may have moved on while the write was in flight.
      if (!this.isCurrent(shard, group) || !group.is('CompletingRebalance') || group.generationId !== generation) return;
      if (error !== 'NONE') {
        this.resetAndPropagateAssignmentWithError(shard, group, appendErrorToResponseError(error));
        this.maybePrepareRebalanceOrCompleteJoin(shard, group, `storing the assignment failed with ${error}`);
        return;
      }
      for (const m of group.members.values()) m.assignment = assignment.get(m.memberId) ?? [];
      this.propagateAssignment(shard, group, 'NONE');
      this.transition(group, 'Stable');
      const out: Record<string, string[]> = {};
      for (const m of group.members.values()) out[m.memberId] = m.assignment.map((tp) => tpKey(tp.topic, tp.partition));
      this.trace.emit('group.assignment', this.node, { group: group.groupId, generation: group.generationId, assignment: out });
    });
  }

  private maybeCancelSyncTimer(group: ClassicGroup): void {
    if (group.hasReceivedSyncFromAllMembers()) {
      const t = this.timersOf(group);
      this.host.cancelTimer(t.sync);
      t.sync = NO_TIMER;
    }
  }

  /** [GroupMetadataManager.java `resetAndPropagateAssignmentWithError`] */
  private resetAndPropagateAssignmentWithError(shard: Shard, group: ClassicGroup, error: KafkaError): void {
    for (const m of group.members.values()) m.assignment = [];
    this.propagateAssignment(shard, group, error);
  }

  /** [GroupMetadataManager.java `propagateAssignment`] */
  private propagateAssignment(shard: Shard, group: ClassicGroup, error: KafkaError): void {
    for (const m of [...group.members.values()]) {
      if (group.completeSync(m, { error, partitions: error === 'NONE' ? m.assignment : [] })) {
        this.rescheduleHeartbeat(shard, group, m, m.sessionTimeoutMs);
      }
    }
  }

  private removeSyncExpiration(group: ClassicGroup): void {
    group.clearPendingSyncMembers();
    const t = this.timersOf(group);
    this.host.cancelTimer(t.sync);
    t.sync = NO_TIMER;
  }

  // ---- Heartbeat ----

  private heartbeat(shard: Shard, req: HeartbeatRequest): KafkaError {
    const group = shard.groups.get(req.groupId);
    if (!group) return 'UNKNOWN_MEMBER_ID';
    const e = heartbeatError(group, req.memberId, req.groupInstanceId, req.generationId);
    // Only a known member of the current generation keeps its session alive.
    if (e === 'NONE' || e === 'REBALANCE_IN_PROGRESS') {
      const m = group.member(req.memberId);
      this.rescheduleHeartbeat(shard, group, m, m.sessionTimeoutMs);
    }
    return e;
  }

  private rescheduleHeartbeat(shard: Shard, group: ClassicGroup, member: ClassicGroupMember, timeoutMs: number): void {
    this.host.cancelTimer(member.heartbeatTimer);
    const memberId = member.memberId;
    member.heartbeatTimer = this.host.setTimer(ms(timeoutMs), () => this.onHeartbeatExpired(shard, group, memberId));
  }

  /** [GroupMetadataManager.java `expireClassicGroupMemberHeartbeat`] */
  private onHeartbeatExpired(shard: Shard, group: ClassicGroup, memberId: string): void {
    if (!this.isCurrent(shard, group) || group.is('Dead')) return;
    if (group.isPendingMember(memberId)) {
      this.removeMember(shard, group, memberId);
      if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) this.completeJoin(shard, group);
      return;
    }
    const member = group.members.get(memberId);
    if (!member || member.hasSatisfiedHeartbeat()) return;
    this.trace.emit('group.member.expire', this.node, {
      group: group.groupId,
      memberId,
      groupInstanceId: member.groupInstanceId,
      reason: member.isNew ? 'new member did not complete its join in time' : `session timeout (${member.sessionTimeoutMs} ms)`,
    });
    this.removeMemberAndUpdateGroup(shard, group, member, `member ${memberId} expired`);
  }

  /** [GroupMetadataManager.java `removeMemberAndUpdateClassicGroup`] */
  private removeMemberAndUpdateGroup(shard: Shard, group: ClassicGroup, member: ClassicGroupMember, reason: string): void {
    group.completeJoin(member, joinError('UNKNOWN_MEMBER_ID', UNKNOWN_MEMBER_ID));
    this.removeMember(shard, group, member.memberId);
    if (group.is('Stable') || group.is('CompletingRebalance')) this.maybePrepareRebalanceOrCompleteJoin(shard, group, reason);
    else if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) this.completeJoin(shard, group);
  }

  private removeMember(_shard: Shard, group: ClassicGroup, memberId: string): void {
    const m = group.remove(memberId);
    if (m) this.host.cancelTimer(m.heartbeatTimer);
    this.cancelPendingTimer(group, memberId);
  }

  private cancelPendingTimer(group: ClassicGroup, memberId: string): void {
    const t = this.timersOf(group);
    const id = t.pending.get(memberId);
    if (id !== undefined) {
      this.host.cancelTimer(id);
      t.pending.delete(memberId);
    }
  }

  // ---- LeaveGroup [GroupMetadataManager.java `classicGroupLeaveToClassicGroup`] ----

  private leaveGroup(shard: Shard, req: LeaveGroupRequest): KafkaError {
    const group = shard.groups.get(req.groupId);
    if (!group) return 'UNKNOWN_MEMBER_ID';
    if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    let firstError: KafkaError = 'NONE';
    let anyLeft = false;
    for (const who of req.members) {
      let memberId: string | undefined;
      if (who.memberId === UNKNOWN_MEMBER_ID) {
        // Admin removal of a static member by instance id.
        memberId = who.groupInstanceId !== null ? group.staticMemberId(who.groupInstanceId) : undefined;
        if (memberId === undefined) {
          if (firstError === 'NONE') firstError = 'UNKNOWN_MEMBER_ID';
          continue;
        }
      } else if (group.isPendingMember(who.memberId)) {
        this.removeMember(shard, group, who.memberId);
        anyLeft = true;
        continue;
      } else {
        const e = validateMember(group, who.memberId, who.groupInstanceId);
        if (e !== 'NONE') {
          if (firstError === 'NONE') firstError = e;
          continue;
        }
        memberId = who.memberId;
      }
      const m = group.member(memberId);
      this.trace.emit('group.member.leave', this.node, { group: group.groupId, memberId, groupInstanceId: m.groupInstanceId, reason: who.reason });
      group.completeJoin(m, joinError('UNKNOWN_MEMBER_ID', UNKNOWN_MEMBER_ID));
      this.removeMember(shard, group, memberId);
      anyLeft = true;
    }
    if (anyLeft) {
      if (group.is('Stable') || group.is('CompletingRebalance')) this.maybePrepareRebalanceOrCompleteJoin(shard, group, 'LeaveGroup');
      else if (group.is('PreparingRebalance')) this.maybeCompleteJoinPhase(shard, group);
    }
    return firstError;
  }

  // ---- offsets [OffsetMetadataManager.java `commitOffset`, `fetchOffsets`] ----

  private commitOffsets(shard: Shard, req: OffsetCommitRequest, send: (error: KafkaError) => void): void {
    let group = shard.groups.get(req.groupId);
    const consumerGroup = shard.consumerGroups.get(req.groupId);
    if (consumerGroup) {
      // Commits to a consumer group carry the member epoch (STALE_MEMBER_EPOCH) and are no heartbeat.
      const e = this.consumer.validateOffsetCommit(consumerGroup, req.memberId, req.generationId);
      if (e !== 'NONE') return this.commitDone(req, e, send);
      return this.writeOffsets(shard, req, send);
    }
    if (!group) {
      // Without a generation the commit comes from outside group management: a "simple" group is created.
      // (Newer versions answer GROUP_ID_NOT_FOUND otherwise; the older ILLEGAL_GENERATION is what clients handle.)
      if (req.generationId >= 0) return this.commitDone(req, 'ILLEGAL_GENERATION', send);
      group = new ClassicGroup(req.groupId, this.now);
      shard.groups.set(req.groupId, group);
    }
    const e = validateOffsetCommit(group, req.memberId, req.groupInstanceId, req.generationId);
    if (e !== 'NONE') return this.commitDone(req, e, send);
    // A commit counts as a heartbeat in Stable and PreparingRebalance. [OffsetMetadataManager.java `commitOffset`]
    if ((group.is('Stable') || group.is('PreparingRebalance')) && group.hasMember(req.memberId)) {
      const m = group.member(req.memberId);
      this.rescheduleHeartbeat(shard, group, m, m.sessionTimeoutMs);
    }
    this.writeOffsets(shard, req, send);
  }

  private writeOffsets(shard: Shard, req: OffsetCommitRequest, send: (error: KafkaError) => void): void {
    if (req.offsets.length === 0) return this.commitDone(req, 'NONE', send);
    const commitTimestampMs = Math.floor(this.now / 1000);
    const offsets: CommittedOffset[] = req.offsets.map((o) => ({
      topic: o.topic,
      partition: o.partition,
      offset: o.offset,
      leaderEpoch: o.leaderEpoch,
      metadata: o.metadata,
      commitTimestampMs,
    }));
    const groupId = req.groupId;
    const apply = (): void => {
      if (this.shards.get(shard.partition) !== shard) return;
      let m = shard.offsets.get(groupId);
      if (!m) shard.offsets.set(groupId, (m = new Map()));
      for (const o of offsets) m.set(tpKey(o.topic, o.partition), o);
    };
    this.write(
      shard,
      offsets.map((o) => offsetCommitRecord(groupId, o)),
      (error) => {
        if (error === 'NONE') apply();
        this.commitDone(req, appendErrorToResponseError(error), send);
      },
      apply,
    );
  }

  /**
   * TxnOffsetCommit: the group must know the member and its generation (KIP-447: a zombie's producer is fenced
   * here); the offsets are written to the partition in the producer's transaction and wait for its marker.
   * [OffsetMetadataManager.java `validateTransactionalOffsetCommit`, `commitTransactionalOffset`]
   */
  private commitTransactionalOffsets(shard: Shard, req: TxnOffsetCommitRequest, send: (error: KafkaError) => void): void {
    const done = (error: KafkaError, result: 'pending' | 'refused'): void => {
      this.trace.emit('group.offset.txn', this.node, {
        group: req.groupId,
        producerId: req.producerId,
        result,
        offsets: req.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })),
        error,
      });
      send(error);
    };
    const consumerGroup = shard.consumerGroups.get(req.groupId);
    let group = shard.groups.get(req.groupId);
    let e: KafkaError;
    if (consumerGroup) {
      // A stale member epoch is ILLEGAL_GENERATION on this API (it has no STALE_MEMBER_EPOCH). [OffsetMetadataManager.java `validateTransactionalOffsetCommit`]
      e = req.memberId === '' && req.generationId < 0 ? 'NONE' : this.consumer.validateOffsetCommit(consumerGroup, req.memberId, req.generationId);
      if (e === 'STALE_MEMBER_EPOCH') e = 'ILLEGAL_GENERATION';
    } else {
      if (!group) {
        // No group: a "simple" one without a generation, else the generation is unknown. [OffsetMetadataManager.java `validateTransactionalOffsetCommit`]
        if (req.generationId >= 0) return done('ILLEGAL_GENERATION', 'refused');
        group = new ClassicGroup(req.groupId, this.now);
        shard.groups.set(req.groupId, group);
      }
      e = validateOffsetCommit(group, req.memberId, req.groupInstanceId, req.generationId, true);
    }
    if (e !== 'NONE') return done(e, 'refused');
    if (req.offsets.length === 0) return done('NONE', 'pending');
    if ((req.transactionVersion ?? 0) >= 2 && this.transactions) {
      // Version 2: no AddOffsetsToTxn came; this partition joins the transaction first, then the offsets are
      // written. [src: GroupCoordinatorService.java `commitTransactionalOffsets` (scheduleTransactionalWriteOperation); CoordinatorPartitionWriter.scala `maybeStartTransactionVerification`]
      const tp = { topic: CONSUMER_OFFSETS, partition: shard.partition };
      return this.transactions.addOffsetsPartition(req.transactionalId, req.producerId, req.producerEpoch, tp, (error) => {
        if (error !== 'NONE') return done(error, 'refused');
        if (this.shards.get(shard.partition) !== shard) return done('NOT_COORDINATOR', 'refused');
        this.writeTransactionalOffsets(shard, req, done);
      });
    }
    this.writeTransactionalOffsets(shard, req, done);
  }

  private writeTransactionalOffsets(shard: Shard, req: TxnOffsetCommitRequest, done: (error: KafkaError, result: 'pending' | 'refused') => void): void {
    const commitTimestampMs = Math.floor(this.now / 1000);
    const offsets: CommittedOffset[] = req.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, commitTimestampMs }));
    const pending = shard.pendingTxnOffsets;
    this.write(
      shard,
      offsets.map((o) => offsetCommitRecord(req.groupId, o)),
      (error) => {
        if (error === 'NONE' && this.shards.get(shard.partition) === shard) pending.add(req.producerId, req.groupId, offsets);
        done(appendErrorToResponseError(error), error === 'NONE' ? 'pending' : 'refused');
      },
      () => {
        if (this.shards.get(shard.partition) === shard) pending.add(req.producerId, req.groupId, offsets);
      },
      { producerId: req.producerId, producerEpoch: req.producerEpoch },
    );
  }

  /**
   * A transaction marker of `producerId` was written to `__consumer_offsets-partition` (WriteTxnMarkers): its
   * pending offsets become committed (COMMIT) or are dropped (ABORT). [GroupCoordinatorService.java
   * `completeTransaction`; OffsetMetadataManager.java `replayEndTransactionMarker`]
   */
  completeTransaction(partition: number, producerId: number, commit: boolean): void {
    const shard = this.shards.get(partition);
    if (!shard || shard.pendingTxnOffsets.isEmpty) return;
    for (const [groupId, committed] of shard.pendingTxnOffsets.complete(producerId, commit)) {
      let m = shard.offsets.get(groupId);
      if (!m) shard.offsets.set(groupId, (m = new Map()));
      for (const [key, o] of committed) m.set(key, o);
      this.trace.emit('group.offset.txn', this.node, {
        group: groupId,
        producerId,
        result: 'commit',
        offsets: [...committed.values()].map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })),
        error: 'NONE',
      });
    }
  }

  private commitDone(req: OffsetCommitRequest, error: KafkaError, send: (error: KafkaError) => void): void {
    this.trace.emit('group.offset.commit', this.node, {
      group: req.groupId,
      memberId: req.memberId,
      generation: req.generationId,
      offsets: req.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })),
      error,
    });
    send(error);
  }

  /** A consumer-protocol member reading offsets must be a member at its epoch. [ConsumerGroup.java `validateOffsetFetch`] */
  private offsetFetchError(shard: Shard, req: OffsetFetchRequest): KafkaError {
    const g = shard.consumerGroups.get(req.groupId);
    if (!g) return 'NONE';
    return this.consumer.validateOffsetFetch(g, req.memberId ?? null, req.memberEpoch ?? -1);
  }

  private fetchOffsets(shard: Shard, req: OffsetFetchRequest): OffsetFetchResponse['partitions'] {
    const group = shard.groups.get(req.groupId);
    const m = (group && !group.is('Dead')) || shard.consumerGroups.has(req.groupId) ? shard.offsets.get(req.groupId) : undefined;
    if (req.partitions === null) {
      return [...(m?.values() ?? [])].map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch, error: 'NONE' as const }));
    }
    return req.partitions.map((tp) => {
      // A partition an open transaction holds an offset of is not stable yet (KIP-447). [OffsetMetadataManager.java `fetchOffsets` (requireStable)]
      if (req.requireStable && shard.pendingTxnOffsets.hasPending(req.groupId, tp.topic, tp.partition)) {
        return { topic: tp.topic, partition: tp.partition, offset: -1, leaderEpoch: -1, error: 'UNSTABLE_OFFSET_COMMIT' as const };
      }
      const o = m?.get(tpKey(tp.topic, tp.partition));
      return { topic: tp.topic, partition: tp.partition, offset: o ? o.offset : -1, leaderEpoch: o ? o.leaderEpoch : -1, error: 'NONE' as const };
    });
  }

  // ---- offset expiration [OffsetMetadataManager.java `cleanupExpiredOffsets`; GroupMetadataManager.java `maybeDeleteGroup`] ----

  private scheduleRetentionCheck(shard: Shard): void {
    shard.retentionTimer = this.host.setTimer(ms(this.retentionCheckMs), () => {
      if (this.shards.get(shard.partition) !== shard) return;
      this.expireOffsets(shard);
      this.scheduleRetentionCheck(shard);
    });
  }

  private expireOffsets(shard: Shard): void {
    const retentionUs = ms(this.config['offsets.retention.minutes'] * 60_000);
    for (const [groupId, group] of [...shard.groups]) {
      // Offsets of a group with members never expire; an empty consumer group's expire retention after it emptied.
      if (!group.is('Empty')) continue;
      const offsets = shard.offsets.get(groupId);
      const expired: CommittedOffset[] = [];
      for (const o of offsets?.values() ?? []) {
        const base = group.protocolType !== null ? group.stateTimestampUs : ms(o.commitTimestampMs);
        if (this.now - base >= retentionUs) expired.push(o);
      }
      const records: CoordinatorRecord[] = expired.map((o) => offsetTombstone(groupId, o.topic, o.partition));
      for (const o of expired) offsets!.delete(tpKey(o.topic, o.partition));
      if (expired.length > 0) {
        this.trace.emit('group.offset.expire', this.node, { group: groupId, offsets: expired.map((o) => ({ topic: o.topic, partition: o.partition })) });
      }
      if (!offsets || offsets.size === 0) {
        shard.offsets.delete(groupId);
        shard.groups.delete(groupId);
        this.cancelGroupTimers(group);
        this.transition(group, 'Dead');
        records.push(groupMetadataRecord(groupId, null));
      }
      if (records.length > 0) this.write(shard, records, () => {});
    }
  }

  // ---- helpers ----

  /**
   * Appends records and calls `onDone` once: when they are committed, when the append fails, or after
   * offsets.commit.timeout.ms (the records may still commit later: `onLateCommit`). `sync` tells a failure that
   * happened before anything reached the log (the state built on the records must be undone), as Kafka's runtime
   * reverts its snapshot when the append itself throws.
   */
  private write(
    shard: Shard,
    records: readonly CoordinatorRecord[],
    onDone: (error: KafkaError, sync: boolean) => void,
    onLateCommit?: () => void,
    transactional?: TransactionalWriter,
  ): void {
    let finished = false;
    let appending = true;
    const pending: PendingWrite = { done: false, waiters: [] };
    shard.lastWrite = pending;
    const settle = (): void => {
      if (pending.done) return;
      pending.done = true;
      for (const w of pending.waiters) w();
    };
    // The operation fails after offsets.commit.timeout.ms; the records may still commit later.
    const timer = this.host.setTimer(ms(this.config['offsets.commit.timeout.ms']), () => {
      if (finished) return;
      finished = true;
      onDone('REQUEST_TIMED_OUT', false);
      settle();
    });
    this.storage.append(shard.partition, records, (error) => {
      this.host.cancelTimer(timer);
      if (finished) {
        if (error === 'NONE') onLateCommit?.();
        return;
      }
      finished = true;
      onDone(error, appending && error !== 'NONE');
      settle();
    }, transactional);
    appending = false;
  }

  private groupMetadataValue(group: ClassicGroup, assignment?: ReadonlyMap<string, readonly TopicPartition[]>): GroupMetadataValue {
    return {
      protocolType: group.protocolType ?? 'consumer',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestampMs: Math.floor(group.stateTimestampUs / 1000),
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: m.metadata(group.protocolName),
        assignment: assignment?.get(m.memberId) ?? m.assignment,
      })),
    };
  }

  private transition(group: ClassicGroup, to: ClassicGroupState): void {
    const from = group.state;
    group.transitionTo(to, this.now);
    this.trace.emit('group.state', this.node, { group: group.groupId, from, to, generation: group.generationId });
  }

  private isCurrent(shard: Shard, group: ClassicGroup): boolean {
    return this.shards.get(shard.partition) === shard && shard.state === 'active' && shard.groups.get(group.groupId) === group;
  }

  private timersOf(group: ClassicGroup): GroupTimers {
    let t = this.timers.get(group);
    if (!t) this.timers.set(group, (t = { join: NO_TIMER, sync: NO_TIMER, pending: new Map() }));
    return t;
  }

  private cancelGroupTimers(group: ClassicGroup): void {
    const t = this.timersOf(group);
    this.host.cancelTimer(t.join);
    this.host.cancelTimer(t.sync);
    for (const id of t.pending.values()) this.host.cancelTimer(id);
    t.pending.clear();
    for (const m of group.members.values()) this.host.cancelTimer(m.heartbeatTimer);
  }

  private newMemberId(from: string, req: JoinGroupRequest): string {
    return `${req.groupInstanceId ?? from}-${this.uuid()}`;
  }

  // ---- online migration: the classic side [GroupMetadataManager.java `convertToConsumerGroup`, `convertToClassicGroup`] ----

  private classicView(shard: Shard, groupId: string): ClassicGroupView | null {
    const g = shard.groups.get(groupId);
    if (!g || g.is('Empty') || g.is('Dead')) return null;
    return {
      groupId,
      generationId: g.generationId,
      protocolName: g.protocolName,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.groupInstanceId,
        clientId: m.clientId,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        protocols: m.protocols,
        assignment: m.assignment,
      })),
    };
  }

  /** The classic group ends: whoever waits in a join or a sync is told to rejoin (now into the consumer group). */
  private releaseClassic(shard: Shard, groupId: string): void {
    const g = shard.groups.get(groupId);
    if (!g) return;
    g.completeAllJoins('REBALANCE_IN_PROGRESS');
    g.completeAllSyncs('REBALANCE_IN_PROGRESS');
    this.cancelGroupTimers(g);
    shard.groups.delete(groupId);
    if (!g.is('Dead')) this.transition(g, 'Dead');
  }

  /** A consumer group turned classic: Stable at its epoch, each member with its target. [ClassicGroup.java `fromConsumerGroup`] */
  private adoptClassic(shard: Shard, view: ClassicGroupView, rebalanceReason: string | null): CoordinatorRecord {
    const g = new ClassicGroup(view.groupId, this.now, { state: 'Stable', generationId: view.generationId, protocolType: 'consumer' });
    for (const m of view.members) g.add(new ClassicGroupMember(m.memberId, m.instanceId, m.clientId, m.rebalanceTimeoutMs, m.sessionTimeoutMs, m.protocols, m.assignment));
    g.protocolName = g.selectProtocol();
    shard.groups.set(view.groupId, g);
    this.trace.emit('group.state', this.node, { group: g.groupId, from: 'Empty', to: 'Stable', generation: g.generationId });
    for (const m of g.members.values()) this.rescheduleHeartbeat(shard, g, m, m.sessionTimeoutMs);
    const record = groupMetadataRecord(g.groupId, this.groupMetadataValue(g));
    if (rebalanceReason !== null) this.prepareRebalance(shard, g, rebalanceReason);
    return record;
  }

  /** A random id for a member (Kafka: a UUID). */
  private uuid(): string {
    let s = '';
    for (let i = 0; i < 3; i++) s += this.random.int(0, 0x10000).toString(16).padStart(4, '0');
    return s;
  }

  // ---- inspection ----

  /** A consumer group (KIP-848) as `kafka-consumer-groups --describe --members` shows it, or null (not served here, or not one). */
  describeConsumerGroup(groupId: string): ConsumerGroupDescription | null {
    const shard = this.shards.get(this.partitionFor(groupId));
    const g = shard?.state === 'active' ? shard.consumerGroups.get(groupId) : undefined;
    return g ? this.consumer.describe(g) : null;
  }

  /** The group as `kafka-consumer-groups --describe` would see it, or null when this broker does not serve it. */
  describeGroup(groupId: string): GroupDescription | null {
    const shard = this.shards.get(this.partitionFor(groupId));
    if (!shard || shard.state !== 'active') return null;
    const group = shard.groups.get(groupId);
    const offsets = [...(shard.offsets.get(groupId)?.values() ?? [])].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    if (!group) return { groupId, state: 'Dead', generationId: -1, protocol: null, leader: null, members: [], offsets };
    return {
      groupId,
      state: group.state,
      generationId: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      members: [...group.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, assignment: m.assignment })),
      offsets,
    };
  }
}
