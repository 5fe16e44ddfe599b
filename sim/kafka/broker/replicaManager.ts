import type { Random } from '../../core/random';
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms } from '../../core/time';
import type { KafkaError } from '../errors';
import type { LogManager } from '../log/logManager';
import type {
  FetchPartitionResponse,
  LeaderHint,
  FetchPartition,
  FetchRequest,
  FetchResponse,
  ProducePartitionResponse,
  ProduceRequest,
  ProduceResponse,
} from '../protocol';
import { batchesBytes, tpKey } from '../protocol';
import type { RecordBatch } from '../records';
import { contextPartitions, FetchManager, type CachedPartition, type FetchContext, type FetchSession } from './fetchSession';
import { recordRepeatedFetches } from './rules/followerState';
import { Partition, type PartitionState, type ReplicaHost } from './partition';
import { ReplicaFetcher, type FetcherHost } from './replicaFetcher';
import { UnifiedLogAdapter } from './unifiedLogAdapter';

/** What the replica manager needs from its broker, beyond what a partition and a fetcher need. */
export interface ReplicaManagerHost extends ReplicaHost, Omit<FetcherHost, 'config' | 'legacyHighWatermarkTruncation' | 'brokerId' | 'nodeId'> {
  readonly logManager: LogManager;
  nowUs(): number;
  reply(to: string, msg: object, bytes: number): void;
  /** Closes the connection to a client (an acks=0 produce that failed: the client learns only this way). */
  closeConnection(to: string): void;
  cancelTimer(id: TimerId): void;
  setTimerId(delayUs: number, fn: () => void): TimerId;
  /** A follower outside the ISR of a partition the leader throttle names, while the quota is exceeded [ReplicaManager `shouldLeaderThrottle`]. */
  shouldLeaderThrottle(p: Partition, replicaId: number): boolean;
  /** Bytes sent to followers for partitions the leader throttle names [KafkaApis: quotas.leader.record(sizeOfThrottledPartitions)]. */
  recordLeaderThrottled(p: Partition, bytes: number): void;
  /** The leader of a partition in the broker's applied metadata, -1s when unknown [KRaftMetadataCache.getPartitionInfo]. */
  metadataLeader(topic: string, partition: number): LeaderHint;
  /** Registered and unfenced [KRaftMetadataCache.getAliveBrokerNode]. */
  isAliveBroker(brokerId: number): boolean;
  /** The broker's stream for fetch session ids. */
  readonly random: Random;
}

interface DelayedProduce {
  readonly results: ProducePartitionResponse[];
  /** Partitions (indexes into results) still waiting for the HW. */
  readonly pending: Set<number>;
  readonly respond: (results: ProducePartitionResponse[]) => void;
  timer: TimerId;
  done: boolean;
}

interface ProduceWaiter {
  readonly op: DelayedProduce;
  readonly index: number;
  readonly requiredOffset: number;
}

interface DelayedFetch {
  readonly from: string;
  readonly req: FetchRequest;
  /** Its fetch session's view: which partitions it reads and how the answer is cut down. */
  readonly ctx: FetchContext;
  /** The order it was parked in (watchers complete in that order). */
  readonly seq: number;
  timer: TimerId;
  done: boolean;
}

/**
 * The delayed fetches watching one partition, in the order they were parked, each with its part of the fetch;
 * completed ones are dropped lazily, when they have come to outnumber the rest. A session's fetch is not listed
 * here fetch by fetch: the session's partition is, once, and the session holds its parked fetch.
 * [src: DelayedOperationPurgatory `Watchers`, `purgeCompleted`]
 */
class FetchWatchers {
  readonly ops: DelayedFetch[] = [];
  readonly parts: FetchPartition[] = [];
  /** Session partitions of this partition: their session's parked fetch (if any) watches it. */
  readonly sessionParts: CachedPartition[] = [];
  /** Watchers at the last purge: the next one is due when the list has doubled since. */
  private purgeAt = 16;
  private sessionPurgeAt = 16;
  /** Scans under way (completions): no purge moves entries meanwhile. */
  scanning = 0;
  /** `ops` may be out of parking order (a session's fetch moved here when its session changed). */
  unordered = false;

  get isEmpty(): boolean {
    return this.ops.length === 0 && this.sessionParts.length === 0;
  }

  watch(op: DelayedFetch, fp: FetchPartition): void {
    if (this.ops.length >= this.purgeAt && this.scanning === 0) this.purge();
    const n = this.ops.length;
    if (n > 0 && this.ops[n - 1]!.seq > op.seq) this.unordered = true;
    this.ops.push(op);
    this.parts.push(fp);
  }

  watchSession(cp: CachedPartition): void {
    if (this.sessionParts.length >= this.sessionPurgeAt && this.scanning === 0) this.purgeSessions();
    this.sessionParts.push(cp);
  }

  private purge(): void {
    let n = 0;
    for (let i = 0; i < this.ops.length; i++) {
      const op = this.ops[i]!;
      if (op.done) continue;
      this.ops[n] = op;
      this.parts[n] = this.parts[i]!;
      n++;
    }
    this.ops.length = n;
    this.parts.length = n;
    this.purgeAt = Math.max(16, 2 * n);
  }

  /** Drops partitions forgotten by their session, and those of sessions gone with nothing parked. */
  private purgeSessions(): void {
    const list = this.sessionParts;
    let n = 0;
    for (let i = 0; i < list.length; i++) {
      const cp = list[i]!;
      const s = cp.session;
      if (s === null || (s.closed && (s.parked === null || (s.parked as DelayedFetch).done))) continue;
      list[n++] = cp;
    }
    list.length = n;
    this.sessionPurgeAt = Math.max(16, 2 * n);
  }
}

