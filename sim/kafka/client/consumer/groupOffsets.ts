/**
 * Committed offsets between a group member and its coordinator, for both group protocols: fetching the committed
 * offsets of partitions without a position (OffsetFetch), and committing positions (OffsetCommit, once or
 * retried until a deadline). What a commit carries (generation or member epoch) and what its protocol-specific
 * errors mean is the caller's; the coordinator-level errors and the `consumer.commit` history are handled here.
 * [clients/.../consumer/internals/ConsumerCoordinator.java `sendOffsetCommitRequest`, `OffsetCommitResponseHandler`,
 * `fetchCommittedOffsets`; CommitRequestManager.java (the new consumer)]
 */
import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { Trace } from '../../../core/trace';
import { isRetriable, type KafkaError } from '../../errors';
import { tpKey, type OffsetCommitResponse, type OffsetFetchResponse } from '../../protocol';
import type { ClientMetadata } from '../metadataCache';
import type { CoordinatorDiscovery, CoordinatorDiscoveryHost } from './coordinatorDiscovery';
import type { ConsumerConfig } from '../../config/configs';
import { resetTargetFor } from './offsetReset';
import type { SubscriptionState } from './subscriptionState';

/** A commit's outcome, filled in when it completes. */
export interface CommitResult {
  done: boolean;
  ok: boolean;
  error: string;
  retriable: boolean;
}

export type CommitKind = 'auto' | 'before-revoke' | 'sync' | 'async' | 'close';

export type CommitOffsets = readonly { topic: string; partition: number; offset: number; leaderEpoch: number }[];

/** Who commits: the generation (classic) or member epoch (consumer protocol) and the member id the request carries. */
export interface CommitIdentity {
  readonly memberId: string;
  readonly generationId: number;
  readonly groupInstanceId: string | null;
}

/** A commit refused before it is sent (the member is rebalancing, or not in the group). */
export interface CommitRefusal {
  readonly error: string;
  readonly retriable: boolean;
  /** The generation (or member epoch) the history records for it. */
  readonly generationId: number;
}

export interface GroupOffsetsHost extends CoordinatorDiscoveryHost {
  readonly config: ConsumerConfig;
  readonly id: string;
  readonly trace: Trace;
  readonly subscriptions: SubscriptionState;
  readonly metadata: ClientMetadata;
  fatal(error: string, detail: string): void;
}

export class GroupOffsets {
  private fetchInFlight = false;
  private fetchRetryAtUs = 0;

  constructor(
    private readonly host: GroupOffsetsHost,
    private readonly discovery: CoordinatorDiscovery,
    private readonly groupId: string,
    /** The member id the history names when a commit completes. */
    private readonly memberIdNow: () => string,
  ) {}

  private get now(): Micros {
    return this.host.now;
  }

