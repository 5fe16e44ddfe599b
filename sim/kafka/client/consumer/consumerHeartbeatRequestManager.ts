/**
 * When a consumer-protocol member heartbeats and what it sends (KIP-848): every heartbeat interval the
 * coordinator gave it, at once while joining, acknowledging a reconciliation or leaving, with backoff after
 * errors; the fields it sent before are left out until something changes (a full request after any error). It
 * also watches max.poll.interval.ms: a member whose application stops polling leaves the group.
 * [clients/.../consumer/internals/AbstractHeartbeatRequestManager.java, ConsumerHeartbeatRequestManager.java
 * (HeartbeatState, SentFields)]
 */
import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import { ms, type Micros } from '../../../core/time';
import type { ConsumerConfig } from '../../config/configs';
import type { KafkaError } from '../../errors';
import type { NetworkClient } from '../../net/networkClient';
import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, ConsumerGroupHeartbeatTopicPartitions } from '../../protocol';
import type { ExponentialBackoff } from '../backoff';
import type { CoordinatorDiscovery } from './coordinatorDiscovery';

/** The membership states of the new consumer. [clients/.../consumer/internals/MemberState.java] */
export type ConsumerMemberState =
  | 'UNSUBSCRIBED'
  | 'JOINING'
  | 'RECONCILING'
  | 'ACKNOWLEDGING'
  | 'STABLE'
  | 'FENCED'
  | 'PREPARE_LEAVING'
  | 'LEAVING'
  | 'FATAL'
  | 'STALE';

/** What the heartbeat manager needs of the membership. */
export interface HeartbeatMembership {
  readonly groupId: string;
  readonly groupInstanceId: string | null;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly state: ConsumerMemberState;
  readonly serverAssignor: string | null;
  readonly subscribedTopics: readonly string[];
  /** The assignment the member owns, by topic id, and its local epoch (bumped with every new target). */
  readonly currentAssignment: { readonly localEpoch: number; readonly partitions: ConsumerGroupHeartbeatTopicPartitions[] };
  onHeartbeatRequestGenerated(): void;
  onHeartbeatRequestSkipped(): void;
  onHeartbeatSuccess(r: ConsumerGroupHeartbeatResponse): void;
  onHeartbeatFailure(): void;
  transitionToFenced(reason: string): void;
  transitionToFatal(error: KafkaError, message: string): void;
  transitionToSendingLeaveGroup(dueToExpiredPollTimer: boolean): void;
  /** Work the membership does after each pass (reconciliation in the background). */
  afterBackgroundPass(): void;
}

export interface HeartbeatHost {
  readonly now: Micros;
  readonly net: NetworkClient;
  readonly config: ConsumerConfig;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
}

export class ConsumerHeartbeatRequestManager {
  /** The coordinator's interval; 0 until the first response (the first heartbeat goes out at once). */
  private intervalMs = 0;
  /** When the interval timer expires. */
  private dueUs = 0;
  private inFlight = false;
  private attempts = 0;
  private backoffUntilUs = 0;
  /** Deadline of max.poll.interval.ms since the application's last poll. */
  private pollDeadlineUs: Micros;
  private timer: TimerId = NO_TIMER;
  private timerAt = Infinity;
  /** What was sent last (null = never, or reset by an error): unchanged fields are left out. */
  private sent: { rebalanceTimeoutMs: number; topics: string | null; assignor: string | null; localEpoch: number | null; owned: string | null } = this.emptySent();
  stopped = false;

  constructor(
    private readonly host: HeartbeatHost,
    private readonly discovery: CoordinatorDiscovery,
    private readonly member: HeartbeatMembership,
    private readonly backoff: ExponentialBackoff,
  ) {
    this.pollDeadlineUs = host.now + ms(host.config['max.poll.interval.ms']);
  }

  private emptySent(): { rebalanceTimeoutMs: number; topics: string | null; assignor: string | null; localEpoch: number | null; owned: string | null } {
    return { rebalanceTimeoutMs: -1, topics: null, assignor: null, localEpoch: null, owned: null };
  }

  private get now(): Micros {
    return this.host.now;
  }