const NO_QUIET: readonly CachedPartition[] = Object.freeze([]);

/** A partition this broker has no replica of. */
function notLeaderResponse(tp: { readonly topic: string; readonly partition: number }): FetchPartitionResponse {
  return {
    topic: tp.topic,
    partition: tp.partition,
    error: 'NOT_LEADER_OR_FOLLOWER',
    highWatermark: -1,
    logStartOffset: -1,
    logEndOffset: -1,
    divergingEpoch: null,
    batches: [],
    currentLeader: null,
  };
}

/**
 * The broker's replicas [core/src/main/scala/kafka/server/ReplicaManager.scala]: every partition this broker
 * holds, the produce and fetch paths with their purgatories (DelayedProduce waits for the high watermark,
 * DelayedFetch for bytes), the replica fetchers, and the ISR expiration task.
 */
export class ReplicaManager {
  readonly partitions = new Map<string, Partition>();
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  private readonly produceWaiters = new Map<string, ProduceWaiter[]>();
  /** partition -> the delayed fetches waiting on it, each with its part of the fetch for that partition. */
  private readonly fetchWaiters = new Map<string, FetchWatchers>();
  /** Incremental fetch sessions (KIP-227) of the fetchers of this broker's leaders. */
  private readonly fetchManager: FetchManager;
  /**
   * While a Produce request is being appended: the partitions appended so far and whether each append moved the
   * HW. Their delayed operations are checked once the whole request is appended, not after each partition
   * [ReplicaManager.appendRecords -> addCompletePurgatoryAction; KafkaApis.handle -> tryCompleteActions].
   */
  private produceActions: { p: Partition; hwIncreased: boolean }[] | null = null;
  /** Counts what may wake a delayed fetch (an HW move, appends, a leadership change): did a read set one off? */
  private wakes = 0;

  /** The broker is in controlled shutdown: replicas it is no longer in the ISR of stop fetching. */
  private inControlledShutdown = false;
  private stopped = false;

  constructor(private readonly host: ReplicaManagerHost) {
    this.fetchManager = new FetchManager(host.config['max.incremental.fetch.session.cache.slots'], host.random);
    this.fetchManager.onSessionUpdate = (s) => this.unparkSession(s);
  }

  /** [ReplicaManager.scala `beginControlledShutdown`] */
  beginControlledShutdown(): void {
    this.inControlledShutdown = true;
  }

  /** Partitions by topic and index: the fetch and produce paths look them up without building keys. */
  private readonly byTopic = new Map<string, (Partition | undefined)[]>();

  partition(topic: string, partition: number): Partition | undefined {
    return this.byTopic.get(topic)?.[partition];
  }

  /** Bumped whenever a partition is created or removed: a session partition's remembered lookup is stale then. */
  private partitionsVersion = 0;

  /** The partition a session partition names, looked up once per change of the partition set (not per read). */
  private sessionPartitionOf(cp: CachedPartition): Partition | undefined {
    if (cp.localVersion !== this.partitionsVersion) {
      cp.local = this.partition(cp.topic, cp.partition);
      cp.localVersion = this.partitionsVersion;
    }
    return cp.local as Partition | undefined;
  }

  /** Starts the ISR expiration task: every replica.lag.time.max.ms / 2 [ReplicaManager.startup]. */
  startIsrExpiration(): void {
    const period = ms(this.host.config['replica.lag.time.max.ms'] / 2);
    const tick = () => {
      if (this.stopped) return;
      for (const p of this.partitions.values()) p.maybeShrinkIsr();
      this.host.setTimerId(period, tick);
    };
    this.host.setTimerId(period, tick);
  }

  // ---- metadata ----

  /**
   * Applies a partition's committed state for this broker [ReplicaManager.applyDelta]: creates the local
   * replica (and log) if needed, makes it leader or follower, starts or moves its fetcher.
   */
  applyPartitionState(topic: string, partitionId: number, s: PartitionState): void {
    const key = `${topic}-${partitionId}`;
    const me = this.host.brokerId;
    let p = this.partitions.get(key);
    if (!s.replicas.includes(me)) {
      if (p) {
        // Reassigned away (or the topic deleted): the replica stops and its log is deleted
        // [ReplicaManager.applyDelta -> stopPartitions(delete = true)].
        this.stopReplica(p, 'NOT_LEADER_OR_FOLLOWER');
        this.host.logManager.deleteLog({ topic, partition: partitionId });
      }
      return;
    }
    if (!p) {
      const log = this.host.logManager.getOrCreateLog({ topic, partition: partitionId });
      p = new Partition(topic, partitionId, new UnifiedLogAdapter(log), this.host);
      this.partitions.set(key, p);
      this.partitionsVersion++;
      let list = this.byTopic.get(topic);
      if (!list) this.byTopic.set(topic, (list = []));
      list[partitionId] = p;
    }
    const wasLeader = p.isLeader;
    const change = p.applyState(s);
    if (this.inControlledShutdown && change !== 'unchanged' && !p.isLeader && (s.leader < 0 || !s.isr.includes(me))) {
      // During controlled shutdown a replica without a leader, or outside the ISR, stops fetching: the broker
      // is leaving [ReplicaManager.scala `applyLocalFollowersDelta`].
      this.removeFromFetchers(p);
      if (wasLeader) this.failWaiters(p, 'NOT_LEADER_OR_FOLLOWER');
      return;
    }
    if (change === 'became-leader') {
      this.removeFromFetchers(p);
    } else if (change === 'became-follower') {
      this.removeFromFetchers(p);
      if (wasLeader) this.failWaiters(p, 'NOT_LEADER_OR_FOLLOWER');
      if (s.leader >= 0) this.fetcherFor(s.leader).add(p);
    }
  }

