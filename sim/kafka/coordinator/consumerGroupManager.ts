/**
 * The consumer groups (KIP-848) of a group coordinator: serves ConsumerGroupHeartbeat with the pure rules of
 * consumer/consumerGroupHeartbeat.ts, replays the records they return into the shard (the only way a group
 * changes), writes them to `__consumer_offsets` and answers once they are committed; runs each member's session
 * timeout (consumer.session.timeout.ms) and rebalance timeout (its max.poll.interval.ms, armed while it must
 * revoke); validates offset commits and fetches against member epochs; serves the classic requests (JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup) of classic members of a consumer group with their join, sync and session
 * timeouts; converts a group between the classic and the consumer protocol, empty or (group.consumer.migration.policy)
 * live. [group-coordinator/.../GroupMetadataManager.java (consumer groups), GroupCoordinatorService.java
 * `consumerGroupHeartbeat`]
 */
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import { defineKinds, list, nullable, num, record, str, type KindsOf } from '../../core/traceSchema';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerGroupHeartbeatTopicPartitions,
  HeartbeatRequest,
  JoinGroupRequest,
  LeaveGroupRequest,
  SyncGroupRequest,
} from '../protocol';
import { joinError, type JoinGroupResult, type SyncGroupResult } from './classicGroupMember';
import { appendErrorToResponseError } from './classicGroupValidation';
import { assignmentKeys, assignmentMinus, assignmentOf, assignmentPartitions, type Assignment } from './consumer/assignment';
import type { ServerAssignor } from './consumer/assignor/groupSpec';
import { SERVER_ASSIGNORS, type ServerAssignorName } from './consumer/assignor/serverAssignors';
import { classicHeartbeatToConsumerGroup, classicJoinToConsumerGroup, classicLeaveToConsumerGroup, classicSyncToConsumerGroup } from './consumer/classicMembers';
import type { ConsumerGroup } from './consumer/consumerGroup';
import { consumerGroupHeartbeat, consumerGroupLeave, fenceMember, type HeartbeatChanges, type HeartbeatContext, type HeartbeatInput } from './consumer/consumerGroupHeartbeat';
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, usesClassicProtocol, type ConsumerGroupMember } from './consumer/consumerGroupMember';
import { consumerGroupKeyOf, groupTombstones, memberTombstones, replayConsumerGroupRecord } from './consumer/consumerGroupRecords';
import {
  classicGroupFromConsumer,
  consumerGroupRecordsFromClassic,
  downgradeEnabled,
  downgradeOnFence,
  onlineUpgradeRefusal,
  type ClassicGroupView,
  type MigrationPolicy,
} from './consumer/groupMigration';
import type { MemberTimers, GroupCoordinatorShard as Shard } from './groupCoordinatorShard';
import { groupMetadataRecord } from './groupCoordinatorRecords';
import type { CoordinatorRecord } from './storage';