  /** The application polled. Returns true when max.poll.interval.ms had expired (the member is stale). [`resetPollTimer`] */
  resetPollTimer(): boolean {
    const expired = this.now >= this.pollDeadlineUs;
    this.pollDeadlineUs = this.now + ms(this.host.config['max.poll.interval.ms']);
    this.schedule(this.pollDeadlineUs);
    return expired;
  }

  /** Send the next heartbeat without waiting for the interval (after a fence, a new coordinator). [`HeartbeatRequestState.reset`] */
  resetTimer(): void {
    this.dueUs = this.now;
    this.attempts = 0;
    this.backoffUntilUs = 0;
  }

  /** Runs one pass now (soon after the caller's own work). */
  wake(): void {
    this.schedule(this.now);
  }

  private schedule(at: Micros): void {
    if (this.stopped) return;
    const t = Math.max(at, this.now);
    if (t >= this.timerAt) return;
    this.host.cancelTimer(this.timer);
    this.timerAt = t;
    this.timer = this.host.setTimer(t - this.now, () => {
      this.timer = NO_TIMER;
      this.timerAt = Infinity;
      this.pass();
    });
  }

  /** One pass of the background thread over heartbeats. [AbstractHeartbeatRequestManager.java `poll`] */
  private pass(): void {
    if (this.stopped) return;
    const m = this.member;
    const skip = m.state === 'UNSUBSCRIBED' || m.state === 'FATAL' || m.state === 'STALE' || m.state === 'FENCED';
    if (!this.discovery.known || skip) {
      m.onHeartbeatRequestSkipped();
      if (!this.discovery.known && !skip) this.discovery.lookup();
      m.afterBackgroundPass();
      return;
    }
    const leaving = m.state === 'PREPARE_LEAVING' || m.state === 'LEAVING';
    if (this.now >= this.pollDeadlineUs && !leaving) {
      // The application has not polled within max.poll.interval.ms: leave; the response does not matter.
      m.transitionToSendingLeaveGroup(true);
      this.send(true);
      this.resetTimer();
      this.sent = this.emptySent();
      m.afterBackgroundPass();
      return;
    }
    const now = m.state === 'LEAVING' || ((m.state === 'ACKNOWLEDGING' || m.state === 'JOINING') && !this.inFlight);
    const canSend = !this.inFlight && this.now >= this.dueUs && this.now >= this.backoffUntilUs;
    if (canSend || now) this.send(false);
    m.afterBackgroundPass();
    // While a heartbeat is in flight its response wakes the next pass; else the interval or the backoff does.
    this.schedule(this.inFlight ? this.pollDeadlineUs : Math.min(Math.max(this.dueUs, this.backoffUntilUs), this.pollDeadlineUs));
  }

  /** Builds the request with the fields that changed since the last one. [ConsumerHeartbeatRequestManager.HeartbeatState `buildRequestData`] */
  private build(): Omit<ConsumerGroupHeartbeatRequest, 'correlationId'> {
    const m = this.member;
    const all = m.state === 'JOINING';
    const rebalanceTimeoutMs = this.host.config['max.poll.interval.ms'];
    const topics = [...m.subscribedTopics].sort();
    const topicsKey = topics.join(',');
    const local = m.currentAssignment;
    const ownedKey = JSON.stringify(local.partitions);
    const sendTimeout = all || this.sent.rebalanceTimeoutMs !== rebalanceTimeoutMs;
    const sendTopics = all || this.sent.topics !== topicsKey;
    const sendAssignor = m.serverAssignor !== null && (all || this.sent.assignor !== m.serverAssignor);
    // Owned partitions go out when joining and after each reconciliation (a new local epoch), even if unchanged.
    const sendOwned = all || this.sent.localEpoch !== local.localEpoch || this.sent.owned !== ownedKey;
    this.sent = {
      rebalanceTimeoutMs: sendTimeout ? rebalanceTimeoutMs : this.sent.rebalanceTimeoutMs,
      topics: sendTopics ? topicsKey : this.sent.topics,
      assignor: sendAssignor ? m.serverAssignor : this.sent.assignor,
      localEpoch: sendOwned ? local.localEpoch : this.sent.localEpoch,
      owned: sendOwned ? ownedKey : this.sent.owned,
    };
    return {
      type: 'ConsumerGroupHeartbeat',
      groupId: m.groupId,
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      instanceId: m.groupInstanceId,
      rackId: null,
      rebalanceTimeoutMs: sendTimeout ? rebalanceTimeoutMs : -1,
      subscribedTopicNames: sendTopics ? topics : null,
      subscribedTopicRegex: null,
      serverAssignor: sendAssignor ? m.serverAssignor : null,
      topicPartitions: sendOwned ? local.partitions : null,
    };
  }

