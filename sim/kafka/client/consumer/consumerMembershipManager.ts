/**
 * The member side of the consumer group protocol (KIP-848, `group.protocol=consumer`): the member generates its
 * id, heartbeats (consumerHeartbeatRequestManager.ts), receives its target assignment from the coordinator and
 * reconciles towards it: pause the partitions to revoke, commit what was consumed (auto-commit), revoke, take the
 * new ones, acknowledge in the next heartbeat. Fenced or unknown, it gives everything up as lost and rejoins at
 * epoch 0; when the application stops polling for max.poll.interval.ms it leaves (and is "stale" until its next
 * poll); close() commits, revokes and leaves with epoch -1 (or -2, a static member). The application registers no
 * rebalance listener, so the callbacks complete at once; with auto-commit on, a reconciliation starts only from
 * poll(), so its commit never runs ahead of the application.
 * [clients/.../consumer/internals/AbstractMembershipManager.java, ConsumerMembershipManager.java,
 * CommitRequestManager.java, AsyncKafkaConsumer.java]
 */
import type { Random } from '../../../core/random';
import { ms, type Micros } from '../../../core/time';
import type { KafkaError } from '../../errors';
import { isRetriable } from '../../errors';
import { tpKey, type ConsumerGroupHeartbeatResponse, type ConsumerGroupHeartbeatTopicPartitions, type TopicPartition } from '../../protocol';
import { retryBackoff } from '../backoff';
import type { ConsumerCoordinatorHost } from './consumerCoordinator';
import { ConsumerHeartbeatRequestManager, type ConsumerMemberState, type HeartbeatMembership } from './consumerHeartbeatRequestManager';
import { CoordinatorDiscovery } from './coordinatorDiscovery';
import type { GroupMembership } from './groupMembership';
import { GroupOffsets, type CommitIdentity, type CommitKind, type CommitOffsets, type CommitRefusal, type CommitResult } from './groupOffsets';

/** A target or current assignment by topic id, with the local epoch Kafka bumps on every new target. */
interface LocalAssignment {
  readonly localEpoch: number;
  /** topic id -> sorted partitions. */
  readonly partitions: ReadonlyMap<string, readonly number[]>;
}

const NONE: LocalAssignment = { localEpoch: -1, partitions: new Map() };

const samePartitions = (a: ReadonlyMap<string, readonly number[]>, b: ReadonlyMap<string, readonly number[]>): boolean =>
  a.size === b.size && [...a].every(([t, ps]) => {
    const qs = b.get(t);
    return qs !== undefined && qs.length === ps.length && ps.every((p, i) => p === qs[i]);
  });

/** A Kafka Uuid as text: 16 random bytes (version 4) in URL-safe base64 without padding, never starting with "-". */
export function randomUuid(random: Random): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (;;) {
    const bytes = Array.from({ length: 16 }, () => random.int(0, 256));
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    let bits = 0;
    let n = 0;
    let out = '';
    for (const b of bytes) {
      bits = (bits << 8) | b;
      n += 8;
      while (n >= 6) {
        out += alphabet[(bits >> (n - 6)) & 63];
        n -= 6;
      }
    }
    if (n > 0) out += alphabet[(bits << (6 - n)) & 63];
    if (out[0] !== '-') return out;
  }
}

export class ConsumerMembershipManager implements GroupMembership, HeartbeatMembership {
  readonly groupId: string;
  readonly groupInstanceId: string | null;
  readonly serverAssignor: string | null;
  /** Generated once, kept for the consumer's life (KIP-1082). */
  readonly memberId: string;
  memberEpoch = 0;
  state: ConsumerMemberState = 'UNSUBSCRIBED';
  private current: LocalAssignment = NONE;
  private target: LocalAssignment = NONE;
  private reconciliationInProgress = false;
  private rejoinedWhileReconciling = false;
  private pollTimerExpired = false;
  private readonly discovery: CoordinatorDiscovery;
  private readonly offsets: GroupOffsets;
  private readonly heartbeats: ConsumerHeartbeatRequestManager;
  private nextAutoCommitUs: Micros;
  private autoCommitInFlight = false;
  /** close() waits for the leave; called once it is done. */
  private leaveDone: (() => void) | null = null;
  private closed = false;
  failed = false;