/** The consumer groups' (KIP-848) decisions. */
export const CONSUMER_GROUP_KINDS = defineKinds({
  /**
   * A consumer group's epoch moved (a member joined, left or changed its subscription, or subscribed topics
   * changed); `members`: how many it has now (0: the last one left, nothing to rebalance).
   */
  'group.consumer.epoch': { group: str, epoch: num, reason: str, members: num },
  /** The server assignor computed a new target assignment at `epoch` (the assignment epoch): member id -> "topic-partition" list. */
  'group.consumer.target': { group: str, epoch: num, assignor: str, assignment: record(list(str)) },
  /**
   * A consumer-group member's reconciliation moved: its epoch, its state (STABLE, UNREVOKED_PARTITIONS,
   * UNRELEASED_PARTITIONS), what it may own (`assigned`), what it must give up first (`revoking`), and its
   * target (`target`; target minus assigned is what it waits to receive). Epoch -2: a static member left for a while.
   */
  'group.consumer.member': {
    group: str,
    memberId: str,
    instanceId: nullable(str),
    memberEpoch: num,
    previousMemberEpoch: num,
    state: str,
    assigned: list(str),
    revoking: list(str),
    target: list(str),
  },
  /**
   * A group was converted between protocols (`to`: classic or consumer). `members`: how many members it took
   * along (0: an empty group gave way; more: an online upgrade or downgrade, group.consumer.migration.policy).
   */
  'group.convert': { group: str, from: str, to: str, members: num, reason: str },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof CONSUMER_GROUP_KINDS> {}
}

/** What the embedding coordinator lends the consumer groups. */
export interface ConsumerGroupManagerHost {
  readonly id: string;
  readonly now: Micros;
  readonly trace: Trace;
  readonly config: ConsumerGroupConfig;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  write(shard: Shard, records: readonly CoordinatorRecord[], onDone: (error: KafkaError, sync: boolean) => void): void;
  /** The shard is still served by this coordinator (leadership not lost meanwhile). */
  isCurrent(shard: Shard): boolean;
  readonly metadata: CoordinatorMetadata;
  /** The classic groups of the coordinator, for online migration. */
  readonly classic: ClassicGroupsSide;
}

/** What online migration needs of the classic side of the coordinator. */
export interface ClassicGroupsSide {
  /** A live classic group as a conversion reads it (members, their protocols and assignments), or null. */
  view(shard: Shard, groupId: string): ClassicGroupView | null;
  /** Ends the classic group: parked joins and syncs get REBALANCE_IN_PROGRESS, its timers stop, it is gone. */
  release(shard: Shard, groupId: string): void;
  /**
   * Installs the classic group a consumer group became (Stable at `view.generationId`), arms its members'
   * sessions, starts a rebalance if `rebalanceReason` is set, and returns its GroupMetadata record.
   */
  adopt(shard: Shard, view: ClassicGroupView, rebalanceReason: string | null): CoordinatorRecord;
}

/** What the coordinator reads of the cluster metadata the broker applied. */
export interface CoordinatorMetadata {
  /** Partition count of a topic, -1 when unknown. */
  partitionCount(topic: string): number;
  topicId(topic: string): string | undefined;
  topicName(topicId: string): string | undefined;
  /** Dynamic group configs (kafka-configs --entity-type groups), e.g. consumer.session.timeout.ms. */
  groupConfig(groupId: string): ReadonlyMap<string, string> | undefined;
}

/** The broker configs consumer groups read. [GroupCoordinatorConfig.java] */
export type ConsumerGroupConfig = Pick<
  BrokerConfig,
  | 'group.coordinator.rebalance.protocols'
  | 'group.consumer.session.timeout.ms'
  | 'group.consumer.heartbeat.interval.ms'
  | 'group.consumer.max.size'
  | 'group.consumer.assignors'
  | 'group.consumer.migration.policy'
  | 'group.max.size'
>;

/** A member as `kafka-consumer-groups --describe --members` shows it (inspection only). */
export interface ConsumerGroupMemberDescription {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
  /** The protocol it speaks: `consumer` (ConsumerGroupHeartbeat) or `classic` (JoinGroup, after an online upgrade). */
  readonly protocol: 'consumer' | 'classic';
  readonly memberEpoch: number;
  readonly state: string;
  readonly assigned: readonly string[];
  readonly revoking: readonly string[];
  readonly target: readonly string[];
  /** Target partitions it does not have yet: still to be revoked by their owners, or by itself first. */
  readonly waiting: readonly string[];
}

export interface ConsumerGroupDescription {
  readonly groupId: string;
  readonly state: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly members: readonly ConsumerGroupMemberDescription[];
}

/** The member epoch a commit or fetch carries must be the member's: STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for a classic member. [ConsumerGroup.java `validateMemberEpoch`] */
function epochError(m: ConsumerGroupMember, received: number): KafkaError {
  if (m.memberEpoch === received) return 'NONE';
  return usesClassicProtocol(m) ? 'ILLEGAL_GENERATION' : 'STALE_MEMBER_EPOCH';
}

export class ConsumerGroupManager {
  constructor(private readonly h: ConsumerGroupManagerHost) {}

  private get trace(): Trace {
    return this.h.trace;
  }

  /** The group's effective consumer.session.timeout.ms / consumer.heartbeat.interval.ms (a group config wins). [GroupConfigManager] */
  sessionTimeoutMs(groupId: string): number {
    return this.groupInt(groupId, 'consumer.session.timeout.ms') ?? this.h.config['group.consumer.session.timeout.ms'];
  }

  heartbeatIntervalMs(groupId: string): number {
    return this.groupInt(groupId, 'consumer.heartbeat.interval.ms') ?? this.h.config['group.consumer.heartbeat.interval.ms'];
  }

  private groupInt(groupId: string, name: string): number | undefined {
    const v = this.h.metadata.groupConfig(groupId)?.get(name);
    return v === undefined ? undefined : Number(v);
  }

  private assignors(): ServerAssignor[] {
    return this.h.config['group.consumer.assignors'].map((n: ServerAssignorName) => SERVER_ASSIGNORS[n]);
  }

  // ---- ConsumerGroupHeartbeat [GroupCoordinatorService.java `consumerGroupHeartbeat`] ----

  heartbeat(shard: Shard, from: string, req: ConsumerGroupHeartbeatRequest, reply: (r: ConsumerGroupHeartbeatResponse) => void): void {
    const send = (error: KafkaError, message: string | null, body?: { memberId: string; memberEpoch: number; heartbeatIntervalMs: number; assignment: Assignment | null }): void =>
      reply({
        type: 'ConsumerGroupHeartbeatResponse',
        correlationId: req.correlationId,
        error,
        errorMessage: message,
        memberId: body?.memberId ?? null,
        memberEpoch: body?.memberEpoch ?? -1,
        heartbeatIntervalMs: body?.heartbeatIntervalMs ?? 0,
        assignment: body?.assignment ? { topicPartitions: this.toWire(body.assignment) } : null,
      });
    if (!this.h.config['group.coordinator.rebalance.protocols'].includes('consumer')) {
      return send('UNSUPPORTED_VERSION', 'The consumer group protocol is not enabled (group.coordinator.rebalance.protocols).');
    }
    const input: HeartbeatInput = {
      groupId: req.groupId,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: req.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicRegex,
      serverAssignor: req.serverAssignor,
      owned: req.topicPartitions === null ? null : this.fromWire(req.topicPartitions),
    };
    const groupId = req.groupId;
    if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      const group = shard.consumerGroups.get(groupId) ?? null;
      const r = consumerGroupLeave(group, input, this.assignors(), this.partitionCount);
      if (!r.ok) return send(r.error, r.message);
      const respond = (error: KafkaError): void => send(error, null, error === 'NONE' ? { memberId: req.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0, assignment: null } : undefined);
      if (!r.temporary && this.downgradesOnFence(group!, r.member.memberId)) {
        return this.downgrade(shard, group!, r.member, null, [], `member ${r.member.memberId} left, the last one of the consumer protocol`, respond, 'leave');
      }
      this.apply(shard, groupId, r.records, () => {
        if (r.temporary) this.traceMember(shard.consumerGroups.get(groupId)!, r.member.memberId);
        else this.onRemoved(shard, groupId, r.member, 'leave', 'the member left the group (epoch -1)');
      }, respond);
      return;
    }
    // A join to a group id held by a classic group: an empty one gives way (its offsets stay); a live one is
    // upgraded online when the policy allows it. [GroupMetadataManager.java `getOrMaybeCreateConsumerGroup`]
    const pre: CoordinatorRecord[] = [];
    const classic = shard.groups.get(groupId);
    let group = shard.consumerGroups.get(groupId) ?? null;
    let upgraded: ClassicGroupView | null = null;
    if (classic) {
      const live = classic.is('Empty') ? null : this.h.classic.view(shard, groupId);
      const refusal = req.memberEpoch !== 0 ? 'it is not a consumer group' : live ? onlineUpgradeRefusal(this.policy(), live.members.length, this.h.config['group.consumer.max.size']) : null;
      if (refusal !== null) return send('GROUP_ID_NOT_FOUND', `Group ${groupId} is not a consumer group: ${refusal}`);
      pre.push(groupMetadataRecord(groupId, null));
      if (live) {
        upgraded = live;
        pre.push(...consumerGroupRecordsFromClassic(live, this.partitionCount));
        // The rule runs against the group the records make; the shard gets it when they are applied.
        const scratch = new Map<string, ConsumerGroup>();
        this.replayInto(scratch, pre);
        group = scratch.get(groupId) ?? null;
      }
    }
    const outcome = consumerGroupHeartbeat(group, input, this.context(from, groupId));
    if (!outcome.ok) return send(outcome.error, outcome.message);
    if (upgraded) this.h.classic.release(shard, groupId);
    else if (classic) shard.groups.delete(groupId);
    const c = outcome.changes;
    this.apply(
      shard,
      groupId,
      [...pre, ...outcome.records],
      () => {
        if (classic) {
          const how = upgraded ? `online upgrade: ${c.member.memberId} joined with the consumer protocol` : 'the empty classic group gave way';
          this.trace.emit('group.convert', this.h.id, { group: groupId, from: 'classic', to: 'consumer', members: upgraded?.members.length ?? 0, reason: how });
          const g = shard.consumerGroups.get(groupId)!;
          for (const m of upgraded?.members ?? []) {
            this.traceMember(g, m.memberId);
            this.scheduleSessionTimeout(shard, groupId, m.memberId, m.sessionTimeoutMs);
          }
        }
        this.traceChanges(shard, groupId, from, c);
        this.scheduleSessionTimeout(shard, groupId, c.member.memberId);
        if (outcome.rebalanceTimeout === 'schedule') this.scheduleRebalanceTimeout(shard, groupId, c.member.memberId, c.member.memberEpoch, c.member.rebalanceTimeoutMs);
        else if (outcome.rebalanceTimeout === 'cancel') this.cancelTimer(shard, groupId, c.member.memberId, 'rebalance');
      },
      (error) => (error === 'NONE' ? send('NONE', null, outcome.response) : send(error, null)),
    );
  }

  private readonly partitionCount = (t: string): number => this.h.metadata.partitionCount(t);

  private policy(): MigrationPolicy {
    return this.h.config['group.consumer.migration.policy'];
  }

  private context(from: string, groupId: string): HeartbeatContext {
    return {
      clientId: from,
      clientHost: from,
      heartbeatIntervalMs: this.heartbeatIntervalMs(groupId),
      assignors: this.assignors(),
      maxSize: this.h.config['group.consumer.max.size'],
      partitionCount: this.partitionCount,
    };
  }

  /** The trace of a member's request: its join, the epoch, the target, its reconciliation. */
  private traceChanges(shard: Shard, groupId: string, from: string, c: HeartbeatChanges): void {
    const g = shard.consumerGroups.get(groupId);
    if (!g) return;
    if (c.joined) this.trace.emit('group.member.join', this.h.id, { group: groupId, memberId: c.member.memberId, groupInstanceId: c.member.instanceId, clientId: from, replaced: c.replaced });
    if (c.replaced !== null) this.cancelMemberTimers(shard, groupId, c.replaced);
    if (c.epochBump) this.trace.emit('group.consumer.epoch', this.h.id, { group: groupId, epoch: c.epochBump.epoch, reason: c.epochBump.reason, members: g.members.size });
    if (c.target) {
      const assignment: Record<string, string[]> = {};
      for (const [id, a] of c.target.assignment) assignment[id] = assignmentKeys(a);
      this.trace.emit('group.consumer.target', this.h.id, { group: groupId, epoch: c.target.epoch, assignor: c.target.assignor, assignment });
    }
    if (c.reconciled || c.joined) this.traceMember(g, c.member.memberId);
  }

  /**
   * Replays `records` into the shard (then `after` traces and arms timers), writes them, and calls `respond` once
   * they are committed (or, with no records, once every earlier write is). A write that fails before reaching the
   * log undoes the replay.
   */
  private apply(shard: Shard, groupId: string, records: readonly CoordinatorRecord[], after: () => void, respond: (error: KafkaError) => void): void {
    const before = shard.consumerGroups.get(groupId)?.clone() ?? null;
    this.replay(shard, records);
    after();
    if (records.length === 0) {
      shard.afterPendingWrites(() => respond('NONE'));
      return;
    }
    this.h.write(shard, records, (error, sync) => {
      if (error !== 'NONE' && sync && this.h.isCurrent(shard)) {
        if (before) shard.consumerGroups.set(groupId, before);
        else shard.consumerGroups.delete(groupId);
      }
      respond(error === 'NONE' ? 'NONE' : appendErrorToResponseError(error));
    });
  }

  /** Applies consumer-group records to the shard's groups (classic records are handled by the caller). */
  replay(shard: Shard, records: readonly CoordinatorRecord[]): void {
    this.replayInto(shard.consumerGroups, records);
  }

  private replayInto(groups: Map<string, ConsumerGroup>, records: readonly CoordinatorRecord[]): void {
    for (const r of records) {
      const k = consumerGroupKeyOf(JSON.parse(r.key) as unknown[]);
      if (k) replayConsumerGroupRecord(groups, k, r.value);
    }
  }

  // ---- classic members of a consumer group [GroupMetadataManager.java `classicGroup*ToConsumerGroup`] ----

  /** Whether a JoinGroup for `groupId` is this manager's: a consumer group with members holds the id. */
  servesClassic(shard: Shard, groupId: string): boolean {
    const g = shard.consumerGroups.get(groupId);
    return g !== undefined && !g.isEmpty();
  }

  classicJoin(shard: Shard, from: string, req: JoinGroupRequest, newMemberId: string, send: (r: JoinGroupResult) => void): void {
    const groupId = req.groupId;
    const group = shard.consumerGroups.get(groupId)!;
    const outcome = classicJoinToConsumerGroup(
      group,
      { groupId, memberId: req.memberId, instanceId: req.groupInstanceId, sessionTimeoutMs: req.sessionTimeoutMs, rebalanceTimeoutMs: req.rebalanceTimeoutMs, protocolType: req.protocolType, protocols: req.protocols },
      newMemberId,
      { ...this.context(from, groupId), classicMaxSize: this.h.config['group.max.size'], downgradeEnabled: downgradeEnabled(this.policy()) },
    );
    if (!outcome.ok) return send(joinError(outcome.error, outcome.memberId));
    if (outcome.memberIdRequired) return send(joinError('MEMBER_ID_REQUIRED', outcome.memberId));
    const r = outcome.response;
    const c = outcome.changes;
    const joined = (): JoinGroupResult => ({ error: 'NONE', generationId: r.generationId, protocolName: r.protocolName, leader: '', skipAssignment: false, memberId: r.memberId, members: [] });
    if (outcome.downgradeReplacing !== null) {
      // The classic static member replaced the last consumer-protocol member: the group turns classic, without a rebalance.
      const leaving = group.members.get(outcome.downgradeReplacing)!;
      return this.downgrade(shard, group, leaving, c.member, outcome.records, `static member ${c.member.instanceId} came back with the classic protocol`, (error) =>
        send(error === 'NONE' ? joined() : joinError(error, r.memberId)), 'replaced');
    }
    this.apply(
      shard,
      groupId,
      outcome.records,
      () => this.traceChanges(shard, groupId, from, c),
      (error) => {
        if (error !== 'NONE') return send(joinError(error, r.memberId));
        // It must now sync within its rebalance timeout; its session is the one it asked for. [`classicGroupJoinToConsumerGroup`]
        if (this.h.isCurrent(shard) && shard.consumerGroups.get(groupId)?.members.has(r.memberId)) {
          this.cancelTimer(shard, groupId, r.memberId, 'join');
          this.scheduleSessionTimeout(shard, groupId, r.memberId, req.sessionTimeoutMs);
          this.scheduleTimeout(shard, groupId, r.memberId, 'sync', req.rebalanceTimeoutMs, 'the member failed to sync within the rebalance timeout');
        }
        send(joined());
      },
    );
  }

  classicSync(shard: Shard, req: SyncGroupRequest, send: (r: SyncGroupResult) => void): void {
    const group = shard.consumerGroups.get(req.groupId)!;
    const r = classicSyncToConsumerGroup(group, req);
    if (r.rejoin) this.scheduleJoinTimeoutIfAbsent(shard, req.groupId, r.member!);
    if (r.error !== 'NONE') return send({ error: r.error, partitions: [] });
    const m = r.member!;
    shard.afterPendingWrites(() => {
      if (this.h.isCurrent(shard)) {
        this.cancelTimer(shard, req.groupId, m.memberId, 'sync');
        this.scheduleSessionTimeout(shard, req.groupId, m.memberId, m.classicMemberMetadata!.sessionTimeoutMs);
      }
      send({ error: 'NONE', partitions: assignmentPartitions(m.assignedPartitions) });
    });
  }

  classicHeartbeat(shard: Shard, req: HeartbeatRequest): KafkaError {
    const group = shard.consumerGroups.get(req.groupId)!;
    const r = classicHeartbeatToConsumerGroup(group, req);
    if (r.member) {
      this.scheduleSessionTimeout(shard, req.groupId, r.member.memberId, r.member.classicMemberMetadata!.sessionTimeoutMs);
      if (r.error === 'REBALANCE_IN_PROGRESS') this.scheduleJoinTimeoutIfAbsent(shard, req.groupId, r.member);
    }
    return r.error;
  }

  classicLeave(shard: Shard, req: LeaveGroupRequest, reply: (error: KafkaError) => void): void {
    const groupId = req.groupId;
    const group = shard.consumerGroups.get(groupId)!;
    const r = classicLeaveToConsumerGroup(group, req.members, this.partitionCount);
    const firstError = r.errors.find((e) => e !== 'NONE') ?? 'NONE';
    this.apply(
      shard,
      groupId,
      r.records,
      () => {
        for (const m of r.removed) {
          const reason = req.members.find((x) => x.memberId === m.memberId || (x.groupInstanceId !== null && x.groupInstanceId === m.instanceId))?.reason ?? '';
          this.onRemoved(shard, groupId, m, 'leave', reason);
        }
      },
      (error) => reply(error !== 'NONE' ? error : firstError),
    );
  }

  // ---- online downgrade [GroupMetadataManager.java `convertToClassicGroup`] ----

  private downgradesOnFence(group: ConsumerGroup, memberId: string): boolean {
    return downgradeOnFence(group, memberId, this.policy(), this.h.config['group.max.size']);
  }

  /**
   * The consumer group becomes classic: its records go (after `records`, the request's own), the classic group
   * takes the others with their targets (a leave or fence starts a rebalance; a static replacement does not).
   */
  private downgrade(
    shard: Shard,
    group: ConsumerGroup,
    leaving: ConsumerGroupMember,
    joining: ConsumerGroupMember | null,
    records: readonly CoordinatorRecord[],
    reason: string,
    respond: (error: KafkaError) => void,
    how: 'leave' | 'expire' | 'replaced',
  ): void {
    const groupId = group.groupId;
    const view = classicGroupFromConsumer(group, leaving.memberId, joining);
    const tombstones = groupTombstones(group);
    if (joining) tombstones.unshift(...memberTombstones(groupId, joining.memberId));
    for (const m of group.members.values()) this.cancelMemberTimers(shard, groupId, m.memberId);
    if (how !== 'replaced') this.trace.emit(how === 'leave' ? 'group.member.leave' : 'group.member.expire', this.h.id, { group: groupId, memberId: leaving.memberId, groupInstanceId: leaving.instanceId, reason });
    shard.consumerGroups.delete(groupId);
    this.trace.emit('group.convert', this.h.id, { group: groupId, from: 'consumer', to: 'classic', members: view.members.length, reason: `online downgrade: ${reason}` });
    const classicRecord = this.h.classic.adopt(shard, view, joining ? null : reason);
    const all = [...records, ...tombstones, classicRecord];
    this.h.write(shard, all, (error) => respond(error === 'NONE' ? 'NONE' : appendErrorToResponseError(error)));
  }

  // ---- removal: leave, session timeout, rebalance timeout [GroupMetadataManager.java `consumerGroupFenceMember`] ----

  private onRemoved(shard: Shard, groupId: string, member: ConsumerGroupMember, how: 'leave' | 'expire', reason: string): void {
    this.cancelMemberTimers(shard, groupId, member.memberId);
    const g = shard.consumerGroups.get(groupId);
    const kind = how === 'leave' ? 'group.member.leave' : 'group.member.expire';
    this.trace.emit(kind, this.h.id, { group: groupId, memberId: member.memberId, groupInstanceId: member.instanceId, reason });
    if (g) this.trace.emit('group.consumer.epoch', this.h.id, { group: groupId, epoch: g.groupEpoch, reason: `member ${member.memberId} ${how === 'leave' ? 'left' : 'was removed'}`, members: g.members.size });
  }

  private fence(shard: Shard, groupId: string, memberId: string, reason: string): void {
    if (!this.h.isCurrent(shard)) return;
    const g = shard.consumerGroups.get(groupId);
    const m = g?.members.get(memberId);
    if (!g || !m) return;
    if (this.downgradesOnFence(g, memberId)) return this.downgrade(shard, g, m, null, [], reason, () => {}, 'expire');
    this.apply(shard, groupId, fenceMember(g, memberId, this.partitionCount), () => this.onRemoved(shard, groupId, m, 'expire', reason), () => {});
  }

  private timersOf(shard: Shard, groupId: string, memberId: string): MemberTimers {
    const key = `${groupId}\u0000${memberId}`;
    let t = shard.memberTimers.get(key);
    if (!t) shard.memberTimers.set(key, (t = { session: NO_TIMER, rebalance: NO_TIMER, join: NO_TIMER, sync: NO_TIMER }));
    return t;
  }

  /**
   * The member's session: the group's consumer.session.timeout.ms for a consumer-protocol member, the JoinGroup's
   * session.timeout.ms for a classic one. [GroupMetadataManager.java `scheduleConsumerGroupSessionTimeout`]
   */
  private scheduleSessionTimeout(shard: Shard, groupId: string, memberId: string, timeoutMs = this.sessionTimeoutMs(groupId)): void {
    this.scheduleTimeout(shard, groupId, memberId, 'session', timeoutMs, `session timeout (${timeoutMs} ms)`);
  }

  private scheduleTimeout(shard: Shard, groupId: string, memberId: string, which: 'session' | 'join' | 'sync', timeoutMs: number, reason: string): void {
    const t = this.timersOf(shard, groupId, memberId);
    this.h.cancelTimer(t[which]);
    t[which] = this.h.setTimer(ms(timeoutMs), () => this.fence(shard, groupId, memberId, reason));
  }

  /** A classic member told to rejoin must do so within its rebalance timeout. [`scheduleConsumerGroupJoinTimeoutIfAbsent`] */
  private scheduleJoinTimeoutIfAbsent(shard: Shard, groupId: string, m: ConsumerGroupMember): void {
    if (this.timersOf(shard, groupId, m.memberId).join !== NO_TIMER) return;
    this.scheduleTimeout(shard, groupId, m.memberId, 'join', m.rebalanceTimeoutMs, `the classic member failed to rejoin within the rebalance timeout (${m.rebalanceTimeoutMs} ms)`);
  }

  /** Fences the member if it is still at `epoch` (has not revoked) when the timeout fires. [`scheduleConsumerGroupRebalanceTimeout`] */
  private scheduleRebalanceTimeout(shard: Shard, groupId: string, memberId: string, epoch: number, timeoutMs: number): void {
    const t = this.timersOf(shard, groupId, memberId);
    this.h.cancelTimer(t.rebalance);
    t.rebalance = this.h.setTimer(ms(timeoutMs), () => {
      const m = shard.consumerGroups.get(groupId)?.members.get(memberId);
      if (m && m.memberEpoch === epoch) this.fence(shard, groupId, memberId, `did not revoke its partitions within the rebalance timeout (${timeoutMs} ms) at epoch ${epoch}`);
    });
  }

  private cancelTimer(shard: Shard, groupId: string, memberId: string, which: keyof MemberTimers): void {
    const t = shard.memberTimers.get(`${groupId}\u0000${memberId}`);
    if (!t) return;
    this.h.cancelTimer(t[which]);
    t[which] = NO_TIMER;
  }

  private cancelMemberTimers(shard: Shard, groupId: string, memberId: string): void {
    const key = `${groupId}\u0000${memberId}`;
    const t = shard.memberTimers.get(key);
    if (!t) return;
    for (const id of Object.values(t)) this.h.cancelTimer(id);
    shard.memberTimers.delete(key);
  }

  /** A freshly loaded shard: every member gets a new session; members still revoking a new rebalance timeout. [GroupMetadataManager.java `onLoaded`] */
  onLoaded(shard: Shard): void {
    for (const [groupId, g] of shard.consumerGroups) {
      for (const m of g.members.values()) {
        this.scheduleSessionTimeout(shard, groupId, m.memberId);
        if (m.state === 'UNREVOKED_PARTITIONS' && !usesClassicProtocol(m)) this.scheduleRebalanceTimeout(shard, groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
  }

  onUnloaded(shard: Shard): void {
    for (const t of shard.memberTimers.values()) for (const id of Object.values(t)) this.h.cancelTimer(id);
    shard.memberTimers.clear();
  }

  // ---- offsets [ConsumerGroup.java `validateOffsetCommit`, `validateOffsetFetch`] ----

  /** NONE, UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH (ILLEGAL_GENERATION for a classic member) for a commit to a consumer group. */
  validateOffsetCommit(g: ConsumerGroup, memberId: string, memberEpoch: number): KafkaError {
    // Epoch -1 is an admin or a consumer outside group management: allowed while the group is empty.
    if (memberEpoch < 0 && g.isEmpty()) return 'NONE';
    const m = g.members.get(memberId);
    if (!m) return 'UNKNOWN_MEMBER_ID';
    return epochError(m, memberEpoch);
  }

  validateOffsetFetch(g: ConsumerGroup, memberId: string | null, memberEpoch: number): KafkaError {
    if (memberId === null && memberEpoch < 0) return 'NONE';
    const m = memberId === null ? undefined : g.members.get(memberId);
    if (!m) return 'UNKNOWN_MEMBER_ID';
    return epochError(m, memberEpoch);
  }

  /**
   * A classic JoinGroup for a group id held by an empty consumer group: it gives way (the records delete it).
   * [GroupMetadataManager.java `classicGroupJoin`, `maybeDeleteEmptyConsumerGroup`]
   */
  giveWayToClassic(shard: Shard, groupId: string): CoordinatorRecord[] {
    const g = shard.consumerGroups.get(groupId);
    if (!g || !g.isEmpty()) return [];
    shard.consumerGroups.delete(groupId);
    this.trace.emit('group.convert', this.h.id, { group: groupId, from: 'consumer', to: 'classic', members: 0, reason: 'the empty consumer group gave way' });
    return groupTombstones(g);
  }

  // ---- traces and inspection ----

  private traceMember(g: ConsumerGroup, memberId: string): void {
    const m = g.members.get(memberId);
    if (!m) return;
    this.trace.emit('group.consumer.member', this.h.id, {
      group: g.groupId,
      memberId,
      instanceId: m.instanceId,
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assigned: assignmentKeys(m.assignedPartitions),
      revoking: assignmentKeys(m.partitionsPendingRevocation),
      target: assignmentKeys(g.targetOf(memberId, m.instanceId)),
    });
  }

  describe(g: ConsumerGroup): ConsumerGroupDescription {
    return {
      groupId: g.groupId,
      state: g.state,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      members: [...g.members.values()].map((m) => {
        const target = g.targetOf(m.memberId, m.instanceId);
        return {
          memberId: m.memberId,
          instanceId: m.instanceId,
          clientId: m.clientId,
          protocol: usesClassicProtocol(m) ? ('classic' as const) : ('consumer' as const),
          memberEpoch: m.memberEpoch,
          state: m.state,
          assigned: assignmentKeys(m.assignedPartitions),
          revoking: assignmentKeys(m.partitionsPendingRevocation),
          target: assignmentKeys(target),
          waiting: assignmentKeys(assignmentMinus(target, m.assignedPartitions)),
        };
      }),
    };
  }

  // ---- topic ids at the wire ----

  private toWire(a: Assignment): ConsumerGroupHeartbeatTopicPartitions[] {
    const out: ConsumerGroupHeartbeatTopicPartitions[] = [];
    for (const [t, ps] of a) out.push({ topicId: this.h.metadata.topicId(t) ?? t, partitions: [...ps] });
    return out;
  }

  /** Owned partitions by topic id; ids the metadata does not know are dropped (Kafka's TopicIds resolves lazily). */
  private fromWire(tps: readonly ConsumerGroupHeartbeatTopicPartitions[]): Assignment {
    const out: [string, readonly number[]][] = [];
    for (const tp of tps) {
      const name = this.h.metadata.topicName(tp.topicId);
      if (name !== undefined) out.push([name, tp.partitions]);
    }
    return assignmentOf(out);
  }
}

