import { sortSmallBy } from '../../core/lists';
import { ms } from '../../core/time';
import type { Outcome } from '../net/networkClient';
import { FetchSessionHandler, type FetchRequestData } from '../client/fetchSessionHandler';
import type { FetchPartitionResponse, FetchRequest, FetchResponse } from '../protocol';
import { batchesBytes, REQUEST_HEADER_BYTES } from '../protocol';
import { lastOffset } from '../records';
import type { Partition } from './partition';
import { offsetTruncationState } from './rules/truncation';
import { defineKinds, num, oneOf, str, type KindsOf } from '../../core/traceSchema';

/** One round's request data, and what the fetcher does when there is nothing to send. */
interface Round {
  readonly data: FetchRequestData;
  /** Partitions the request wants (sent now or held by the session). */
  readonly fetchable: number;
  /** The soonest a backing-off partition may be fetched again (us from now), Infinity if none. */
  readonly nextDelay: number;
  /** Some partition was left out by the follower throttle. */
  readonly throttled: boolean;
}

/** What a follower's fetcher does to its log. */
export const FETCHER_KINDS = defineKinds({
  /** A follower cut its log back (divergence, out of range, or the legacy high-watermark rule). */
  'replica.truncate': {
    topic: str,
    partition: num,
    broker: num,
    from: num,
    to: num,
    reason: oneOf('diverging-epoch', 'offset-out-of-range', 'legacy-high-watermark', 'leader-log-start'),
    leader: num,
    leaderEpoch: num,
  },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof FETCHER_KINDS> {}
}

/** What a fetcher needs from its broker. */
export interface FetcherHost {
  readonly brokerId: number;
  readonly nodeId: string;
  readonly brokerEpoch: number;
  readonly config: {
    readonly 'replica.fetch.wait.max.ms': number;
    readonly 'replica.fetch.min.bytes': number;
    readonly 'replica.fetch.max.bytes': number;
    readonly 'replica.fetch.response.max.bytes': number;
    readonly 'replica.fetch.backoff.ms': number;
    readonly 'replica.socket.timeout.ms': number;
  };
  readonly legacyHighWatermarkTruncation: boolean;
  /** `req` is built for this one request and not kept: it becomes the message. */
  sendFetch(leader: number, req: FetchRequest, bytes: number, timeoutMs: number, done: (o: Outcome<FetchResponse>) => void): void;
  setTimer(delayUs: number, fn: () => void): void;
  emitTruncate(p: Partition, from: number, to: number, reason: 'diverging-epoch' | 'offset-out-of-range' | 'legacy-high-watermark' | 'leader-log-start'): void;
  emitFollowerAppend(p: Partition, base: number, last: number, epoch: number): void;
  emitFollowerHighWatermark(p: Partition, hw: number): void;
  /** A replica outside the ISR whose partition the follower throttle names, while the quota is exceeded [ReplicaFetcherThread `shouldFollowerThrottle`]. */
  shouldFollowerThrottle(p: Partition): boolean;
  /** Fetched bytes of a partition the follower throttle names count towards its quota. */
  recordFollowerThrottled(p: Partition, bytes: number): void;
  /** The follower throttle names some partition here: `shouldFollowerThrottle` may hold for some partition. */
  followerThrottleConfigured(): boolean;
}

interface FetchState {
  readonly partition: Partition;
  readonly leaderEpoch: number;
  /** Parked after FENCED_LEADER_EPOCH / NOT_LEADER_OR_FOLLOWER until metadata moves it. */
  parked: boolean;
  /** Retriable error: wait until this time (us). */
  delayedUntilUs: number;
  /** Its place in the fetcher's partition order (a re-added partition keeps its place, as in a Map). */
  readonly order: number;
  /** On the dirty list: its fetch parameters or whether it is fetched may differ from the last request's. */
  dirty: boolean;
}

/**
 * One replica fetcher per source broker [core/src/main/scala/kafka/server/ReplicaFetcherThread.scala,
 * AbstractFetcherThread.scala]: a single Fetch in flight for every partition this broker follows from that
 * leader; the leader long-polls it; responses are appended, truncated on a DivergingEpoch, and answered
 * with the next fetch at once.
 */
export class ReplicaFetcher {
  private readonly parts = new Map<string, FetchState>();
  /** The same states by topic and partition number (responses name partitions by both). */
  private readonly byTopic = new Map<string, (FetchState | undefined)[]>();
  private nextOrder = 0;
  /**
   * The partitions whose next `add` to the session may differ from the last one: appended to, truncated, moved
   * start, (re)added or removed, parked or un-parked, backing off. Between full walks only these are looked at,
   * so a round costs the partitions that changed, not all assigned ones; the request is the same.
   */
  private dirty: FetchState[] = [];
  /** The last round walked every partition because the follower throttle named some (it may leave some out). */
  private throttledWalk = false;
  /** The incremental fetch session with the leader (KIP-227) [RemoteLeaderEndPoint.fetchSessionHandler]. */
  private readonly session = new FetchSessionHandler();
  private inFlight = false;
  /** A forced fsync (flush.messages) of an append holds the next fetch until it completes. */
  private blockedUntilUs = 0;
  private wakePending = false;
  private stopped = false;

  constructor(
    readonly leaderId: number,
    private readonly host: FetcherHost,
    private readonly nowUs: () => number,
  ) {}

  get size(): number {
    return this.parts.size;
  }

  /** Starts following `p` from its leader at `leaderEpoch` [AbstractFetcherThread.addPartitions]. */
  add(p: Partition): void {
    if (this.host.legacyHighWatermarkTruncation) {
      // Before KIP-101 a replica that becomes a follower truncates to its own high watermark, then fetches.
      const leo = p.log.logEndOffset;
      const hw = p.log.highWatermark;
      if (hw < leo) {
        p.log.truncateTo(hw);
        this.host.emitTruncate(p, leo, hw, 'legacy-high-watermark');
      }
    }
    const old = this.parts.get(p.key);
    const s: FetchState = { partition: p, leaderEpoch: p.leaderEpoch, parked: false, delayedUntilUs: 0, order: old ? old.order : this.nextOrder++, dirty: false };
    this.parts.set(p.key, s);
    let list = this.byTopic.get(p.topic);
    if (!list) this.byTopic.set(p.topic, (list = []));
    list[p.partition] = s;
    this.markDirty(s);
    this.wake();
  }

  remove(p: Partition): void {
    const s = this.parts.get(p.key);
    if (!s) return;
    this.parts.delete(p.key);
    const list = this.byTopic.get(p.topic)!;
    list[p.partition] = undefined;
    // Still on the list, so the next incremental request forgets it.
    this.markDirty(s);
  }

  stop(): void {
    this.stopped = true;
    this.parts.clear();
    this.byTopic.clear();
    this.dirty = [];
  }

  /** The follower's log start offset moved outside a fetch (retention): the next request says so. */
  logStartOffsetMoved(key: string): void {
    const s = this.parts.get(key);
    if (s) this.markDirty(s);
  }

  private markDirty(s: FetchState): void {
    if (s.dirty) return;
    s.dirty = true;
    this.dirty.push(s);
  }

  private wake(): void {
    if (this.inFlight || this.wakePending || this.stopped) return;
    this.wakePending = true;
    this.host.setTimer(0, () => {
      this.wakePending = false;
      this.fetch();
    });
  }

  private fetch(): void {
    if (this.inFlight || this.stopped || this.parts.size === 0) return;
    const now = this.nowUs();
    if (this.blockedUntilUs > now) {
      this.host.setTimer(this.blockedUntilUs - now, () => this.fetch());
      return;
    }
    // Every partition ready for fetching goes into the session; the request carries only those that changed
    // [AbstractFetcherThread.buildFetch -> FetchSessionHandler.Builder]. With a session open and no throttle
    // to consult, the partitions off the dirty list are known to be unchanged and are not looked at.
    const session = this.session;
    const throttleConfigured = this.host.followerThrottleConfigured();
    const walkAll = session.isFull || throttleConfigured || this.throttledWalk;
    this.throttledWalk = throttleConfigured;
    const r = walkAll ? this.walkAll(now) : this.walkDirty(now);
    const data = r.data;
    const fetchable = r.fetchable;
    const nextDelay = r.nextDelay;
    // Nothing to fetch and nothing to forget: no request [RemoteLeaderEndPoint.buildFetch]. Only throttled (or
    // backing-off) partitions: wait replica.fetch.backoff.ms and look again [AbstractFetcherThread `maybeFetch`].
    if (fetchable === 0 && data.forgottenTopicsData.length === 0) {
      const delay = r.throttled ? Math.min(nextDelay, ms(this.host.config['replica.fetch.backoff.ms'])) : nextDelay;
      if (delay !== Infinity) this.host.setTimer(delay, () => this.fetch());
      return;
    }
    this.inFlight = true;
    const c = this.host.config;
    this.host.sendFetch(
      this.leaderId,
      {
        type: 'Fetch',
        replicaId: this.host.brokerId,
        replicaEpoch: this.host.brokerEpoch,
        maxWaitMs: c['replica.fetch.wait.max.ms'],
        minBytes: c['replica.fetch.min.bytes'],
        maxBytes: c['replica.fetch.response.max.bytes'],
        isolationLevel: 'read_uncommitted',
        sessionId: data.sessionId,
        sessionEpoch: data.sessionEpoch,
        partitions: data.partitions,
        forgottenTopicsData: data.forgottenTopicsData,
        correlationId: 0, // last, where NetworkClient.send stamps it: one shape from the start
      },
      REQUEST_HEADER_BYTES + (data.partitions.length + data.forgottenTopicsData.length) * 32,
      c['replica.socket.timeout.ms'] + c['replica.fetch.wait.max.ms'],
      (o) => this.onResponse(o),
    );
  }

  /** Every partition, in order, into a `begin` round (the full request, or a round the throttle may thin). */
  private walkAll(now: number): Round {
    const session = this.session;
    session.begin();
    // The walk looks at every partition: the dirty list starts again with those still backing off.
    for (const s of this.dirty) s.dirty = false;
    this.dirty = [];
    let fetchable = 0;
    let nextDelay = Infinity;
    let throttled = false;
    const maxBytes = this.host.config['replica.fetch.max.bytes'];
    const legacy = this.host.legacyHighWatermarkTruncation;
    for (const s of this.parts.values()) {
      if (s.parked) continue;
      if (s.delayedUntilUs > now) {
        nextDelay = Math.min(nextDelay, s.delayedUntilUs - now);
        this.markDirty(s);
        continue;
      }
      // A throttled partition stays out of this round, so the session forgets it until it is fetched again
      // [RemoteLeaderEndPoint.buildFetch: `!shouldFollowerThrottle` before builder.add].
      if (this.host.shouldFollowerThrottle(s.partition)) {
        throttled = true;
        continue;
      }
      const p = s.partition;
      const log = p.log;
      session.add(p.key, p.topic, p.partition, log.logEndOffset, legacy ? -1 : log.latestEpoch(), s.leaderEpoch, log.logStartOffset, maxBytes);
      fetchable++;
    }
    return { data: session.build(), fetchable, nextDelay, throttled };
  }

  /**
   * The dirty partitions, in the fetcher's order, into a `beginChanges` round: each is added again (the session
   * sends it if its parameters changed) or forgotten (removed, parked, backing off). Every other partition is
   * in the session as last sent, so the session's size is the number of partitions fetched.
   */
  private walkDirty(now: number): Round {
    const session = this.session;
    session.beginChanges();
    const list = this.dirty;
    this.dirty = [];
    sortSmallBy(list, orderOf); // stable like Array.sort, without its scratch copy per round
    let nextDelay = Infinity;
    const maxBytes = this.host.config['replica.fetch.max.bytes'];
    const legacy = this.host.legacyHighWatermarkTruncation;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      s.dirty = false;
      const p = s.partition;
      const current = this.parts.get(p.key);
      if (current !== s) {
        // Removed (forget it), or re-added (its new state is on the list too).
        if (current === undefined) session.forget(p.key);
        continue;
      }
      if (s.parked) {
        session.forget(p.key);
        continue;
      }
      if (s.delayedUntilUs > now) {
        nextDelay = Math.min(nextDelay, s.delayedUntilUs - now);
        session.forget(p.key);
        this.markDirty(s);
        continue;
      }
      const log = p.log;
      session.add(p.key, p.topic, p.partition, log.logEndOffset, legacy ? -1 : log.latestEpoch(), s.leaderEpoch, log.logStartOffset, maxBytes);
    }
    const data = session.buildChanges();
    return { data, fetchable: session.size, nextDelay, throttled: false };
  }

  private state(topic: string, partition: number): FetchState | undefined {
    return this.byTopic.get(topic)?.[partition];
  }

  private onResponse(o: Outcome<FetchResponse>): void {
    this.inFlight = false;
    if (this.stopped) return;
    const backoffUs = ms(this.host.config['replica.fetch.backoff.ms']);
    if (!o.ok) {
      // The whole request failed: the next one is full, and every partition backs off
      // [RemoteLeaderEndPoint.fetch -> FetchSessionHandler.handleError; AbstractFetcherThread.handlePartitionsWithErrors].
      this.session.handleError();
      for (const s of this.parts.values()) {
        s.delayedUntilUs = this.nowUs() + backoffUs;
        this.markDirty(s);
      }
      this.host.setTimer(backoffUs, () => this.fetch());
      return;
    }
    if (!this.session.handleResponse(o.response)) {
      // A session error (or an unusable answer): no partition data, and the next request is full at once.
      this.fetch();
      return;
    }
    const rs = o.response.partitions;
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i]!;
      const s = this.state(r.topic, r.partition);
      if (!s || s.partition.leaderEpoch !== s.leaderEpoch) continue; // removed or moved on meanwhile
      this.processPartition(s, r, backoffUs);
      // Appended, truncated, moved its start, parked or backing off: the next request looks at it again.
      this.markDirty(s);
    }
    this.fetch();
  }

  private processPartition(s: FetchState, r: FetchPartitionResponse, backoffUs: number): void {
    const p = s.partition;
    const log = p.log;
    switch (r.error) {
      case 'NONE': {
        if (r.divergingEpoch) {
          // KIP-595 style: the leader told us where our log diverges [AbstractFetcherThread.truncateOnFetchResponse].
          const leo = log.logEndOffset;
          const t = offsetTruncationState(r.divergingEpoch, leo, leo, (e) => log.endOffsetForEpoch(e));
          // Always truncate, even at or above our end: the log then drops an epoch entry assigned at its end by a
          // term as leader that appended nothing, or the next fetch would claim that epoch again and loop.
          log.truncateTo(t.offset);
          if (t.offset < leo) this.host.emitTruncate(p, leo, t.offset, 'diverging-epoch');
          return;
        }
        if (r.batches.length > 0) {
          const first = r.batches[0]!;
          // A compacted leader's log has gaps, so the first batch may start above our end. Below it, the batch
          // straddles our end: the logs diverged (the pre-KIP-101 rule allows it) and the append fails, so the
          // partition backs off like any failed partition [AbstractFetcherThread.processFetchRequest].
          if (first.baseOffset < log.logEndOffset) {
            s.delayedUntilUs = this.nowUs() + backoffUs;
            return;
          }
          const res = log.appendAsFollower(r.batches);
          if (res.error) {
            s.delayedUntilUs = this.nowUs() + backoffUs;
            return;
          }
          if (res.flushCompletesAt !== null) this.blockedUntilUs = Math.max(this.blockedUntilUs, res.flushCompletesAt);
          const last = r.batches[r.batches.length - 1]!;
          this.host.emitFollowerAppend(p, first.baseOffset, lastOffset(last), last.partitionLeaderEpoch);
          this.host.recordFollowerThrottled(p, batchesBytes(r.batches));
        }
        // The follower's HW trails the leader's by one fetch [ReplicaFetcherThread.processPartitionData].
        const hwBefore = log.highWatermark;
        log.updateHighWatermark(Math.min(r.highWatermark, log.logEndOffset));
        if (log.highWatermark !== hwBefore) this.host.emitFollowerHighWatermark(p, log.highWatermark);
        if (r.logStartOffset > log.logStartOffset) log.maybeIncrementLogStartOffset(r.logStartOffset);
        return;
      }
      case 'OFFSET_OUT_OF_RANGE': {
        // [AbstractFetcherThread.handleOutOfRangeError / fetchOffsetAndTruncate]
        const leo = log.logEndOffset;
        if (r.logEndOffset >= 0 && r.logEndOffset < leo) {
          log.truncateTo(r.logEndOffset);
          this.host.emitTruncate(p, leo, r.logEndOffset, 'offset-out-of-range');
        } else if (r.logStartOffset > leo) {
          log.truncateFullyAndStartAt(r.logStartOffset);
          this.host.emitTruncate(p, leo, r.logStartOffset, 'leader-log-start');
        } else {
          s.delayedUntilUs = this.nowUs() + backoffUs;
        }
        return;
      }
      case 'FENCED_LEADER_EPOCH':
      case 'NOT_LEADER_OR_FOLLOWER':
        // Our metadata is ahead of or behind the leader's; new metadata will re-add the partition.
        s.parked = true;
        s.delayedUntilUs = this.nowUs() + backoffUs;
        this.host.setTimer(backoffUs, () => {
          s.parked = false;
          this.markDirty(s);
          this.wake();
        });
        return;
      default:
        s.delayedUntilUs = this.nowUs() + backoffUs;
        this.host.setTimer(backoffUs, () => this.wake());
        return;
    }
  }
}

/** A fetch state's place in the fetcher's partition order. */
function orderOf(s: FetchState): number {
  return s.order;
}