  constructor(private readonly host: ConsumerCoordinatorHost) {
    const c = host.config;
    this.groupId = c['group.id']!;
    this.groupInstanceId = c['group.instance.id'];
    this.serverAssignor = c['group.remote.assignor'];
    this.memberId = randomUuid(host.random.fork('member-id'));
    const backoff = retryBackoff(c['retry.backoff.ms'], c['retry.backoff.max.ms'], host.random.fork('heartbeat-backoff'));
    this.discovery = new CoordinatorDiscovery(host, this.groupId, () => this.heartbeats.wake());
    this.offsets = new GroupOffsets(host, this.discovery, this.groupId, () => this.memberId);
    this.heartbeats = new ConsumerHeartbeatRequestManager(host, this.discovery, this, backoff);
    this.nextAutoCommitUs = host.now + ms(c['auto.commit.interval.ms']);
  }

  private get now(): Micros {
    return this.host.now;
  }

  private get autoCommitEnabled(): boolean {
    return this.host.config['enable.auto.commit'];
  }

  get generationId(): number {
    return this.memberEpoch > 0 ? this.memberEpoch : -1;
  }

  get subscribedTopics(): readonly string[] {
    return this.host.subscriptions.topics;
  }

  get currentAssignment(): { localEpoch: number; partitions: ConsumerGroupHeartbeatTopicPartitions[] } {
    return { localEpoch: this.current.localEpoch, partitions: [...this.current.partitions].map(([topicId, ps]) => ({ topicId, partitions: [...ps] })) };
  }

  private get subscribed(): boolean {
    return this.host.subscriptions.hasAutoAssignedPartitions;
  }

  // ---- the application's poll [AsyncKafkaConsumer.java `poll`; ApplicationEventProcessor AsyncPollEvent] ----

  poll(): boolean {
    if (this.closed || this.failed) return false;
    if (this.subscribed) {
      if (this.heartbeats.resetPollTimer()) this.maybeRejoinStaleMember();
      if (this.state === 'UNSUBSCRIBED' && this.leaveDone === null) this.transitionToJoining('subscribed');
      if (!this.discovery.ensureReady()) return true;
      this.heartbeats.wake();
      // A poll finishes a pending reconciliation first (with auto-commit, only a poll may start one).
      if (this.state === 'RECONCILING') this.maybeReconcile(true);
    }
    this.maybeAutoCommitAsync();
    return true;
  }

  nextWakeUs(): Micros {
    const now = this.now;
    let t = Infinity;
    const consider = (at: Micros): void => {
      if (at > now && at < t) t = at;
    };
    if (this.autoCommitEnabled) consider(this.nextAutoCommitUs);
    consider(this.discovery.retryAt());
    return t;
  }

  onMetadataUpdate(): void {
    // Topic ids of the target may resolve now.
    if (this.state === 'RECONCILING') this.maybeReconcile(false);
  }

  // ---- state transitions [AbstractMembershipManager.java] ----

  private transitionTo(next: ConsumerMemberState, reason: string): void {
    if (this.state === next) return;
    this.state = next;
    this.host.trace.emit('consumer.member', this.host.id, { group: this.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch, state: next, reason });
  }

  private transitionToJoining(reason: string): void {
    if (this.state === 'FATAL') return;
    if (this.reconciliationInProgress) this.rejoinedWhileReconciling = true;
    this.memberEpoch = 0;
    this.target = NONE;
    this.transitionTo('JOINING', reason);
    this.heartbeats.resetTimer();
    this.heartbeats.wake();
  }