  /** This broker no longer hosts the replica: fetching stops and waiting requests fail with `error`. */
  private stopReplica(p: Partition, error: KafkaError): void {
    this.removeFromFetchers(p);
    p.stop();
    this.failWaiters(p, error);
    this.partitions.delete(p.key);
    this.partitionsVersion++;
    const list = this.byTopic.get(p.topic);
    if (list) list[p.partition] = undefined;
  }

  /** The topic was deleted: every local replica stops and its log is deleted [ReplicaManager.stopPartitions]. */
  deleteTopic(topic: string): void {
    const list = this.byTopic.get(topic);
    if (!list) return;
    for (const p of list) {
      if (!p) continue;
      this.stopReplica(p, 'UNKNOWN_TOPIC_OR_PARTITION');
      this.host.logManager.deleteLog({ topic, partition: p.partition });
    }
    this.byTopic.delete(topic);
    this.partitionsVersion++;
  }

  private fetcherFor(leader: number): ReplicaFetcher {
    let f = this.fetchers.get(leader);
    if (!f) {
      f = new ReplicaFetcher(leader, this.fetcherHost(), () => this.host.nowUs());
      this.fetchers.set(leader, f);
    }
    return f;
  }

  /** A log's start offset moved outside replication (retention): its fetcher's next request carries it. */
  logStartOffsetMoved(topic: string, partition: number): void {
    // Its session partitions read it again (their fetchers are told the new start).
    this.partition(topic, partition)?.wakeQuietReaders();
    if (this.fetchers.size === 0) return;
    const key = tpKey(topic, partition);
    for (const f of this.fetchers.values()) f.logStartOffsetMoved(key);
  }

  private removeFromFetchers(p: Partition): void {
    for (const f of this.fetchers.values()) f.remove(p);
  }

  private fetcherHost(): FetcherHost {
    const h = this.host;
    return {
      brokerId: h.brokerId,
      nodeId: h.nodeId,
      get brokerEpoch() {
        return h.brokerEpoch;
      },
      config: h.config,
      legacyHighWatermarkTruncation: h.legacyHighWatermarkTruncation,
      sendFetch: (leader, req, bytes, timeoutMs, done) => h.sendFetch(leader, req, bytes, timeoutMs, done),
      setTimer: (d, fn) => h.setTimer(d, fn),
      emitTruncate: (p, from, to, reason) => h.emitTruncate(p, from, to, reason),
      emitFollowerAppend: (p, base, last, epoch) => {
        h.emitFollowerAppend(p, base, last, epoch);
      },
      emitFollowerHighWatermark: (p, hw) => h.emitFollowerHighWatermark(p, hw),
      shouldFollowerThrottle: (p) => h.shouldFollowerThrottle(p),
      recordFollowerThrottled: (p, bytes) => h.recordFollowerThrottled(p, bytes),
      followerThrottleConfigured: () => h.followerThrottleConfigured(),
    };
  }

  // ---- produce ----

  /** Handles a Produce request [ReplicaManager.appendRecords; KafkaApis.handleProduceRequest]. */
  handleProduce(from: string, req: ProduceRequest, refused?: ReadonlyMap<number, KafkaError>): void {
    const results: ProducePartitionResponse[] = [];
    const waiters: { index: number; requiredOffset: number; p: Partition }[] = [];
    const nowMs = this.host.nowMs();
    // With flush.messages the leader's fsync finishes before it answers (Kafka flushes inside the append).
    let flushedAt = 0;
    const actions: { p: Partition; hwIncreased: boolean }[] = [];
    this.produceActions = actions;
    for (let i = 0; i < req.partitions.length; i++) {
      const d = req.partitions[i]!;
      const p = this.partition(d.topic, d.partition);
      // KIP-890: a transactional batch its coordinator did not verify is not appended.
      const unverified = refused?.get(i);
      if (unverified !== undefined) {
        results.push({ topic: d.topic, partition: d.partition, error: unverified, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: p?.log.logStartOffset ?? -1 });
        continue;
      }
      if (!p) {
        results.push({ topic: d.topic, partition: d.partition, error: 'NOT_LEADER_OR_FOLLOWER', baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 });
        continue;
      }
      const r = p.appendRecordsToLeader(d.batch, req.acks);
      if (r.error === 'NONE') {
        this.host.metrics.messagesIn.mark(d.batch.lastOffsetDelta + 1);
        this.host.metrics.bytesIn.mark(d.batch.sizeInBytes);
      }
      results.push({ topic: d.topic, partition: d.partition, error: r.error, baseOffset: r.baseOffset, logAppendTimeMs: nowMs, logStartOffset: p.log.logStartOffset });
      if (r.flushCompletesAt !== null) flushedAt = Math.max(flushedAt, r.flushCompletesAt);
      if (r.error === 'NONE') {
        if (actions.length === 0 || actions[actions.length - 1]!.p !== p) actions.push({ p, hwIncreased: false });
        if (req.acks === -1) waiters.push({ index: results.length - 1, requiredOffset: r.lastOffset + 1, p });
      }
    }
    this.produceActions = null;
    this.answerProduce(from, req, results, waiters, flushedAt);
    this.completeProduceActions(actions);
  }

