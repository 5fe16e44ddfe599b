/**
 * The consumer groups (KIP-848) of a group coordinator: serves ConsumerGroupHeartbeat with the pure rules of
 * consumer/consumerGroupHeartbeat.ts, replays the records they return into the shard (the only way a group
 * changes), writes them to `__consumer_offsets` and answers once they are committed; runs each member's session
 * timeout (consumer.session.timeout.ms) and rebalance timeout (its max.poll.interval.ms, armed while it must
 * revoke); validates offset commits and fetches against member epochs; converts an empty group between the
 * classic and the consumer protocol. [group-coordinator/.../GroupMetadataManager.java (consumer groups),
 * GroupCoordinatorService.java `consumerGroupHeartbeat`]
 */
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import { defineKinds, list, nullable, num, record, str, type KindsOf } from '../../core/traceSchema';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import { type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse, type ConsumerGroupHeartbeatTopicPartitions } from '../protocol';
import { appendErrorToResponseError } from './classicGroupValidation';
import { assignmentKeys, assignmentMinus, assignmentOf, type Assignment } from './consumer/assignment';
import type { ServerAssignor } from './consumer/assignor/groupSpec';
import { SERVER_ASSIGNORS, type ServerAssignorName } from './consumer/assignor/serverAssignors';
import type { ConsumerGroup } from './consumer/consumerGroup';
import { consumerGroupHeartbeat, consumerGroupLeave, fenceMember, type HeartbeatInput } from './consumer/consumerGroupHeartbeat';
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, type ConsumerGroupMember } from './consumer/consumerGroupMember';
import { consumerGroupKeyOf, groupTombstones, replayConsumerGroupRecord } from './consumer/consumerGroupRecords';
import type { GroupCoordinatorShard as Shard } from './groupCoordinatorShard';
import { groupMetadataRecord } from './groupCoordinatorRecords';
import type { CoordinatorRecord } from './storage';

