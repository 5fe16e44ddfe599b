/**
 * The member side of the classic group protocol and of offset commits [clients/.../consumer/internals/
 * AbstractCoordinator.java, ConsumerCoordinator.java]: finding the coordinator, JoinGroup (with
 * MEMBER_ID_REQUIRED), the leader's assignment, SyncGroup, the heartbeat thread (session and
 * max.poll.interval.ms), revocation before and after a rebalance (eager / cooperative), commits, LeaveGroup.
 *
 * As in Kafka, the rebalance itself only moves forward inside poll(): the heartbeat thread merely learns that a
 * rebalance is needed; the application thread revokes, joins and takes on the new assignment when it polls.
 */
import type { Random } from '../../../core/random';
import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import { ms, type Micros } from '../../../core/time';
import type { Trace } from '../../../core/trace';
import type { ConsumerConfig } from '../../config/configs';
import type { KafkaError } from '../../errors';
import { isRetriable, KAFKA_ERRORS } from '../../errors';
import {
  DEFAULT_GENERATION,
  type GroupSubscription,
  type RebalanceProtocol,
} from './assignors/consumerPartitionAssignor';
import { assignorFor, rebalanceProtocolFor } from './assignors/partitionAssignmentStrategy';
import type { NetworkClient } from '../../net/networkClient';
import {
  tpKey,
  type HeartbeatResponse,
  type JoinGroupMember,
  type JoinGroupProtocol,
  type JoinGroupResponse,
  type LeaveGroupResponse,
  type SyncGroupResponse,
  type TopicPartition,
} from '../../protocol';
import { retryBackoff, type ExponentialBackoff } from '../backoff';
import type { ClientMetadata } from '../metadataCache';
import { afterSync, beforeJoin } from './assignmentChange';
import './consumerHistory';
import { CoordinatorDiscovery } from './coordinatorDiscovery';
import { GroupOffsets, type CommitIdentity, type CommitKind, type CommitOffsets, type CommitRefusal, type CommitResult } from './groupOffsets';
import type { GroupMembership } from './groupMembership';
import { HeartbeatTimers } from './heartbeat';
import type { SubscriptionState } from './subscriptionState';

export type MemberState = 'UNJOINED' | 'PREPARING_REBALANCE' | 'COMPLETING_REBALANCE' | 'STABLE';

export interface Generation {
  readonly generationId: number;
  readonly memberId: string;
  readonly protocolName: string | null;
}

/** [AbstractCoordinator.Generation.NO_GENERATION] */
export const NO_GENERATION: Generation = { generationId: DEFAULT_GENERATION, memberId: '', protocolName: null };

/** Extra time a JoinGroup may take beyond the rebalance timeout. [AbstractCoordinator.java `JOIN_GROUP_TIMEOUT_LAPSE`] */
export const JOIN_GROUP_TIMEOUT_LAPSE_MS = 5000;

export type { CommitKind, CommitOffsets, CommitResult };

export interface ConsumerCoordinatorHost {
  readonly id: string;
  readonly now: Micros;
  readonly trace: Trace;
  readonly random: Random;
  readonly net: NetworkClient;
  readonly metadata: ClientMetadata;
  readonly subscriptions: SubscriptionState;
  readonly config: ConsumerConfig;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  leastLoadedNode(): number;
  requestMetadata(): void;
  /** Something a waiting poll() may want has happened. */
  wake(): void;
  /** Partitions left this member: their buffered data is void. */
  partitionsRemoved(keys: readonly string[]): void;
  fatal(error: string, detail: string): void;
}

type JoinOutcome = { readonly ok: true; readonly assignment: readonly TopicPartition[]; readonly generation: Generation } | { readonly ok: false; readonly error: string };

/** Errors after which a JoinGroup is simply sent again, at once. [AbstractCoordinator.java `joinGroupIfNeeded`] */
const REJOIN_AT_ONCE = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS', 'MEMBER_ID_REQUIRED']);