  /** FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: everything owned is lost; rejoin at epoch 0 with the same id. [`transitionToFenced`] */
  transitionToFenced(reason: string): void {
    if (this.state === 'PREPARE_LEAVING' || this.state === 'LEAVING') {
      this.transitionTo('UNSUBSCRIBED', `fenced while leaving (${reason})`);
      this.completeLeave();
      return;
    }
    if (this.state === 'UNSUBSCRIBED') return;
    this.transitionTo('FENCED', reason);
    this.memberEpoch = 0;
    this.releaseAsLost();
    if (this.state === 'FENCED') this.transitionToJoining(`rejoining after ${reason}`);
  }

  transitionToFatal(error: KafkaError, message: string): void {
    const previous = this.state;
    this.transitionTo('FATAL', error);
    if (previous !== 'UNSUBSCRIBED' && previous !== 'LEAVING' && previous !== 'PREPARE_LEAVING') this.releaseAsLost();
    this.completeLeave();
    this.failed = true;
    this.host.fatal(error, `group ${this.groupId}: ConsumerGroupHeartbeat failed with ${error}: ${message}`);
  }

  /** Leave now: epoch -1 (-2 for a static member). From an expired poll timer the member turns stale. [`transitionToSendingLeaveGroup`] */
  transitionToSendingLeaveGroup(dueToExpiredPollTimer: boolean): void {
    if (this.state === 'FATAL' || this.state === 'UNSUBSCRIBED') return;
    if (dueToExpiredPollTimer) {
      this.pollTimerExpired = true;
      this.transitionTo('PREPARE_LEAVING', 'consumer poll timeout has expired');
      this.host.trace.emit('consumer.leave', this.host.id, { group: this.groupId, memberId: this.memberId, reason: 'consumer poll timeout has expired', sent: true });
    }
    this.memberEpoch = this.leaveGroupEpoch();
    this.current = NONE;
    this.transitionTo('LEAVING', dueToExpiredPollTimer ? 'consumer poll timeout has expired' : 'leaving the group');
  }

  private leaveGroupEpoch(): number {
    return this.groupInstanceId !== null ? -2 : -1;
  }

  /** [AbstractMembershipManager.java `onHeartbeatRequestGenerated`] */
  onHeartbeatRequestGenerated(): void {
    if (this.state === 'ACKNOWLEDGING') {
      if (this.targetReconciled()) this.transitionTo('STABLE', `acknowledged epoch ${this.memberEpoch}`);
      else this.transitionTo('RECONCILING', 'a newer assignment arrived while acknowledging');
    } else if (this.state === 'LEAVING') {
      if (this.pollTimerExpired) this.transitionToStale();
      else {
        this.transitionTo('UNSUBSCRIBED', 'left the group');
      }
    }
  }

  onHeartbeatRequestSkipped(): void {
    if (this.state === 'LEAVING') {
      this.transitionTo('UNSUBSCRIBED', 'the leave heartbeat could not be sent');
      this.completeLeave();
    }
  }

  onHeartbeatFailure(): void {
    if (this.state === 'UNSUBSCRIBED') this.completeLeave();
  }

  /** A stale member has released its partitions as lost and waits for the application's next poll. */
  private transitionToStale(): void {
    this.transitionTo('STALE', 'consumer poll timeout has expired');
    this.releaseAsLost();
  }

  private maybeRejoinStaleMember(): void {
    this.pollTimerExpired = false;
    if (this.state === 'STALE') this.transitionToJoining('the application polled again after its poll timeout');
  }