  /** [AbstractHeartbeatRequestManager.java `makeHeartbeatRequest`] */
  private send(ignoreResponse: boolean): void {
    const request = this.build();
    this.inFlight = !ignoreResponse;
    this.member.onHeartbeatRequestGenerated();
    this.dueUs = this.now + ms(this.intervalMs);
    this.host.net.send<typeof request, ConsumerGroupHeartbeatResponse>(this.discovery.actor(), request, { timeoutMs: this.host.config['request.timeout.ms'] }, (o) => {
      if (ignoreResponse || this.stopped) return;
      this.inFlight = false;
      if (!o.ok) this.onFailure(o.error);
      else if (o.response.error === 'NONE') this.onSuccess(o.response);
      else this.onErrorResponse(o.response);
      this.wake();
    });
  }

  private onSuccess(r: ConsumerGroupHeartbeatResponse): void {
    if (r.heartbeatIntervalMs !== this.intervalMs) {
      this.intervalMs = r.heartbeatIntervalMs;
      this.dueUs = this.now + ms(this.intervalMs);
    }
    this.attempts = 0;
    this.backoffUntilUs = 0;
    this.member.onHeartbeatSuccess(r);
  }

  private failedAttempt(): void {
    // After a failure the next heartbeat may go as soon as the backoff allows (or at once, for a rejoin).
    this.dueUs = this.now;
    this.backoffUntilUs = this.now + ms(this.backoff.backoff(this.attempts++));
  }

  /** A request that got no response (timeout, lost connection): retriable. [`onFailure`] */
  private onFailure(error: string): void {
    this.failedAttempt();
    this.sent = this.emptySent();
    this.member.onHeartbeatFailure();
    this.discovery.markUnknown(error);
  }

  /** [AbstractHeartbeatRequestManager.java `onErrorResponse`; ConsumerHeartbeatRequestManager.java `handleSpecificError`] */
  private onErrorResponse(r: ConsumerGroupHeartbeatResponse): void {
    this.sent = this.emptySent();
    this.failedAttempt();
    this.member.onHeartbeatFailure();
    const e = r.error;
    switch (e) {
      case 'NOT_COORDINATOR':
      case 'COORDINATOR_NOT_AVAILABLE':
        // Find the coordinator again and heartbeat as soon as it is known.
        this.discovery.markUnknown(e);
        this.resetTimer();
        return;
      case 'COORDINATOR_LOAD_IN_PROGRESS':
        return;
      case 'FENCED_MEMBER_EPOCH':
      case 'UNKNOWN_MEMBER_ID':
        this.member.transitionToFenced(e);
        this.resetTimer();
        return;
      case 'UNSUPPORTED_VERSION':
        return this.member.transitionToFatal(e, 'The cluster does not support the new consumer group protocol. Set group.protocol=classic on the consumer to use the classic protocol until the cluster is upgraded.');
      default:
        // GROUP_AUTHORIZATION_FAILED, INVALID_REQUEST, GROUP_MAX_SIZE_REACHED, UNSUPPORTED_ASSIGNOR,
        // UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID, GROUP_ID_NOT_FOUND and anything unexpected stop the member.
        return this.member.transitionToFatal(e, r.errorMessage ?? e);
    }
  }

  /** The leave heartbeat of close(): sent now, its answer (or none) reported to `onDone`. [`pollOnClose`] */
  sendLeaveOnClose(onDone: () => void): void {
    if (!this.discovery.known) return onDone();
    const request = this.build();
    this.member.onHeartbeatRequestGenerated();
    this.host.net.send<typeof request, ConsumerGroupHeartbeatResponse>(this.discovery.actor(), request, { timeoutMs: this.host.config['request.timeout.ms'] }, () => onDone());
  }

  stop(): void {
    this.stopped = true;
    this.host.cancelTimer(this.timer);
    this.timer = NO_TIMER;
    this.timerAt = Infinity;
  }
}