export class ConsumerCoordinator implements GroupMembership {
  readonly groupId: string;
  readonly groupInstanceId: string | null;
  readonly protocol: RebalanceProtocol;
  state: MemberState = 'UNJOINED';
  generation: Generation = NO_GENERATION;
  private readonly discovery: CoordinatorDiscovery;
  private rejoinNeeded = true;
  private needsJoinPrepare = true;
  private rejoinReason = 'initial join';
  private join: { done: boolean; outcome: JoinOutcome | null } | null = null;
  private joinRetryAtUs = 0;
  private joinPrepare: { deadlineUs: Micros; commit: CommitResult | null; retryAtUs: Micros } | null = null;
  private isLeader = false;
  /** The member's last assignment and its generation (sticky's user data). */
  private lastAssignment: readonly TopicPartition[] = [];
  private lastAssignmentGeneration = DEFAULT_GENERATION;
  /** Partition counts the leader assigned with: a change calls for a new rebalance. */
  private assignedWithCounts: Map<string, number> | null = null;
  private readonly heartbeat: HeartbeatTimers;
  private heartbeatEnabled = false;
  private heartbeatTimer: TimerId = NO_TIMER;
  private heartbeatTimerAt = Infinity;
  private readonly backoff: ExponentialBackoff;
  private nextAutoCommitUs: Micros;
  private readonly offsets: GroupOffsets;
  /** Where the current rebalance started at this member, and what it stopped processing then. */
  private rebalanceStart: { readonly atUs: Micros; readonly paused: readonly string[] } | null = null;
  private closed = false;
  failed = false;

  constructor(private readonly host: ConsumerCoordinatorHost) {
    const c = host.config;
    this.groupId = c['group.id']!;
    this.groupInstanceId = c['group.instance.id'];
    this.protocol = rebalanceProtocolFor(c['partition.assignment.strategy']);
    this.backoff = retryBackoff(c['retry.backoff.ms'], c['retry.backoff.max.ms'], host.random.fork('coordinator-backoff'));
    this.heartbeat = new HeartbeatTimers(c['heartbeat.interval.ms'], c['session.timeout.ms'], c['max.poll.interval.ms'], this.backoff, host.now);
    this.discovery = new CoordinatorDiscovery(host, this.groupId, () => {
      // A fresh coordinator: the session starts again. [AbstractCoordinator.java `FindCoordinatorResponseHandler`]
      this.heartbeat.resetSessionTimeout(this.now);
      this.scheduleHeartbeat(this.now);
    });
    this.offsets = new GroupOffsets(host, this.discovery, this.groupId, () => this.generation.memberId);
    this.nextAutoCommitUs = host.now + ms(c['auto.commit.interval.ms']);
  }

  private get now(): Micros {
    return this.host.now;
  }

  private get autoCommitEnabled(): boolean {
    return this.host.config['enable.auto.commit'];
  }

  get coordinatorId(): number | null {
    return this.discovery.coordinator;
  }

  private get coordinator(): number | null {
    return this.discovery.coordinator;
  }

  get memberId(): string {
    return this.generation.memberId;
  }

  get generationId(): number {
    return this.generation.generationId;
  }

  /** Set at each completed join only (Kafka does not reset it with the generation). [src: ConsumerCoordinator.java `onJoinComplete`] */
  joinedGroupMetadata: { generationId: number; memberId: string } = { generationId: -1, memberId: '' };

  get rebalanceInProgress(): boolean {
    return this.state === 'PREPARING_REBALANCE' || this.state === 'COMPLETING_REBALANCE';
  }

  /**
   * One pass of ConsumerCoordinator.poll (with a zero join wait): keeps the member's poll clock, finds the
   * coordinator, moves a rebalance forward, and auto-commits when due. True when the group is usable now.
   */
  poll(): boolean {
    if (this.closed || this.failed) return false;
    const subscribed = this.host.subscriptions.hasAutoAssignedPartitions;
    if (subscribed) {
      this.heartbeat.poll(this.now);
      if (!this.ensureCoordinatorReady()) return false;
      if (this.rejoinNeededOrPending()) {
        if (!this.joinGroupIfNeeded()) return false;
      }
    }
    this.maybeAutoCommitOffsetsAsync();
    return true;
  }

  /** When poll() wants to run again even if nothing arrives (auto-commit, join backoff). */
  nextWakeUs(): Micros {
    // Only future times: a deadline already passed is acted on by the poll that is running now, or waits for an event.
    // (No closure: this runs on every poll attempt.)
    const now = this.now;
    let t = Infinity;
    if (this.autoCommitEnabled) t = earlierFuture(now, t, this.nextAutoCommitUs);
    if (this.join === null && this.rejoinNeeded) t = earlierFuture(now, t, this.joinRetryAtUs);
    if (this.joinPrepare) t = earlierFuture(now, t, this.joinPrepare.retryAtUs);
    return earlierFuture(now, t, this.discovery.retryAt());
  }