  /** The answer to a Produce once every partition is appended: at once, or a DelayedProduce that waits for the HW. */
  private answerProduce(
    from: string,
    req: ProduceRequest,
    results: ProducePartitionResponse[],
    waiters: readonly { index: number; requiredOffset: number; p: Partition }[],
    flushedAt: number,
  ): void {
    if (req.acks === 0) {
      // No answer is sent, so an error can only be signalled by closing the connection; the client then
      // refreshes its metadata [KafkaApis.handleProduceRequest: closeConnection when acks == 0 and an error].
      if (results.some((r) => r.error !== 'NONE')) this.host.closeConnection(from);
      return;
    }
    const respond = (answers: ProducePartitionResponse[]) => {
      const { partitions: rs, nodeEndpoints } = this.withLeaderHints(answers, (e) => e === 'NOT_LEADER_OR_FOLLOWER');
      const correlationId = req.correlationId;
      const resp: ProduceResponse = nodeEndpoints ? { type: 'ProduceResponse', partitions: rs, nodeEndpoints, correlationId } : { type: 'ProduceResponse', partitions: rs, correlationId };
      const send = () => this.host.reply(from, resp, 32 * rs.length);
      const wait = flushedAt - this.host.nowUs();
      if (wait > 0) this.host.setTimer(wait, send);
      else send();
    };
    if (waiters.length === 0) {
      respond(results);
      return;
    }
    // acks=all: wait until the high watermark covers every appended batch [DelayedProduce].
    const op: DelayedProduce = { results, pending: new Set(), respond, timer: NO_TIMER, done: false };
    for (const w of waiters) {
      const status = w.p.checkEnoughReplicasReachOffset(w.requiredOffset);
      if (status !== null) {
        if (status !== 'NONE') results[w.index] = { ...results[w.index]!, error: status };
        continue;
      }
      op.pending.add(w.index);
      let list = this.produceWaiters.get(w.p.key);
      if (!list) this.produceWaiters.set(w.p.key, (list = []));
      list.push({ op, index: w.index, requiredOffset: w.requiredOffset });
    }
    if (op.pending.size === 0) {
      respond(results);
      return;
    }
    op.timer = this.host.setTimerId(ms(req.timeoutMs), () => {
      if (op.done) return;
      op.done = true;
      // Every partition still waiting times out; its data stays in the log.
      for (const i of op.pending) results[i] = { ...results[i]!, error: 'REQUEST_TIMED_OUT' };
      respond(results);
    });
  }

  /**
   * The delayed operations a whole Produce request may complete, partition by partition in request order: an
   * append that moved the HW checks produce and every fetch, one that did not checks the followers' fetches
   * (new bytes in the log) [ReplicaManager.addCompletePurgatoryAction: LeaderHwChange INCREASED / SAME].
   */
  private completeProduceActions(actions: readonly { p: Partition; hwIncreased: boolean }[]): void {
    for (const a of actions) {
      if (a.hwIncreased) this.completeProduceWaiters(a.p);
      this.completeFetchWaiters(a.p, a.hwIncreased ? 'leader-append-hw' : 'leader-append');
    }
  }

  /** Told of every HW increase of a partition this broker leads (share-partitions wake their parked ShareFetches). */
  highWatermarkListener: ((topic: string, partition: number) => void) | null = null;

  /**
   * The HW moved: complete the produce requests and consumer fetches it now covers [Partition
   * .tryCompleteDelayedRequests]. During a Produce request's appends this waits for the whole request.
   */
  onHighWatermarkIncreased(p: Partition): void {
    this.wakes++;
    this.highWatermarkListener?.(p.topic, p.partition);
    const deferred = this.produceActions;
    if (deferred !== null) {
      for (const a of deferred) if (a.p === p) a.hwIncreased = true;
      if (deferred.length === 0 || deferred[deferred.length - 1]!.p !== p) deferred.push({ p, hwIncreased: true });
      return;
    }
    this.completeProduceWaiters(p);
    this.completeFetchWaiters(p, 'hw');
  }

  /** [DelayedProduce.tryComplete] for every produce request waiting on `p`. */
  private completeProduceWaiters(p: Partition): void {
    const list = this.produceWaiters.get(p.key);
    if (list && list.length > 0) {
      let i = 0;
      while (i < list.length) {
        const w = list[i]!;
        if (w.op.done) {
          list.splice(i, 1);
          continue;
        }
        const status = p.checkEnoughReplicasReachOffset(w.requiredOffset);
        if (status === null) {
          i++;
          continue;
        }
        list.splice(i, 1);
        this.resolveWaiter(w, status);
      }
    }
  }

  private resolveWaiter(w: ProduceWaiter, status: KafkaError): void {
    const op = w.op;
    if (op.done || !op.pending.delete(w.index)) return;
    if (status !== 'NONE') op.results[w.index] = { ...op.results[w.index]!, error: status };
    if (op.pending.size === 0) {
      op.done = true;
      this.host.cancelTimer(op.timer);
      op.respond(op.results);
    }
  }

  /** Leadership lost: every waiting produce for the partition fails with `error`. */
  private failWaiters(p: Partition, error: KafkaError): void {
    const list = this.produceWaiters.get(p.key);
    if (list) {
      this.produceWaiters.delete(p.key);
      for (const w of list) if (!w.op.done) this.resolveWaiter(w, error);
    }
    this.completeFetchWaiters(p, 'leadership');
  }

  // ---- fetch ----