  /** [ConsumerMembershipManager.java `onHeartbeatSuccess`] */
  onHeartbeatSuccess(r: ConsumerGroupHeartbeatResponse): void {
    if (this.state === 'LEAVING') return;
    if (this.state === 'UNSUBSCRIBED') {
      this.completeLeave();
      return;
    }
    if (this.state === 'FENCED' || this.state === 'FATAL' || this.state === 'STALE') return;
    const wasJoining = this.state === 'JOINING';
    this.memberEpoch = r.memberEpoch;
    if (wasJoining && r.memberEpoch > 0) {
      this.host.trace.emit('consumer.join', this.host.id, { group: this.groupId, memberId: this.memberId, generation: r.memberEpoch, leader: false, protocol: 'consumer' });
    }
    if (r.assignment === null) return;
    const canHandle = this.state === 'STABLE' || this.state === 'JOINING' || this.state === 'ACKNOWLEDGING' || this.state === 'RECONCILING';
    if (!canHandle) return;
    const next = new Map<string, readonly number[]>();
    for (const tp of r.assignment.topicPartitions) if (tp.partitions.length > 0) next.set(tp.topicId, [...tp.partitions].sort((a, b) => a - b));
    // A different target gets the next local epoch. [AbstractMembershipManager.LocalAssignment `updateWith`]
    if (!samePartitions(next, this.target.partitions)) this.target = { localEpoch: this.target.localEpoch + 1, partitions: next };
    if (!this.targetReconciled()) this.transitionTo('RECONCILING', `new target assignment at epoch ${r.memberEpoch}`);
    else if (this.state === 'RECONCILING' || this.state === 'JOINING') this.transitionTo('STABLE', `assignment unchanged at epoch ${r.memberEpoch}`);
  }

  afterBackgroundPass(): void {
    if (this.state === 'RECONCILING') this.maybeReconcile(false);
  }

  private targetReconciled(): boolean {
    return this.current.localEpoch === this.target.localEpoch && samePartitions(this.current.partitions, this.target.partitions);
  }

  // ---- reconciliation [AbstractMembershipManager.java `maybeReconcile`, `revokeAndAssign`] ----

  /**
   * Moves towards the target: revoked partitions stop fetching, what was consumed is committed (auto-commit,
   * retried until the rebalance timeout), then they are revoked and the new ones assigned; the next heartbeat
   * acknowledges. `canCommit` is true from a poll; with auto-commit on, only a poll may start it.
   */
  private maybeReconcile(canCommit: boolean): void {
    if (this.targetReconciled() || this.reconciliationInProgress) return;
    if (this.autoCommitEnabled && !canCommit) return;
    const h = this.host;
    // Topic ids the metadata cannot name yet wait for a metadata update.
    const resolved: TopicPartition[] = [];
    let unresolved = false;
    for (const [topicId, ps] of this.target.partitions) {
      const topic = h.metadata.topicName(topicId);
      if (topic === undefined) unresolved = true;
      else for (const partition of ps) resolved.push({ topic, partition });
    }
    if (unresolved) h.requestMetadata();
    const resolvedIds = new Map<string, readonly number[]>();
    for (const tp of resolved) {
      const id = h.metadata.topicId(tp.topic)!;
      resolvedIds.set(id, [...(resolvedIds.get(id) ?? []), tp.partition]);
    }
    const resolvedAssignment: LocalAssignment = { localEpoch: this.target.localEpoch, partitions: resolvedIds };
    if (this.current !== NONE && samePartitions(resolvedAssignment.partitions, this.current.partitions)) {
      this.current = resolvedAssignment;
      this.transitionTo('ACKNOWLEDGING', 'assignment already in place');
      this.heartbeats.wake();
      return;
    }
    this.reconciliationInProgress = true;
    this.rejoinedWhileReconciling = false;
    const owned = h.subscriptions.assignedTopicPartitions();
    const wanted = new Set(resolved.map((tp) => tpKey(tp.topic, tp.partition)));
    const ownedKeys = new Set(owned.map((tp) => tpKey(tp.topic, tp.partition)));
    const revoked = owned.filter((tp) => !wanted.has(tpKey(tp.topic, tp.partition)));
    const added = resolved.filter((tp) => !ownedKeys.has(tpKey(tp.topic, tp.partition)));
    // Partitions to revoke stop fetching and returning records while the commit runs.
    for (const tp of revoked) {
      const s = h.subscriptions.get(tpKey(tp.topic, tp.partition));
      if (s) s.pendingRevocation = true;
    }
    const proceed = (): void => {
      if (this.state !== 'RECONCILING' || this.rejoinedWhileReconciling) {
        this.reconciliationInProgress = false;
        this.rejoinedWhileReconciling = false;
        return;
      }
      this.revokeAndAssign(resolved, revoked, added, resolvedAssignment);
    };
    if (!this.autoCommitEnabled) return proceed();
    // Commit before revoking, retrying (also STALE_MEMBER_EPOCH, with the latest epoch) within the rebalance timeout.
    const deadline = this.now + ms(h.config['max.poll.interval.ms']);
    this.offsets.retryUntil(deadline, (cb) => this.commitOffsetsAsync(h.subscriptions.allConsumed(), 'before-revoke', cb), () => proceed());
  }