  private rejoinNeededOrPending(): boolean {
    if (!this.host.subscriptions.hasAutoAssignedPartitions) return false;
    return this.rejoinNeeded || this.join !== null;
  }

  requestRejoin(reason: string): void {
    this.rejoinNeeded = true;
    this.rejoinReason = reason;
    this.host.wake();
  }

  // ---- coordinator discovery (coordinatorDiscovery.ts) ----

  private ensureCoordinatorReady(): boolean {
    return this.discovery.ensureReady();
  }

  lookupCoordinator(): void {
    this.discovery.lookup();
  }

  markCoordinatorUnknown(cause: string): void {
    this.discovery.markUnknown(cause);
  }

  private coordinatorActor(): string {
    return this.discovery.actor();
  }

  // ---- joining [AbstractCoordinator.java `joinGroupIfNeeded`, `initiateJoinGroup`] ----

  private joinGroupIfNeeded(): boolean {
    for (let guard = 0; guard < 4 && this.rejoinNeededOrPending(); guard++) {
      if (this.coordinator === null) return false;
      if (this.needsJoinPrepare) {
        if (!this.onJoinPrepare()) return false;
        this.needsJoinPrepare = false;
      }
      if (this.join === null) {
        if (this.now < this.joinRetryAtUs) return false;
        // The leader assigns from metadata: wait until the subscribed topics are known.
        if (!this.subscriptionMetadataKnown()) {
          this.host.requestMetadata();
          return false;
        }
        this.initiateJoinGroup();
        return false;
      }
      if (!this.join.done) return false;
      const outcome = this.join.outcome!;
      this.join = null;
      if (outcome.ok) {
        if (this.generation === outcome.generation && this.state === 'STABLE') {
          this.onJoinComplete(outcome.generation, outcome.assignment);
          this.needsJoinPrepare = true;
        } else {
          this.resetStateAndGeneration('the generation or state changed before the rebalance completed', true);
          this.requestRejoin('the generation or state changed before the rebalance completed');
        }
        continue;
      }
      if (outcome.error !== 'MEMBER_ID_REQUIRED') {
        this.rejoinNeeded = true;
        this.rejoinReason = `rebalance failed due to ${outcome.error}`;
      }
      if (REJOIN_AT_ONCE.has(outcome.error)) continue;
      if (!this.isRetriableJoinError(outcome.error)) {
        this.failed = true;
        this.host.fatal(outcome.error, `group ${this.groupId}: JoinGroup/SyncGroup failed with ${outcome.error}`);
        return false;
      }
      this.joinRetryAtUs = this.now + ms(this.host.config['retry.backoff.ms']);
      this.host.setTimer(ms(this.host.config['retry.backoff.ms']), () => this.host.wake());
      return false;
    }
    return !this.rejoinNeededOrPending();
  }

  private isRetriableJoinError(error: string): boolean {
    // UNJOINED: the state changed under the join (UnjoinedGroupException), retriable.
    return error === 'UNJOINED' || (isKafkaError(error) && isRetriable(error));
  }

  private subscriptionMetadataKnown(): boolean {
    for (const t of this.host.subscriptions.topics) if (this.host.metadata.partitionCount(t) === null) return false;
    return true;
  }

