import { ms } from '../../core/time';
import type { Outcome } from '../net/networkClient';
import { FetchSessionHandler } from '../client/fetchSessionHandler';
import type { FetchPartitionResponse, FetchRequest, FetchResponse } from '../protocol';
import { batchesBytes, REQUEST_HEADER_BYTES, tpKey } from '../protocol';
import { lastOffset } from '../records';
import type { Partition } from './partition';
import { offsetTruncationState } from './rules/truncation';
import { defineKinds, num, oneOf, str, type KindsOf } from '../../core/traceSchema';

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
  sendFetch(leader: number, req: Omit<FetchRequest, 'correlationId'>, bytes: number, timeoutMs: number, done: (o: Outcome<FetchResponse>) => void): void;
  setTimer(delayUs: number, fn: () => void): void;
  emitTruncate(p: Partition, from: number, to: number, reason: 'diverging-epoch' | 'offset-out-of-range' | 'legacy-high-watermark' | 'leader-log-start'): void;
  emitFollowerAppend(p: Partition, base: number, last: number, epoch: number): void;
  emitFollowerHighWatermark(p: Partition, hw: number): void;
  /** A replica outside the ISR whose partition the follower throttle names, while the quota is exceeded [ReplicaFetcherThread `shouldFollowerThrottle`]. */
  shouldFollowerThrottle(p: Partition): boolean;
  /** Fetched bytes of a partition the follower throttle names count towards its quota. */
  recordFollowerThrottled(p: Partition, bytes: number): void;
}

interface FetchState {
  readonly partition: Partition;
  readonly leaderEpoch: number;
  /** Parked after FENCED_LEADER_EPOCH / NOT_LEADER_OR_FOLLOWER until metadata moves it. */
  parked: boolean;
  /** Retriable error: wait until this time (us). */
  delayedUntilUs: number;
}

/**
 * One replica fetcher per source broker [core/src/main/scala/kafka/server/ReplicaFetcherThread.scala,
 * AbstractFetcherThread.scala]: a single Fetch in flight for every partition this broker follows from that
 * leader; the leader long-polls it; responses are appended, truncated on a DivergingEpoch, and answered
 * with the next fetch at once.
 */
export class ReplicaFetcher {
  private readonly parts = new Map<string, FetchState>();
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
    this.parts.set(p.key, { partition: p, leaderEpoch: p.leaderEpoch, parked: false, delayedUntilUs: 0 });
    this.wake();
  }

  remove(p: Partition): void {
    this.parts.delete(p.key);
  }

  stop(): void {
    this.stopped = true;
    this.parts.clear();
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
    // [AbstractFetcherThread.buildFetch -> FetchSessionHandler.Builder].
    const session = this.session;
    session.begin();
    let fetchable = 0;
    let nextDelay = Infinity;
    let throttled = false;
    const maxBytes = this.host.config['replica.fetch.max.bytes'];
    const legacy = this.host.legacyHighWatermarkTruncation;
    for (const s of this.parts.values()) {
      if (s.parked) continue;
      if (s.delayedUntilUs > now) {
        nextDelay = Math.min(nextDelay, s.delayedUntilUs - now);
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
    const data = session.build();
    // Nothing to fetch and nothing to forget: no request [RemoteLeaderEndPoint.buildFetch]. Only throttled (or
    // backing-off) partitions: wait replica.fetch.backoff.ms and look again [AbstractFetcherThread `maybeFetch`].
    if (fetchable === 0 && data.forgottenTopicsData.length === 0) {
      if (throttled) nextDelay = Math.min(nextDelay, ms(this.host.config['replica.fetch.backoff.ms']));
      if (nextDelay !== Infinity) this.host.setTimer(nextDelay, () => this.fetch());
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
      },
      REQUEST_HEADER_BYTES + (data.partitions.length + data.forgottenTopicsData.length) * 32,
      c['replica.socket.timeout.ms'] + c['replica.fetch.wait.max.ms'],
      (o) => this.onResponse(o),
    );
  }

  private onResponse(o: Outcome<FetchResponse>): void {
    this.inFlight = false;
    if (this.stopped) return;
    const backoffUs = ms(this.host.config['replica.fetch.backoff.ms']);
    if (!o.ok) {
      // The whole request failed: the next one is full, and every partition backs off
      // [RemoteLeaderEndPoint.fetch -> FetchSessionHandler.handleError; AbstractFetcherThread.handlePartitionsWithErrors].
      this.session.handleError();
      for (const s of this.parts.values()) s.delayedUntilUs = this.nowUs() + backoffUs;
      this.host.setTimer(backoffUs, () => this.fetch());
      return;
    }
    if (!this.session.handleResponse(o.response)) {
      // A session error (or an unusable answer): no partition data, and the next request is full at once.
      this.fetch();
      return;
    }
    for (const r of o.response.partitions) {
      const s = this.parts.get(tpKey(r.topic, r.partition));
      if (!s || s.partition.leaderEpoch !== s.leaderEpoch) continue; // removed or moved on meanwhile
      this.processPartition(s, r, backoffUs);
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