  /**
   * Handles a Fetch from a follower or a consumer [ReplicaManager.fetchMessages; KafkaApis.handleFetchRequest]:
   * its fetch session says which partitions to read (a session error is answered at once); the answer goes now
   * when it is ready, else the fetch waits up to maxWaitMs in purgatory.
   */
  handleFetch(from: string, req: FetchRequest): void {
    const ctx = this.fetchManager.newContext(req, req.replicaId >= 0, this.host.nowMs());
    if (ctx.kind === 'error') {
      this.sendFetchResponse(from, req, ctx, []);
      return;
    }
    const wakesBefore = this.wakes;
    const read = this.readAll(req, ctx);
    if (read.ready || req.maxWaitMs <= 0) {
      this.sendFetchResponse(from, req, ctx, read.partitions);
      return;
    }
    const op: DelayedFetch = { from, req, ctx, seq: ++this.parkSeq, timer: NO_TIMER, done: false };
    if (ctx.kind === 'incremental' && ctx.session.parked === null) this.parkOnSession(op, ctx.session);
    else {
      const parts = contextPartitions(ctx);
      for (let i = 0; i < parts.length; i++) this.watchersOf(parts[i]!).watch(op, parts[i]!);
    }
    // Checked once more now that it watches: what the read itself set off (a follower's fetch that moved the HW
    // and completed produces and coordinator writes appending to these partitions) woke the watchers before
    // this fetch was among them. [src: DelayedOperationPurgatory.java `tryCompleteElseWatch`; DelayedOperation `safeTryCompleteOrElse`]
    // When the read found no bytes and woke nothing, nothing moved since: the check would find none either.
    if ((read.bytes > 0 || this.wakes !== wakesBefore) && this.peekBytes(op) >= req.minBytes) {
      this.completeFetch(op);
      return;
    }
    op.timer = this.host.setTimerId(ms(req.maxWaitMs), () => this.completeFetch(op));
  }

  /** Numbers parked fetches in parking order. */
  private parkSeq = 0;

  private watchersOf(cp: CachedPartition): FetchWatchers {
    let waiting = cp.watchers as FetchWatchers | undefined;
    if (waiting === undefined) {
      waiting = this.fetchWaiters.get(cp.key);
      if (!waiting) this.fetchWaiters.set(cp.key, (waiting = new FetchWatchers()));
      cp.watchers = waiting;
    }
    return waiting;
  }

  /** One park for a session's fetch: partitions new to the session are listed with their watchers, once. */
  private parkOnSession(op: DelayedFetch, s: FetchSession): void {
    s.parked = op;
    const un = s.unwatched;
    for (let i = 0; i < un.length; i++) {
      const cp = un[i]!;
      if (cp.session === s) this.watchersOf(cp).watchSession(cp);
    }
    un.length = 0;
  }

  /**
   * A request changes a session while its fetch is parked (a client that gave up waiting): that fetch goes on
   * watching the partitions it was parked on, listed with each.
   */
  private unparkSession(s: FetchSession): void {
    const op = s.parked as DelayedFetch | null;
    s.parked = null;
    if (op === null || op.done) return;
    const parts = s.partitions;
    for (let i = 0; i < parts.length; i++) this.watchersOf(parts[i]!).watch(op, parts[i]!);
  }

  /**
   * Reads every partition of a fetch context, in its order, within the request's byte budget. The answer carries
   * each partition with records, an error or a diverging epoch; one with nothing new only when the request is
   * full (or sessionless) or its HW or log start moved since the fetcher was last told. `ready` when there is
   * nothing to read, an error, a diverging epoch or minBytes of data [ReplicaManager.fetchMessages;
   * DelayedFetch.tryComplete]. Follower state is updated on the first read of a fetch, not on the read that completes it.
   */
  private readAll(req: FetchRequest, ctx: FetchContext, fromPurgatory = false): { ready: boolean; bytes: number; partitions: FetchPartitionResponse[] } {
    const out: FetchPartitionResponse[] = [];
    // A read may start inside another (what a follower's fetch set off completes a delayed fetch): the outer one's state is kept.
    const outerReady = this.readReady;
    const outerBytes = this.readBytes;
    const outerBudget = this.readBudget;
    this.readReady = false;
    this.readBytes = 0;
    this.readBudget = req.maxBytes;
    const parts = contextPartitions(ctx);
    const committed = req.replicaId < 0 && req.isolationLevel === 'read_committed';
    if (ctx.kind === 'incremental' && !ctx.session.reading) this.readSession(req, ctx.session, committed, fromPurgatory, out);
    else {
      const answerAll = ctx.kind !== 'incremental';
      const nowMs = this.host.nowMs();
      for (let i = 0; i < parts.length; i++) this.readOne(parts[i]!, req, answerAll, committed, nowMs, fromPurgatory, out);
    }
    const bytes = this.readBytes;
    const ready = this.readReady || parts.length === 0 || bytes >= req.minBytes;
    this.readReady = outerReady;
    this.readBytes = outerBytes;
    this.readBudget = outerBudget;
    return { ready, bytes, partitions: out };
  }

  /** The current read's state (readAll and readOne). */
  private readReady = false;
  private readBytes = 0;
  private readBudget = 0;
  /** Numbers session reads: a partition quiet at the start of read n has quietRound n. */
  private readRound = 0;

  /**
   * Test-only, for every broker (restarted ones too): called for each partition a session read skips as quiet,
   * before the read, with what a real read of it would be given (the scenario test runs one beside it and checks
   * it returns nothing).
   */
  static onQuietChecked: ((p: Partition, cp: CachedPartition, replicaId: number, committed: boolean) => void) | null = null;