  /**
   * Before (re)joining: commit what was consumed (auto-commit), then give up partitions — all of them (eager), the
   * unsubscribed ones (cooperative), or all as lost when the member is no longer in the group.
   * [ConsumerCoordinator.java `onJoinPrepare`]
   */
  private onJoinPrepare(): boolean {
    const h = this.host;
    if (!this.joinPrepare) this.joinPrepare = { deadlineUs: this.now + ms(h.config['max.poll.interval.ms']), commit: null, retryAtUs: 0 };
    const jp = this.joinPrepare;
    if (this.autoCommitEnabled) {
      if (jp.commit === null && this.now >= jp.retryAtUs) jp.commit = this.commitOffsetsAsync(h.subscriptions.allConsumed(), 'before-revoke');
      if (jp.commit !== null || jp.retryAtUs > this.now) {
        const c = jp.commit;
        if (this.now < jp.deadlineUs) {
          if (c === null || !c.done) return false;
          if (!c.ok && c.retriable) {
            jp.commit = null;
            jp.retryAtUs = this.now + ms(h.config['retry.backoff.ms']);
            h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
            return false;
          }
        }
      }
    }
    const owned = h.subscriptions.assignedTopicPartitions();
    const valid = this.generation.generationId !== NO_GENERATION.generationId && this.generation.memberId !== NO_GENERATION.memberId;
    const change = beforeJoin(this.protocol, owned, h.subscriptions.topics, valid);
    const gone = [...change.revoked, ...change.lost];
    this.rebalanceStart = { atUs: this.now, paused: change.revoked.map((tp) => tpKey(tp.topic, tp.partition)) };
    h.trace.emit('consumer.rebalance.start', h.id, {
      group: this.groupId,
      memberId: this.generation.memberId,
      generation: this.generation.generationId,
      reason: this.rejoinReason,
      keeps: change.kept.map((tp) => tpKey(tp.topic, tp.partition)),
    });
    if (gone.length > 0) {
      h.subscriptions.assign(change.kept);
      h.partitionsRemoved(gone.map((tp) => tpKey(tp.topic, tp.partition)));
      this.emitAssignment(valid ? this.generation.generationId : -1, [], change.revoked, change.lost);
    }
    this.isLeader = false;
    this.assignedWithCounts = null;
    this.joinPrepare = null;
    return true;
  }

  private initiateJoinGroup(): void {
    const h = this.host;
    const c = h.config;
    this.state = 'PREPARING_REBALANCE';
    this.disableHeartbeat();
    const sent = this.generation;
    const outcome = { done: false, outcome: null as JoinOutcome | null };
    this.join = outcome;
    const finish = (o: JoinOutcome): void => {
      if (outcome.done) return;
      outcome.done = true;
      outcome.outcome = o;
      h.wake();
    };
    const request = {
      type: 'JoinGroup' as const,
      groupId: this.groupId,
      sessionTimeoutMs: c['session.timeout.ms'],
      rebalanceTimeoutMs: c['max.poll.interval.ms'],
      memberId: this.generation.memberId,
      groupInstanceId: this.groupInstanceId,
      protocolType: 'consumer' as const,
      protocols: this.joinProtocols(),
      reason: this.rejoinReason,
    };
    const timeoutMs = Math.max(c['request.timeout.ms'], c['max.poll.interval.ms'] + JOIN_GROUP_TIMEOUT_LAPSE_MS);
    h.net.send<typeof request, JoinGroupResponse>(this.coordinatorActor(), request, { timeoutMs }, (o) => {
      if (!o.ok) {
        this.markCoordinatorUnknown(o.error);
        return finish({ ok: false, error: o.error });
      }
      const r = o.response;
      switch (r.error) {
        case 'NONE': {
          if (this.state !== 'PREPARING_REBALANCE') return finish({ ok: false, error: 'UNJOINED' });
          this.state = 'COMPLETING_REBALANCE';
          this.generation = { generationId: r.generationId, memberId: r.memberId, protocolName: r.protocolName };
          this.enableHeartbeat();
          const leader = r.leader === r.memberId;
          h.trace.emit('consumer.join', h.id, { group: this.groupId, memberId: r.memberId, generation: r.generationId, leader, protocol: r.protocolName ?? '' });
          const assignments = leader && !r.skipAssignment ? this.performAssignment(r.protocolName ?? '', r.members) : [];
          this.isLeader = leader;
          return this.syncGroup(this.generation, assignments, finish);
        }
        case 'UNKNOWN_MEMBER_ID':
          if (this.generation === sent) this.resetStateAndGeneration('JoinGroup: UNKNOWN_MEMBER_ID', true);
          return finish({ ok: false, error: r.error });
        case 'COORDINATOR_NOT_AVAILABLE':
        case 'NOT_COORDINATOR':
          this.markCoordinatorUnknown(r.error);
          return finish({ ok: false, error: r.error });
        case 'MEMBER_ID_REQUIRED':
          this.generation = { generationId: DEFAULT_GENERATION, memberId: r.memberId, protocolName: null };
          this.requestRejoin(`need to re-join with the given member-id: ${r.memberId}`);
          return finish({ ok: false, error: r.error });
        default:
          return finish({ ok: false, error: r.error });
      }
    });
  }