  /**
   * One OffsetCommit. `identity` says who commits (or refuses at once); `onError` interprets the errors of the
   * member's protocol and returns whether they are retriable, or undefined for the default reading.
   */
  commit(
    offsets: CommitOffsets,
    kind: CommitKind,
    identity: () => CommitIdentity | CommitRefusal,
    onError: (error: KafkaError, sent: CommitIdentity) => boolean | undefined,
    onDone?: (r: CommitResult) => void,
  ): CommitResult {
    const h = this.host;
    const result: CommitResult = { done: false, ok: false, error: '', retriable: false };
    const sentAt = this.now;
    const complete = (ok: boolean, error: string, retriable: boolean, generation: number): void => {
      result.done = true;
      result.ok = ok;
      result.error = error;
      result.retriable = retriable;
      h.trace.emit('consumer.commit', h.id, {
        group: this.groupId,
        memberId: this.memberIdNow(),
        generation,
        source: kind,
        offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })),
        ok,
        error,
        sentAt,
      });
      onDone?.(result);
      h.wake();
    };
    if (offsets.length === 0) {
      result.done = true;
      result.ok = true;
      result.error = 'NONE';
      onDone?.(result);
      return result;
    }
    const who = identity();
    if (!this.discovery.known) {
      this.discovery.lookup();
      complete(false, 'COORDINATOR_NOT_AVAILABLE', true, who.generationId);
      return result;
    }
    if ('error' in who) {
      complete(false, who.error, who.retriable, who.generationId);
      return result;
    }
    const request = {
      type: 'OffsetCommit' as const,
      groupId: this.groupId,
      generationId: who.generationId,
      memberId: who.memberId,
      groupInstanceId: who.groupInstanceId,
      offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: '' })),
    };
    h.net.send<typeof request, OffsetCommitResponse>(this.discovery.actor(), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => {
      if (!o.ok) {
        this.discovery.markUnknown(o.error);
        return complete(false, o.error, true, who.generationId);
      }
      const e: KafkaError = o.response.partitions.find((p) => p.error !== 'NONE')?.error ?? o.response.error;
      switch (e) {
        case 'NONE':
          return complete(true, 'NONE', false, who.generationId);
        case 'COORDINATOR_LOAD_IN_PROGRESS':
          return complete(false, e, true, who.generationId);
        case 'COORDINATOR_NOT_AVAILABLE':
        case 'NOT_COORDINATOR':
        case 'REQUEST_TIMED_OUT':
          this.discovery.markUnknown(e);
          return complete(false, e, true, who.generationId);
        default: {
          const retriable = onError(e, who);
          return complete(false, e, retriable ?? isRetriable(e), who.generationId);
        }
      }
    });
    return result;
  }

  /**
   * Retries `attempt` while it fails retriably (finding the coordinator again as needed) until it succeeds, fails
   * for good, or `deadline` passes. [ConsumerCoordinator.java `commitOffsetsSync`]
   */
  retryUntil(deadline: Micros, attempt: (onDone: (r: CommitResult) => void) => void, onDone: (r: CommitResult) => void): void {
    const retry = (): void => {
      if (this.now >= deadline) return onDone({ done: true, ok: false, error: 'TimeoutException', retriable: false });
      this.host.setTimer(ms(this.host.config['retry.backoff.ms']), () => this.retryUntil(deadline, attempt, onDone));
    };
    if (!this.discovery.known) {
      this.discovery.lookup();
      return retry();
    }
    attempt((result) => {
      if (result.ok || !result.retriable) return onDone(result);
      retry();
    });
  }

  /**
   * Partitions without a position ask for their committed offsets; a consumer-protocol member names itself
   * (`member`) so a fenced one cannot read. `onFatal` marks the member failed (auto.offset.reset=none).
   * [ConsumerCoordinator.java `refreshCommittedOffsetsIfNeeded`; OffsetsRequestManager / CommitRequestManager `fetchOffsets`]
   */
  refreshCommitted(member: { readonly memberId: string; readonly memberEpoch: number } | null, onFatal: () => void): void {
    const h = this.host;
    if (this.fetchInFlight || this.now < this.fetchRetryAtUs) return;
    const waiting = h.subscriptions.assignedPartitions().filter((s) => s.awaitingCommitted);
    if (waiting.length === 0) return;
    if (!this.discovery.known) {
      this.discovery.lookup();
      return;
    }
    this.fetchInFlight = true;
    const request = {
      type: 'OffsetFetch' as const,
      groupId: this.groupId,
      partitions: waiting.map((s) => ({ topic: s.topic, partition: s.partition })),
      // The consumer always asks for stable offsets (KIP-447). [src: ConsumerCoordinator.java `sendOffsetFetchRequest` (requireStable true)]
      requireStable: true,
      ...(member && { memberId: member.memberId, memberEpoch: member.memberEpoch }),
    };
    h.net.send<typeof request, OffsetFetchResponse>(this.discovery.actor(), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => {
      this.fetchInFlight = false;
      const error = o.ok ? o.response.error : o.error;
      if (error !== 'NONE') {
        if (error === 'NOT_COORDINATOR' || error === 'COORDINATOR_NOT_AVAILABLE' || !o.ok) this.discovery.markUnknown(error);
        this.fetchRetryAtUs = this.now + ms(h.config['retry.backoff.ms']);
        h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
        h.wake();
        return;
      }
      let unstable = false;
      for (const p of o.ok ? o.response.partitions : []) {
        const s = h.subscriptions.get(tpKey(p.topic, p.partition));
        if (!s || !s.awaitingCommitted) continue;
        // An open transaction holds offsets of the partition: ask again after the backoff. [ConsumerCoordinator.java `OffsetFetchResponseHandler` (UnstableOffsetCommitException)]
        if (p.error === 'UNSTABLE_OFFSET_COMMIT') {
          unstable = true;
          continue;
        }
        if (p.offset >= 0) {
          // The committed offset is the next record to read.
          h.subscriptions.seek(s, p.offset, p.leaderEpoch);
          // A position with a leader epoch is validated against the current leader first (KIP-320).
          s.validatedLeaderEpoch = p.leaderEpoch >= 0 ? p.leaderEpoch : h.metadata.leaderEpochOf(s.topic, s.partition);
          continue;
        }
        const target = resetTargetFor(h.config['auto.offset.reset']);
        if (target === null) {
          s.awaitingCommitted = false;
          onFatal();
          h.fatal('NoOffsetForPartitionException', `${s.key}: no committed offset and auto.offset.reset=none`);
          return;
        }
        h.subscriptions.requestReset(s, target, 'no committed offset');
      }
      if (unstable) {
        this.fetchRetryAtUs = this.now + ms(h.config['retry.backoff.ms']);
        h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
      }
      h.wake();
    });
  }

  /** When a backed-off offset fetch may go again (for the poll loop's wake-up). */
  fetchRetryAt(): Micros {
    return this.fetchRetryAtUs;
  }
}