  private revokeAndAssign(resolved: readonly TopicPartition[], revoked: readonly TopicPartition[], added: readonly TopicPartition[], resolvedAssignment: LocalAssignment): void {
    const h = this.host;
    const keys = (l: readonly TopicPartition[]): string[] => l.map((tp) => tpKey(tp.topic, tp.partition));
    // onPartitionsRevoked, then onPartitionsAssigned (no listener: both complete at once).
    if (revoked.length > 0) h.partitionsRemoved(keys(revoked));
    h.subscriptions.assign(resolved);
    this.current = resolvedAssignment;
    // The auto-commit timer starts again with the new assignment. [ConsumerMembershipManager.java `signalReconciliationCompleting`]
    this.nextAutoCommitUs = this.now + ms(h.config['auto.commit.interval.ms']);
    this.reconciliationInProgress = false;
    this.emitAssignment(this.memberEpoch, added, revoked, []);
    this.transitionTo('ACKNOWLEDGING', `reconciled: ${added.length} added, ${revoked.length} revoked`);
    this.heartbeats.wake();
  }

  /** Everything owned is gone without a clean hand-over (onPartitionsLost). */
  private releaseAsLost(): void {
    const h = this.host;
    const owned = h.subscriptions.assignedTopicPartitions();
    if (this.subscribed) h.subscriptions.assign([]);
    this.current = NONE;
    this.target = NONE;
    if (owned.length > 0) {
      h.partitionsRemoved(owned.map((tp) => tpKey(tp.topic, tp.partition)));
      this.emitAssignment(-1, [], [], owned);
    }
  }

  private emitAssignment(generation: number, assigned: readonly TopicPartition[], revoked: readonly TopicPartition[], lost: readonly TopicPartition[]): void {
    const h = this.host;
    const keys = (l: readonly TopicPartition[]): string[] => l.map((tp) => tpKey(tp.topic, tp.partition));
    h.trace.emit('consumer.assignment', h.id, {
      group: this.groupId,
      memberId: this.memberId,
      generation,
      protocol: 'consumer',
      assigned: keys(assigned),
      revoked: keys(revoked),
      lost: keys(lost),
      owned: h.subscriptions.assignedPartitions().map((s) => s.key),
    });
  }

  // ---- commits [CommitRequestManager.java] ----

  refreshCommittedOffsetsIfNeeded(): void {
    this.offsets.refreshCommitted(this.memberEpoch > 0 ? { memberId: this.memberId, memberEpoch: this.memberEpoch } : null, () => {
      this.failed = true;
    });
  }

  /** Auto-commit from poll(): when the interval has passed and no auto-commit is in flight. [`maybeAutoCommitAsync`] */
  private maybeAutoCommitAsync(): void {
    if (!this.autoCommitEnabled || this.now < this.nextAutoCommitUs || this.autoCommitInFlight) return;
    this.nextAutoCommitUs = this.now + ms(this.host.config['auto.commit.interval.ms']);
    const offsets = this.host.subscriptions.allConsumed();
    if (offsets.length === 0) return;
    this.autoCommitInFlight = true;
    this.commitOffsetsAsync(offsets, 'auto', (r) => {
      this.autoCommitInFlight = false;
      // A retriable failure tries again after retry.backoff.ms; others are only logged.
      if (!r.ok && r.retriable) this.nextAutoCommitUs = this.now + ms(this.host.config['retry.backoff.ms']);
    });
  }