  /** One protocol per configured assignor, in preference order, each carrying the subscription. [ConsumerCoordinator.java `metadata`] */
  private joinProtocols(): JoinGroupProtocol[] {
    const h = this.host;
    const owned = h.subscriptions.assignedTopicPartitions();
    return h.config['partition.assignment.strategy'].map((name) => ({
      name,
      topics: [...h.subscriptions.topics],
      // The eager sticky assignor carries the previous assignment in its user data; others report what is owned.
      ownedPartitions: name === 'sticky' ? [...this.lastAssignment] : owned,
      generation: name === 'sticky' || name === 'cooperative-sticky' ? this.lastAssignmentGeneration : DEFAULT_GENERATION,
    }));
  }

  /** The leader runs the chosen assignor over every member's subscription. [ConsumerCoordinator.java `onLeaderElected`, `performAssignment`] */
  private performAssignment(protocolName: string, members: readonly JoinGroupMember[]): { memberId: string; partitions: TopicPartition[] }[] {
    const h = this.host;
    const assignor = assignorFor(protocolName);
    const counts = new Map<string, number>();
    for (const m of members) {
      for (const t of m.metadata.topics) {
        const n = h.metadata.partitionCount(t);
        if (n !== null) counts.set(t, n);
      }
    }
    const group: GroupSubscription = {
      members: members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        topics: m.metadata.topics,
        ownedPartitions: m.metadata.ownedPartitions,
        generationId: m.metadata.generation,
      })),
      partitionsPerTopic: counts,
    };
    this.assignedWithCounts = counts;
    const assignment = assignor.assign(group);
    return [...assignment].map(([memberId, partitions]) => ({ memberId, partitions: [...partitions] }));
  }

  /** The leader noticed a partition count change in its metadata: rebalance. [ConsumerCoordinator.java `rejoinNeededOrPending` (assignment snapshot)] */
  onMetadataUpdate(): void {
    if (!this.isLeader || this.assignedWithCounts === null) return;
    for (const [t, n] of this.assignedWithCounts) {
      if (this.host.metadata.partitionCount(t) !== n) {
        this.assignedWithCounts = null;
        this.requestRejoin(`the partition count of ${t} changed`);
        return;
      }
    }
  }

  private syncGroup(sent: Generation, assignments: { memberId: string; partitions: TopicPartition[] }[], finish: (o: JoinOutcome) => void): void {
    const h = this.host;
    const request = {
      type: 'SyncGroup' as const,
      groupId: this.groupId,
      generationId: sent.generationId,
      memberId: sent.memberId,
      groupInstanceId: this.groupInstanceId,
      assignments,
    };
    h.net.send<typeof request, SyncGroupResponse>(this.coordinatorActor(), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => {
      if (!o.ok) {
        this.markCoordinatorUnknown(o.error);
        return finish({ ok: false, error: o.error });
      }
      const r = o.response;
      switch (r.error) {
        case 'NONE':
          if (this.generation !== sent || this.state !== 'COMPLETING_REBALANCE') return finish({ ok: false, error: 'ILLEGAL_GENERATION' });
          this.state = 'STABLE';
          this.rejoinNeeded = false;
          this.rejoinReason = '';
          return finish({ ok: true, assignment: r.partitions, generation: sent });
        case 'UNKNOWN_MEMBER_ID':
        case 'ILLEGAL_GENERATION':
          if (this.generation === sent) this.resetStateAndGeneration(`SyncGroup: ${r.error}`, r.error !== 'ILLEGAL_GENERATION');
          return finish({ ok: false, error: r.error });
        case 'COORDINATOR_NOT_AVAILABLE':
        case 'NOT_COORDINATOR':
          this.markCoordinatorUnknown(r.error);
          return finish({ ok: false, error: r.error });
        default:
          return finish({ ok: false, error: r.error });
      }
    });
  }

  /** The new assignment takes effect; cooperative members revoke what moves and rejoin. [ConsumerCoordinator.java `onJoinComplete`] */
  private onJoinComplete(generation: Generation, assigned: readonly TopicPartition[]): void {
    const h = this.host;
    this.joinedGroupMetadata = { generationId: generation.generationId, memberId: generation.memberId };
    const owned = h.subscriptions.assignedTopicPartitions();
    const subscribed = new Set(h.subscriptions.topics);
    if (!assigned.every((tp) => subscribed.has(tp.topic))) {
      this.requestRejoin('received assignment does not match the current subscription');
      return;
    }
    const change = afterSync(this.protocol, owned, assigned);
    if (change.revoked.length > 0) {
      h.partitionsRemoved(change.revoked.map((tp) => tpKey(tp.topic, tp.partition)));
      if (change.rejoin) this.requestRejoin(`need to revoke partitions ${change.revoked.map((tp) => tpKey(tp.topic, tp.partition)).join(', ')} and re-join`);
    }
    this.lastAssignment = assigned;
    this.lastAssignmentGeneration = generation.generationId;
    if (this.autoCommitEnabled) this.nextAutoCommitUs = this.now + ms(h.config['auto.commit.interval.ms']);
    h.subscriptions.assign(assigned);
    this.emitAssignment(generation.generationId, change.added, change.revoked, []);
    if (this.rebalanceStart) {
      const start = this.rebalanceStart;
      this.rebalanceStart = null;
      if (start.paused.length > 0) {
        h.trace.emit('consumer.pause', h.id, {
          group: this.groupId,
          memberId: generation.memberId,
          generation: generation.generationId,
          start: start.atUs,
          durationMs: (this.now - start.atUs) / 1000,
          partitions: [...start.paused],
        });
      }
    }
  }

  private emitAssignment(generation: number, assigned: readonly TopicPartition[], revoked: readonly TopicPartition[], lost: readonly TopicPartition[]): void {
    const h = this.host;
    const keys = (l: readonly TopicPartition[]): string[] => l.map((tp) => tpKey(tp.topic, tp.partition));
    h.trace.emit('consumer.assignment', h.id, {
      group: this.groupId,
      memberId: this.generation.memberId,
      generation,
      protocol: this.protocol,
      assigned: keys(assigned),
      revoked: keys(revoked),
      lost: keys(lost),
      owned: h.subscriptions.assignedPartitions().map((s) => s.key),
    });
  }

  /** [AbstractCoordinator.java `resetStateAndGeneration`] */
  private resetStateAndGeneration(_reason: string, resetMemberId: boolean): void {
    this.state = 'UNJOINED';
    this.generation = resetMemberId ? NO_GENERATION : { generationId: DEFAULT_GENERATION, memberId: this.generation.memberId, protocolName: null };
    this.disableHeartbeat();
  }

  private resetStateAndRejoin(reason: string, resetMemberId: boolean): void {
    this.resetStateAndGeneration(reason, resetMemberId);
    this.requestRejoin(reason);
  }

  // ---- the heartbeat thread [AbstractCoordinator.HeartbeatThread `run`] ----

  private enableHeartbeat(): void {
    this.heartbeatEnabled = true;
    this.heartbeat.restartDeadlines(this.now);
    this.scheduleHeartbeat(this.now);
  }

  private disableHeartbeat(): void {
    this.heartbeatEnabled = false;
  }

  private scheduleHeartbeat(atUs: Micros): void {
    if (!this.heartbeatEnabled || this.closed) return;
    const at = Math.max(atUs, this.now);
    if (at >= this.heartbeatTimerAt) return;
    this.host.cancelTimer(this.heartbeatTimer);
    this.heartbeatTimerAt = at;
    this.heartbeatTimer = this.host.setTimer(at - this.now, () => {
      this.heartbeatTimer = NO_TIMER;
      this.heartbeatTimerAt = Infinity;
      this.heartbeatTick();
    });
  }

  private heartbeatTick(): void {
    if (this.closed || this.failed || !this.heartbeatEnabled) return;
    if (this.state === 'UNJOINED' || this.state === 'PREPARING_REBALANCE') {
      this.disableHeartbeat();
      return;
    }
    const now = this.now;
    const retry = ms(this.host.config['retry.backoff.ms']);
    if (this.coordinator === null) {
      this.lookupCoordinator();
      this.scheduleHeartbeat(now + retry);
      return;
    }
    if (this.heartbeat.sessionTimeoutExpired(now)) {
      this.markCoordinatorUnknown('session timed out without receiving a heartbeat response');
      this.scheduleHeartbeat(now + retry);
      return;
    }
    if (this.heartbeat.pollTimeoutExpired(now)) {
      // The application did not call poll() within max.poll.interval.ms. [AbstractCoordinator.java `handlePollTimeoutExpiry`]
      this.maybeLeaveGroup('consumer poll timeout has expired');
      return;
    }
    if (!this.heartbeat.shouldHeartbeat(now)) {
      this.scheduleHeartbeat(this.heartbeat.nextCheckUs());
      return;
    }
    this.heartbeat.sentHeartbeat(now);
    this.sendHeartbeat();
    this.scheduleHeartbeat(this.heartbeat.nextCheckUs());
  }

  private sendHeartbeat(): void {
    const h = this.host;
    const sent = this.generation;
    const request = { type: 'Heartbeat' as const, groupId: this.groupId, generationId: sent.generationId, memberId: sent.memberId, groupInstanceId: this.groupInstanceId };
    h.net.send<typeof request, HeartbeatResponse>(this.coordinatorActor(), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => {
      if (this.closed) return;
      const now = this.now;
      if (!o.ok) {
        this.markCoordinatorUnknown(o.error);
        this.heartbeat.failHeartbeat(now);
      } else {
        const e = o.response.error;
        switch (e) {
          case 'NONE':
            this.heartbeat.receiveHeartbeat(now);
            break;
          case 'REBALANCE_IN_PROGRESS':
            // Keep heartbeating through the rebalance, so the coordinator keeps the member. [HeartbeatResponseHandler]
            this.heartbeat.receiveHeartbeat(now);
            if (this.state === 'STABLE') this.requestRejoin('group is already rebalancing');
            break;
          case 'ILLEGAL_GENERATION':
          case 'UNKNOWN_MEMBER_ID':
            this.heartbeat.failHeartbeat(now);
            if (this.generation === sent) this.resetStateAndRejoin(`Heartbeat: ${e}`, e === 'UNKNOWN_MEMBER_ID');
            break;
          case 'FENCED_INSTANCE_ID':
            this.failed = true;
            h.fatal(e, `static member ${this.groupInstanceId ?? ''} was fenced by a newer instance`);
            return;
          case 'COORDINATOR_NOT_AVAILABLE':
          case 'NOT_COORDINATOR':
            this.markCoordinatorUnknown(e);
            this.heartbeat.failHeartbeat(now);
            break;
          default:
            this.heartbeat.failHeartbeat(now);
        }
      }
      this.scheduleHeartbeat(this.heartbeat.nextCheckUs());
    });
  }

  /**
   * Leaves the group: dynamic members send LeaveGroup (best effort); static members only drop their state and are
   * removed by their session timeout. [AbstractCoordinator.java `maybeLeaveGroup`]
   */
  maybeLeaveGroup(reason: string, onDone?: () => void): void {
    const h = this.host;
    const memberId = this.generation.memberId;
    const send = this.groupInstanceId === null && this.coordinator !== null && this.state !== 'UNJOINED' && memberId !== '';
    h.trace.emit('consumer.leave', h.id, { group: this.groupId, memberId, reason, sent: send });
    if (send) {
      const request = { type: 'LeaveGroup' as const, groupId: this.groupId, members: [{ memberId, groupInstanceId: null, reason }] };
      h.net.send<typeof request, LeaveGroupResponse>(this.coordinatorActor(), request, { timeoutMs: h.config['request.timeout.ms'] }, () => onDone?.());
    }
    this.resetStateAndRejoin(reason, true);
    if (!send) onDone?.();
  }

  // ---- committed offsets [ConsumerCoordinator.java `refreshCommittedOffsetsIfNeeded`, `fetchCommittedOffsets`] ----

  /** Partitions without a position ask the group for its committed offsets. */
  refreshCommittedOffsetsIfNeeded(): void {
    this.offsets.refreshCommitted(null, () => {
      this.failed = true;
    });
  }

  // ---- commits [ConsumerCoordinator.java `sendOffsetCommitRequest`, `OffsetCommitResponseHandler`] ----

  /** Auto-commit from poll() once auto.commit.interval.ms has passed. [ConsumerCoordinator.java `maybeAutoCommitOffsetsAsync`] */
  private maybeAutoCommitOffsetsAsync(): void {
    if (!this.autoCommitEnabled || this.now < this.nextAutoCommitUs) return;
    this.nextAutoCommitUs = this.now + ms(this.host.config['auto.commit.interval.ms']);
    this.commitOffsetsAsync(this.host.subscriptions.allConsumed(), 'auto', (result) => {
      // A retriable failure retries sooner. [ConsumerCoordinator.java `autoCommitOffsetsAsync`]
      if (!result.ok && result.retriable) this.nextAutoCommitUs = Math.min(this.nextAutoCommitUs, this.now + ms(this.host.config['retry.backoff.ms']));
    });
  }

  /** commitAsync: one attempt, no retries. `onDone` runs when it completes. */
  commitOffsetsAsync(offsets: CommitOffsets, kind: CommitKind, onDone?: (r: CommitResult) => void): CommitResult {
    const h = this.host;
    const identity = (): CommitIdentity | CommitRefusal => {
      if (!h.subscriptions.hasAutoAssignedPartitions) return { memberId: NO_GENERATION.memberId, generationId: NO_GENERATION.generationId, groupInstanceId: null };
      // Only a member of a stable generation may commit. [ConsumerCoordinator.java `sendOffsetCommitRequest`]
      if (this.state !== 'STABLE') {
        return this.rebalanceInProgress
          ? { error: 'REBALANCE_IN_PROGRESS', retriable: true, generationId: this.generation.generationId }
          : { error: 'CommitFailedException', retriable: false, generationId: this.generation.generationId };
      }
      return { memberId: this.generation.memberId, generationId: this.generation.generationId, groupInstanceId: this.groupInstanceId };
    };
    const generation = this.generation;
    return this.offsets.commit(
      offsets,
      kind,
      identity,
      (e) => {
        switch (e) {
          case 'REBALANCE_IN_PROGRESS':
            // The group is rebalancing: rejoin; this commit is not retried. [OffsetCommitResponseHandler]
            this.requestRejoin('offset commit failed since group is already rebalancing');
            return false;
          case 'UNKNOWN_MEMBER_ID':
          case 'ILLEGAL_GENERATION':
            // The member was fenced out of the group: CommitFailedException.
            if (this.generation === generation) this.resetStateAndRejoin(`OffsetCommit: ${e}`, e === 'UNKNOWN_MEMBER_ID');
            return false;
          case 'FENCED_INSTANCE_ID':
            this.failed = true;
            h.fatal(e, `static member ${this.groupInstanceId ?? ''} was fenced by a newer instance`);
            return false;
          default:
            return undefined;
        }
      },
      onDone,
    );
  }

  /**
   * commitSync: retries retriable failures (finding the coordinator again as needed) until it succeeds, fails for
   * good, or `timeoutMs` (default.api.timeout.ms) runs out. [ConsumerCoordinator.java `commitOffsetsSync`]
   */
  commitOffsetsSync(offsets: CommitOffsets, kind: CommitKind, timeoutMs: number, onDone: (r: CommitResult) => void): void {
    this.offsets.retryUntil(this.now + ms(timeoutMs), (cb) => this.commitOffsetsAsync(offsets, kind, cb), onDone);
  }

  // ---- close [ConsumerCoordinator.java `close`; AbstractCoordinator.java `close`] ----

  /** Commits (auto-commit), gives up the partitions, leaves (dynamic members) and calls `onDone`. */
  close(closeTimeoutMs: number, onDone: () => void): void {
    const h = this.host;
    const finish = (): void => {
      const owned = h.subscriptions.assignedTopicPartitions();
      if (owned.length > 0) {
        h.subscriptions.assign([]);
        h.partitionsRemoved(owned.map((tp) => tpKey(tp.topic, tp.partition)));
        this.emitAssignment(this.generation.generationId, [], owned, []);
      }
      let left = false;
      const done = (): void => {
        if (left) return;
        left = true;
        this.closed = true;
        this.discovery.closed = true;
        this.disableHeartbeat();
        onDone();
      };
      if (h.subscriptions.hasAutoAssignedPartitions) {
        this.maybeLeaveGroup('the consumer is being closed', done);
        // Do not wait for ever on the LeaveGroup response.
        h.setTimer(ms(Math.min(closeTimeoutMs, h.config['request.timeout.ms'])), done);
      } else done();
    };
    if (this.autoCommitEnabled && !this.failed) {
      this.commitOffsetsSync(h.subscriptions.allConsumed(), 'close', Math.min(closeTimeoutMs, h.config['request.timeout.ms']), () => finish());
    } else finish();
  }
}

function isKafkaError(e: string): e is KafkaError {
  return Object.prototype.hasOwnProperty.call(KAFKA_ERRORS, e);
}

/** `at` when it is after `now` and before `t`, else `t`. */
function earlierFuture(now: Micros, t: Micros, at: Micros): Micros {
  return at > now && at < t ? at : t;
}