  /**
   * An incremental session's read [IncrementalFetchContext]: only the partitions that are not quiet are read; a
   * quiet one would return nothing and be left out of the answer (KIP-227), and its follower's fetch is recorded
   * all the same (recordRepeatedFetches). A read that wakes one of its own partitions (what it set off appended
   * to it) reads every partition after that point in order, as a read of them all would.
   */
  private readSession(req: FetchRequest, s: FetchSession, committed: boolean, fromPurgatory: boolean, out: FetchPartitionResponse[]): void {
    if (s.quietReplicaId !== req.replicaId || s.quietCommitted !== committed) {
      s.wakeAll();
      s.quietReplicaId = req.replicaId;
      s.quietCommitted = committed;
    }
    s.reading = true;
    const nowMs = this.host.nowMs();
    const list = s.partitions;
    const round = ++this.readRound;
    // A follower's fetch counts for every partition of it, quiet or not [Partition.fetchRecords -> updateFollowerFetchState].
    const recorded = req.replicaId >= 0 && !fromPurgatory ? s.quietNow() : NO_QUIET;
    for (let i = 0; i < recorded.length; i++) recorded[i]!.quietRound = round;
    const hook = ReplicaManager.onQuietChecked;
    if (hook !== null) {
      for (let i = 0; i < list.length; i++) {
        const cp = list[i]!;
        if (cp.quiet) hook(this.sessionPartitionOf(cp)!, cp, req.replicaId, committed);
      }
    }
    const loud = s.sortedLoud();
    const n = loud.length;
    const wakes = s.wakes;
    let rest = -1;
    for (let i = 0; i < n; i++) {
      const cp = loud[i]!;
      const at = cp.pos;
      this.readOne(cp, req, false, committed, nowMs, fromPurgatory, out);
      if (s.wakes !== wakes) {
        rest = at + 1;
        break;
      }
    }
    let partial = false;
    if (rest >= 0) {
      // Partitions after this point as a read of every partition finds them now.
      for (let i = rest; i < list.length; i++) {
        const cp = list[i]!;
        if (cp.quiet) continue;
        if (cp.quietRound === round) {
          cp.quietRound = 0;
          partial = true;
        }
        this.readOne(cp, req, false, committed, nowMs, fromPurgatory, out);
      }
    }
    s.reading = false;
    if (recorded.length > 0) recordRepeatedFetches(partial ? recorded.filter((cp) => cp.quietRound === round) : recorded, nowMs, req.replicaEpoch);
  }

  /** Reads one partition of a fetch into `out` (see readAll). */
  private readOne(cp: CachedPartition, req: FetchRequest, answerAll: boolean, committed: boolean, nowMs: number, fromPurgatory: boolean, out: FetchPartitionResponse[]): void {
    const p = this.sessionPartitionOf(cp);
    if (!p) {
      this.readReady = true;
      out.push(notLeaderResponse(cp));
      return;
    }
    // Most partitions of a session read nothing again, fetch after fetch: an unchanged one only records the
    // follower's fetch (ISR membership depends on it; not on the read completing a delayed fetch)
    // [Partition.fetchRecords -> updateFollowerFetchState].
    if (p.repeatEmptyRead(cp, req.replicaId, req.replicaEpoch, committed, nowMs, fromPurgatory)) {
      if (answerAll || cp.changed(p.readHighWatermark, p.readLogStartOffset)) out.push(p.emptyReadResponse());
      return;
    }
    // A throttled follower's read returns no records (its fetch still counts) [ReplicaManager.readFromLog `shouldLeaderThrottle`].
    const throttled = req.replicaId >= 0 && this.host.shouldLeaderThrottle(p, req.replicaId);
    const r = p.fetchAsLeader(cp, req.replicaId, req.replicaEpoch, throttled ? 0 : Math.max(0, this.readBudget), req.isolationLevel, throttled, cp, fromPurgatory);
    if (r === null) {
      // Nothing read: answered in a full context, or when the fetcher's view of the HW or log start is stale.
      if (answerAll || cp.changed(p.readHighWatermark, p.readLogStartOffset)) out.push(p.emptyReadResponse());
      return;
    }
    const b = batchesBytes(r.batches);
    this.readBytes += b;
    this.readBudget -= b;
    if (r.error !== 'NONE' || r.divergingEpoch) this.readReady = true;
    out.push(r);
  }

  /**
   * After a session's answer is made: the partitions it read that would read nothing again and are not to be
   * sent again (what the fetcher was told is current) turn quiet, registered with their partition, which wakes them.
   */
  private settleSession(s: FetchSession): void {
    if (s.reading) return;
    s.settleLoud(this.turnsQuiet);
  }

  private readonly turnsQuiet = (cp: CachedPartition): boolean => {
    const p = this.sessionPartitionOf(cp);
    const s = cp.session!;
    if (p === undefined || !p.memoHolds(cp, s.quietReplicaId, s.quietCommitted) || cp.changed(cp.memoHighWatermark, cp.memoLogStartOffset)) return false;
    p.addQuietReader(cp);
    return true;
  };