  /** Commits carry the member epoch; a member outside the group commits as epoch -1 (accepted only by an empty group). */
  commitOffsetsAsync(offsets: CommitOffsets, kind: CommitKind, onDone?: (r: CommitResult) => void): CommitResult {
    const identity = (): CommitIdentity | CommitRefusal =>
      this.subscribed && this.memberEpoch > 0
        ? { memberId: this.memberId, generationId: this.memberEpoch, groupInstanceId: this.groupInstanceId }
        : { memberId: this.subscribed ? this.memberId : '', generationId: -1, groupInstanceId: null };
    return this.offsets.commit(
      offsets,
      kind,
      identity,
      (e) => {
        switch (e) {
          case 'STALE_MEMBER_EPOCH':
            // The epoch moved meanwhile: a retried commit (commitSync, before a revocation, on close) goes again with the new one.
            return kind !== 'async' && kind !== 'auto';
          case 'UNKNOWN_MEMBER_ID':
            // CommitFailedException: the member is out of the group; its heartbeat finds out.
            return false;
          case 'FENCED_INSTANCE_ID':
            this.transitionToFatal(e, `static member ${this.groupInstanceId ?? ''} was fenced by a newer instance`);
            return false;
          default:
            return isRetriable(e);
        }
      },
      onDone,
    );
  }

  commitOffsetsSync(offsets: CommitOffsets, kind: CommitKind, timeoutMs: number, onDone: (r: CommitResult) => void): void {
    this.offsets.retryUntil(this.now + ms(timeoutMs), (cb) => this.commitOffsetsAsync(offsets, kind, cb), onDone);
  }

  // ---- close [AsyncKafkaConsumer.java `close`, `autoCommitOnClose`; AbstractMembershipManager.java `leaveGroup`] ----

  close(closeTimeoutMs: number, onDone: () => void): void {
    const h = this.host;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      this.closed = true;
      this.discovery.closed = true;
      this.heartbeats.stop();
      onDone();
    };
    const leave = (): void => {
      if (!this.subscribed || this.state === 'UNSUBSCRIBED' || this.state === 'FATAL' || this.state === 'FENCED' || this.state === 'STALE') {
        if (this.subscribed) this.releaseAsLost();
        return finish();
      }
      this.transitionTo('PREPARE_LEAVING', 'the consumer is being closed');
      // onPartitionsRevoked while in the group (epoch > 0), else onPartitionsLost.
      const owned = h.subscriptions.assignedTopicPartitions();
      if (owned.length > 0) {
        h.subscriptions.assign([]);
        h.partitionsRemoved(owned.map((tp) => tpKey(tp.topic, tp.partition)));
        if (this.memberEpoch > 0) this.emitAssignment(this.memberEpoch, [], owned, []);
        else this.emitAssignment(-1, [], [], owned);
      }
      this.current = NONE;
      this.target = NONE;
      this.memberEpoch = this.leaveGroupEpoch();
      this.transitionTo('LEAVING', 'the consumer is being closed');
      h.trace.emit('consumer.leave', h.id, { group: this.groupId, memberId: this.memberId, reason: 'the consumer is being closed', sent: this.discovery.known });
      this.leaveDone = finish;
      this.heartbeats.sendLeaveOnClose(() => this.completeLeave());
      // Do not wait for ever on the leave heartbeat's response.
      h.setTimer(ms(Math.min(closeTimeoutMs, h.config['request.timeout.ms'])), finish);
    };
    if (this.autoCommitEnabled && !this.failed && this.memberEpoch > 0) {
      this.commitOffsetsSync(h.subscriptions.allConsumed(), 'close', Math.min(closeTimeoutMs, h.config['request.timeout.ms']), () => leave());
    } else leave();
  }

  private completeLeave(): void {
    const done = this.leaveDone;
    this.leaveDone = null;
    done?.();
  }
}