/** The consumer groups' (KIP-848) decisions. */
export const CONSUMER_GROUP_KINDS = defineKinds({
  /** A consumer group's epoch moved (a member joined, left or changed its subscription, or subscribed topics changed). */
  'group.consumer.epoch': { group: str, epoch: num, reason: str },
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
  /** A group was converted between protocols (`to`: classic or consumer); only an empty group converts here. */
  'group.convert': { group: str, from: str, to: str },
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
>;

/** A member as `kafka-consumer-groups --describe --members` shows it (inspection only). */
export interface ConsumerGroupMemberDescription {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
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
      const r = consumerGroupLeave(group, input, this.assignors(), (t) => this.h.metadata.partitionCount(t));
      if (!r.ok) return send(r.error, r.message);
      this.apply(shard, groupId, r.records, () => {
        if (r.temporary) this.traceMember(shard.consumerGroups.get(groupId)!, r.member.memberId);
        else this.onRemoved(shard, groupId, r.member, 'leave', 'the member left the group (epoch -1)');
      }, (error) => send(error, null, error === 'NONE' ? { memberId: req.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0, assignment: null } : undefined));
      return;
    }
    // A join to a group id held by a classic group: an empty one gives way (its offsets stay); a live one would
    // need an online upgrade. [GroupMetadataManager.java `getOrMaybeCreateConsumerGroup`]
    const pre: CoordinatorRecord[] = [];
    const classic = shard.groups.get(groupId);
    if (classic) {
      if (req.memberEpoch !== 0 || !classic.is('Empty')) {
        return send('GROUP_ID_NOT_FOUND', `Group ${groupId} is not a consumer group${classic.is('Empty') ? '' : ' (the simulator does not migrate a non-empty classic group online)'}`);
      }
      pre.push(groupMetadataRecord(groupId, null));
    }
    const group = shard.consumerGroups.get(groupId) ?? null;
    const outcome = consumerGroupHeartbeat(group, input, {
      clientId: from,
      clientHost: from,
      heartbeatIntervalMs: this.heartbeatIntervalMs(groupId),
      assignors: this.assignors(),
      maxSize: this.h.config['group.consumer.max.size'],
      partitionCount: (t) => this.h.metadata.partitionCount(t),
    });
    if (!outcome.ok) return send(outcome.error, outcome.message);
    const c = outcome.changes;
    this.apply(
      shard,
      groupId,
      [...pre, ...outcome.records],
      () => {
        if (classic) {
          shard.groups.delete(groupId);
          this.trace.emit('group.convert', this.h.id, { group: groupId, from: 'classic', to: 'consumer' });
        }
        const g = shard.consumerGroups.get(groupId)!;
        if (c.joined) this.trace.emit('group.member.join', this.h.id, { group: groupId, memberId: c.member.memberId, groupInstanceId: c.member.instanceId, clientId: from, replaced: c.replaced });
        if (c.replaced !== null) this.cancelMemberTimers(shard, groupId, c.replaced);
        if (c.epochBump) this.trace.emit('group.consumer.epoch', this.h.id, { group: groupId, epoch: c.epochBump.epoch, reason: c.epochBump.reason });
        if (c.target) {
          const assignment: Record<string, string[]> = {};
          for (const [id, a] of c.target.assignment) assignment[id] = assignmentKeys(a);
          this.trace.emit('group.consumer.target', this.h.id, { group: groupId, epoch: c.target.epoch, assignor: c.target.assignor, assignment });
        }
        if (c.reconciled || c.joined) this.traceMember(g, c.member.memberId);
        this.scheduleSessionTimeout(shard, groupId, c.member.memberId);
        if (outcome.rebalanceTimeout === 'schedule') this.scheduleRebalanceTimeout(shard, groupId, c.member.memberId, c.member.memberEpoch, c.member.rebalanceTimeoutMs);
        else if (outcome.rebalanceTimeout === 'cancel') this.cancelRebalanceTimeout(shard, groupId, c.member.memberId);
      },
      (error) => (error === 'NONE' ? send('NONE', null, outcome.response) : send(error, null)),
    );
  }

  /**
   * Replays `records` into the shard (then `after` traces and arms timers), writes them, and calls `respond` once
   * they are committed (or, with no records, once every earlier write is). A write that fails before reaching the
   * log undoes the replay.
   */
  private apply(shard: Shard, groupId: string, records: readonly CoordinatorRecord[], after: () => void, respond: (error: KafkaError) => void): void {
    const before = shard.consumerGroups.get(groupId)?.clone() ?? null;
    const classicBefore = shard.groups.get(groupId);
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
        if (classicBefore) shard.groups.set(groupId, classicBefore);
      }
      respond(error === 'NONE' ? 'NONE' : appendErrorToResponseError(error));
    });
  }

  /** Applies consumer-group records to the shard's groups (classic records are handled by the caller). */
  replay(shard: Shard, records: readonly CoordinatorRecord[]): void {
    for (const r of records) {
      const k = consumerGroupKeyOf(JSON.parse(r.key) as unknown[]);
      if (k) replayConsumerGroupRecord(shard.consumerGroups, k, r.value);
    }
  }

  // ---- removal: leave, session timeout, rebalance timeout [GroupMetadataManager.java `consumerGroupFenceMember`] ----

  private onRemoved(shard: Shard, groupId: string, member: ConsumerGroupMember, how: 'leave' | 'expire', reason: string): void {
    this.cancelMemberTimers(shard, groupId, member.memberId);
    const g = shard.consumerGroups.get(groupId);
    const kind = how === 'leave' ? 'group.member.leave' : 'group.member.expire';
    this.trace.emit(kind, this.h.id, { group: groupId, memberId: member.memberId, groupInstanceId: member.instanceId, reason });
    if (g) this.trace.emit('group.consumer.epoch', this.h.id, { group: groupId, epoch: g.groupEpoch, reason: `member ${member.memberId} ${how === 'leave' ? 'left' : 'was removed'}` });
  }

  private fence(shard: Shard, groupId: string, memberId: string, reason: string): void {
    if (!this.h.isCurrent(shard)) return;
    const g = shard.consumerGroups.get(groupId);
    const m = g?.members.get(memberId);
    if (!g || !m) return;
    this.apply(shard, groupId, fenceMember(g, memberId, (t) => this.h.metadata.partitionCount(t)), () => this.onRemoved(shard, groupId, m, 'expire', reason), () => {});
  }

  private timersOf(shard: Shard, groupId: string, memberId: string): { session: TimerId; rebalance: TimerId } {
    const key = `${groupId}\u0000${memberId}`;
    let t = shard.memberTimers.get(key);
    if (!t) shard.memberTimers.set(key, (t = { session: NO_TIMER, rebalance: NO_TIMER }));
    return t;
  }

  /** [GroupMetadataManager.java `scheduleConsumerGroupSessionTimeout`] */
  private scheduleSessionTimeout(shard: Shard, groupId: string, memberId: string): void {
    const t = this.timersOf(shard, groupId, memberId);
    this.h.cancelTimer(t.session);
    const timeoutMs = this.sessionTimeoutMs(groupId);
    t.session = this.h.setTimer(ms(timeoutMs), () => this.fence(shard, groupId, memberId, `session timeout (${timeoutMs} ms)`));
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

  private cancelRebalanceTimeout(shard: Shard, groupId: string, memberId: string): void {
    const t = this.timersOf(shard, groupId, memberId);
    this.h.cancelTimer(t.rebalance);
    t.rebalance = NO_TIMER;
  }

  private cancelMemberTimers(shard: Shard, groupId: string, memberId: string): void {
    const key = `${groupId}\u0000${memberId}`;
    const t = shard.memberTimers.get(key);
    if (!t) return;
    this.h.cancelTimer(t.session);
    this.h.cancelTimer(t.rebalance);
    shard.memberTimers.delete(key);
  }

  /** A freshly loaded shard: every member gets a new session; members still revoking a new rebalance timeout. [GroupMetadataManager.java `onLoaded`] */
  onLoaded(shard: Shard): void {
    for (const [groupId, g] of shard.consumerGroups) {
      for (const m of g.members.values()) {
        this.scheduleSessionTimeout(shard, groupId, m.memberId);
        if (m.state === 'UNREVOKED_PARTITIONS') this.scheduleRebalanceTimeout(shard, groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
  }

  onUnloaded(shard: Shard): void {
    for (const t of shard.memberTimers.values()) {
      this.h.cancelTimer(t.session);
      this.h.cancelTimer(t.rebalance);
    }
    shard.memberTimers.clear();
  }

  // ---- offsets [ConsumerGroup.java `validateOffsetCommit`, `validateOffsetFetch`] ----

  /** NONE, UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH for a commit to a consumer group. */
  validateOffsetCommit(g: ConsumerGroup, memberId: string, memberEpoch: number): KafkaError {
    // Epoch -1 is an admin or a consumer outside group management: allowed while the group is empty.
    if (memberEpoch < 0 && g.isEmpty()) return 'NONE';
    const m = g.members.get(memberId);
    if (!m) return 'UNKNOWN_MEMBER_ID';
    return m.memberEpoch === memberEpoch ? 'NONE' : 'STALE_MEMBER_EPOCH';
  }

  validateOffsetFetch(g: ConsumerGroup, memberId: string | null, memberEpoch: number): KafkaError {
    if (memberId === null && memberEpoch < 0) return 'NONE';
    const m = memberId === null ? undefined : g.members.get(memberId);
    if (!m) return 'UNKNOWN_MEMBER_ID';
    return m.memberEpoch === memberEpoch ? 'NONE' : 'STALE_MEMBER_EPOCH';
  }

  /**
   * A classic JoinGroup for a group id held by a consumer group: an empty one gives way (the records delete it),
   * a live one cannot take classic members here. [GroupMetadataManager.java `classicGroupJoin`, `maybeDeleteEmptyConsumerGroup`]
   */
  classicJoin(shard: Shard, groupId: string): { ok: true; records: CoordinatorRecord[] } | { ok: false; error: KafkaError } {
    const g = shard.consumerGroups.get(groupId);
    if (!g) return { ok: true, records: [] };
    if (!g.isEmpty()) return { ok: false, error: 'INCONSISTENT_GROUP_PROTOCOL' };
    shard.consumerGroups.delete(groupId);
    this.trace.emit('group.convert', this.h.id, { group: groupId, from: 'consumer', to: 'classic' });
    return { ok: true, records: groupTombstones(g) };
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