  /**
   * Completes the delayed fetches on `p` that are now ready, in the order they were parked. Followers wait for new
   * bytes in the log, consumers for bytes below the HW, everyone for leadership changes.
   */
  private completeFetchWaiters(p: Partition, why: 'leader-append' | 'leader-append-hw' | 'hw' | 'leadership'): void {
    this.wakes++;
    const waiting = this.fetchWaiters.get(p.key);
    if (!waiting || waiting.isEmpty) return;
    // The ones parked now, in the order they were parked (a completion may park new ones: they wait their turn).
    let ops: readonly DelayedFetch[] = waiting.ops;
    let parts: readonly FetchPartition[] = waiting.parts;
    let n = ops.length;
    const depth = this.scanDepth++;
    if (waiting.sessionParts.length > 0 || waiting.unordered) {
      // Scratch lists by nesting depth (a completion may complete fetches on another partition meanwhile).
      if (this.scanOps.length <= depth) {
        this.scanOps.push([]);
        this.scanParts.push([]);
      }
      ops = this.scanOps[depth]!;
      parts = this.scanParts[depth]!;
      n = this.parkedOn(waiting, this.scanOps[depth]!, this.scanParts[depth]!);
    }
    const followers = why !== 'hw';
    const consumers = why === 'hw' || why === 'leader-append-hw';
    waiting.scanning++;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      const fp = parts[i]!;
      if (op.done) continue;
      const isFollower = op.req.replicaId >= 0;
      if (why === 'leadership' || (isFollower ? followers : consumers)) {
        if (why === 'leadership') {
          this.completeFetch(op);
          continue;
        }
        // The partition that moved first: when it alone has minBytes, so does the whole fetch.
        if (this.peekPartition(p, fp, isFollower, op.req.replicaId, op.req.isolationLevel === 'read_committed') >= op.req.minBytes || this.peekBytes(op) >= op.req.minBytes) this.completeFetch(op);
      }
    }
    waiting.scanning--;
    this.scanDepth--;
  }

  private scanDepth = 0;
  private readonly scanOps: DelayedFetch[][] = [];
  private readonly scanParts: FetchPartition[][] = [];

  /** The fetches parked on a partition now, listed or by session, in parking order, each with its part of the fetch. */
  private parkedOn(waiting: FetchWatchers, ops: DelayedFetch[], parts: FetchPartition[]): number {
    ops.length = 0;
    parts.length = 0;
    for (let i = 0; i < waiting.ops.length; i++) {
      const op = waiting.ops[i]!;
      if (op.done) continue;
      ops.push(op);
      parts.push(waiting.parts[i]!);
    }
    let ordered = !waiting.unordered;
    const sp = waiting.sessionParts;
    for (let i = 0; i < sp.length; i++) {
      const cp = sp[i]!;
      const op = cp.session?.parked as DelayedFetch | null | undefined;
      if (op === null || op === undefined || op.done) continue;
      if (ops.length > 0 && ops[ops.length - 1]!.seq > op.seq) ordered = false;
      ops.push(op);
      parts.push(cp);
    }
    if (!ordered) {
      // Insertion sort by parking order (a handful of entries).
      for (let i = 1; i < ops.length; i++) {
        const op = ops[i]!;
        const fp = parts[i]!;
        let j = i - 1;
        while (j >= 0 && ops[j]!.seq > op.seq) {
          ops[j + 1] = ops[j]!;
          parts[j + 1] = parts[j]!;
          j--;
        }
        ops[j + 1] = op;
        parts[j + 1] = fp;
      }
    }
    return ops.length;
  }

  /** Bytes a fetch would get now, without updating any state (a leadership change counts as ready). */
  private peekBytes(op: DelayedFetch): number {
    let bytes = 0;
    const isFollower = op.req.replicaId >= 0;
    const committed = op.req.isolationLevel === 'read_committed';
    // A quiet partition adds nothing (it is at the end of what it may read): a session's loud ones, in its order, are all.
    const s = op.ctx.kind === 'incremental' ? op.ctx.session : null;
    const parts = s !== null && !s.reading && s.quietReplicaId === op.req.replicaId && s.quietCommitted === committed ? s.sortedLoud() : contextPartitions(op.ctx);
    for (let i = 0; i < parts.length; i++) {
      const cp = parts[i]!;
      bytes += this.peekPartition(this.sessionPartitionOf(cp), cp, isFollower, op.req.replicaId, committed);
      if (bytes >= op.req.minBytes) return bytes;
    }
    return bytes;
  }

  /** Bytes one partition of a fetch would get now; a partition this broker no longer leads counts as ready. */
  private peekPartition(p: Partition | undefined, fp: FetchPartition, isFollower: boolean, replicaId = -1, readCommitted = false): number {
    if (!p || !p.isLeader) return Number.POSITIVE_INFINITY;
    // A throttled partition adds nothing to a delayed follower fetch [DelayedFetch `tryComplete`].
    if (isFollower && this.host.shouldLeaderThrottle(p, replicaId)) return 0;
    // read_committed consumers count only bytes below the LSO. [src: DelayedFetch `tryComplete` (FetchIsolation)]
    const upTo = isFollower ? p.log.logEndOffset : readCommitted ? p.log.lastStableOffset : p.log.highWatermark;
    if (fp.fetchOffset >= upTo) return 0;
    return batchesBytes(p.log.read(fp.fetchOffset, fp.maxBytes, upTo, true).batches);
  }

  private completeFetch(op: DelayedFetch): void {
    if (op.done) return;
    op.done = true; // its watchers drop it lazily
    if (op.ctx.kind === 'incremental' && op.ctx.session.parked === op) op.ctx.session.parked = null;
    this.host.cancelTimer(op.timer);
    // The completing read leaves follower state alone: the first read recorded this fetch. [src: DelayedFetch.scala `onComplete`]
    const read = this.readAll(op.req, op.ctx, true);
    this.sendFetchResponse(op.from, op.req, op.ctx, read.partitions);
  }

  private sendFetchResponse(from: string, req: FetchRequest, ctx: FetchContext, answers: FetchPartitionResponse[]): void {
    // Leader hints go in before the session keeps what changed (an error is always answered) [KafkaApis.handleFetchRequest
    // processResponseCallback -> fetchContext.updateAndGenerateResponseData].
    const { partitions: hinted, nodeEndpoints } = this.withLeaderHints(answers, (e) => e === 'NOT_LEADER_OR_FOLLOWER' || e === 'FENCED_LEADER_EPOCH');
    const r = this.fetchManager.respond(ctx, this.host.nowMs(), hinted);
    if (ctx.kind === 'incremental') this.settleSession(ctx.session);
    let bytes = 0;
    for (let i = 0; i < r.partitions.length; i++) {
      const p = r.partitions[i]!;
      const b = batchesBytes(p.batches);
      bytes += b + 32;
      if (req.replicaId < 0) this.host.metrics.bytesOut.mark(b);
      else this.host.metrics.replicationBytesOut.mark(b);
      // Bytes of throttled partitions sent to a follower count towards the leader quota [KafkaApis: quotas.leader.record(sizeOfThrottledPartitions)].
      if (req.replicaId >= 0 && b > 0) {
        const part = this.partition(p.topic, p.partition);
        if (part) this.host.recordLeaderThrottled(part, b);
      }
    }
    const resp: FetchResponse = nodeEndpoints
      ? { type: 'FetchResponse', correlationId: req.correlationId, error: r.error, sessionId: r.sessionId, partitions: r.partitions, nodeEndpoints }
      : { type: 'FetchResponse', correlationId: req.correlationId, error: r.error, sessionId: r.sessionId, partitions: r.partitions };
    this.host.reply(from, resp, bytes);
  }

  /**
   * KIP-951: a partition answered with a leadership error (`hinted`) carries the current leader as this broker
   * knows it (its own replica's view, else its metadata), and the response lists the live ones among those
   * leaders, so the client can go to the new leader without waiting for a Metadata round trip
   * [KafkaApis.scala `getCurrentLeader`, handleProduceRequest (v10+: NOT_LEADER_OR_FOLLOWER), handleFetchRequest
   * (v16+: NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH)]. The common answer, no such error, is returned as is.
   */
  private withLeaderHints<R extends { topic: string; partition: number; error: KafkaError; currentLeader?: LeaderHint | null }>(
    answers: R[],
    hinted: (e: KafkaError) => boolean,
  ): { partitions: R[]; nodeEndpoints: number[] | null } {
    let nodes: number[] | null = null;
    let out = answers;
    for (let i = 0; i < answers.length; i++) {
      const a = answers[i]!;
      if (!hinted(a.error)) continue;
      if (out === answers) out = [...answers];
      const local = this.partition(a.topic, a.partition);
      const hint = local ? { leaderId: local.leader, leaderEpoch: local.leaderEpoch } : this.host.metadataLeader(a.topic, a.partition);
      out[i] = { ...a, currentLeader: hint };
      nodes ??= [];
      if (hint.leaderId >= 0 && !nodes.includes(hint.leaderId) && this.host.isAliveBroker(hint.leaderId)) nodes.push(hint.leaderId);
    }
    return { partitions: out, nodeEndpoints: nodes };
  }

  /**
   * An internal write as leader with acks=all semantics (the group coordinator's records in
   * __consumer_offsets): `done` gets NONE once the HW covers the batch, or the error, or REQUEST_TIMED_OUT.
   * Writes to one partition complete in offset order.
   */
  appendAsLeaderAndWait(
    topic: string,
    partition: number,
    batch: RecordBatch,
    timeoutMs: number,
    done: (error: KafkaError) => void,
    origin: 'CLIENT' | 'COORDINATOR' = 'CLIENT',
  ): void {
    const p = this.partition(topic, partition);
    if (!p) {
      done('NOT_LEADER_OR_FOLLOWER');
      return;
    }
    const r = p.appendRecordsToLeader(batch, -1, origin);
    if (r.error !== 'NONE') {
      done(r.error);
      return;
    }
    this.host.metrics.messagesIn.mark(batch.lastOffsetDelta + 1);
    this.host.metrics.bytesIn.mark(batch.sizeInBytes);
    this.completeFetchWaiters(p, 'leader-append');
    const results: ProducePartitionResponse[] = [{ topic, partition, error: 'NONE', baseOffset: r.baseOffset, logAppendTimeMs: -1, logStartOffset: -1 }];
    const finish = (rs: ProducePartitionResponse[]) => done(rs[0]!.error);
    const status = p.checkEnoughReplicasReachOffset(r.lastOffset + 1);
    if (status !== null) {
      done(status);
      return;
    }
    const op: DelayedProduce = { results, pending: new Set([0]), respond: finish, timer: NO_TIMER, done: false };
    let list = this.produceWaiters.get(p.key);
    if (!list) this.produceWaiters.set(p.key, (list = []));
    list.push({ op, index: 0, requiredOffset: r.lastOffset + 1 });
    op.timer = this.host.setTimerId(ms(timeoutMs), () => {
      if (op.done) return;
      op.done = true;
      finish([{ ...results[0]!, error: 'REQUEST_TIMED_OUT' }]);
    });
  }

  /** Stops every fetcher and the ISR expiration task (process shutdown). */
  shutdown(): void {
    this.stopped = true;
    for (const f of this.fetchers.values()) f.stop();
    this.fetchers.clear();
  }
}
