import type { BrokerMetrics } from './brokerMetrics';
import { UNSTAMPED, type Trace } from '../../core/trace';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import type { FetchPartition, FetchPartitionResponse } from '../protocol';
import { tpKey } from '../protocol';
import { lastOffset, type RecordBatch } from '../records';
import type { PartitionLog } from './partitionLog';
import { resetFollowerState, updateFetchState, type FollowerState } from './rules/followerState';
import { nextHighWatermark } from './rules/highWatermark';
import { canJoinIsr, outOfSyncReplicas } from './rules/isr';
import { divergingEpoch } from './rules/truncation';
import { defineKinds, list, nullable, num, oneOf, optional, str, type KindsOf } from '../../core/traceSchema';

/** A partition replica's state as it changes. */
export const PARTITION_KINDS = defineKinds({
  /** A replica appended a batch. Leaders list the values (null for tombstones). */
  'replica.append': {
    topic: str,
    partition: num,
    broker: num,
    base: num,
    last: num,
    epoch: num,
    role: oneOf('leader', 'follower'),
    values: optional(list(nullable(str))),
    /** A transaction marker (a control batch, one offset): the leader appended it for WriteTxnMarkers. */
    control: optional(oneOf('COMMIT', 'ABORT')),
    /** With `control`: the producer whose transaction the marker ends, and the epoch it carries. */
    producerId: optional(num),
    producerEpoch: optional(num),
  },
  /**
   * The leader's last stable offset moved while a transaction holds it below the high watermark (or stopped
   * doing so): read_committed consumers read up to `lso`. Not emitted for partitions without transactions.
   */
  'replica.lso': { topic: str, partition: num, broker: num, lso: num, hw: num, firstUnstableOffset: nullable(num) },
  /** A replica's high watermark moved: the leader's advances it, a follower's follows the leader's by a fetch. */
  'replica.hw': { topic: str, partition: num, broker: num, hw: num, leo: num, role: optional(oneOf('follower')) },
  /** A replica took a role for a leader epoch. */
  'replica.role': {
    topic: str,
    partition: num,
    broker: num,
    role: oneOf('leader', 'follower', 'none'),
    leader: num,
    leaderEpoch: num,
    isr: list(num),
    leo: num,
    hw: num,
  },
  /** The leader proposed an ISR change to the controller (`change`, not `kind`: that name is the event's own). */
  'replica.alter-isr': { topic: str, partition: num, broker: num, change: oneOf('shrink', 'expand'), from: list(num), to: list(num), reason: str },
  /** The leader refused a produce before appending. */
  'replica.produce-rejected': { topic: str, partition: num, broker: num, error: str, isr: list(num), minIsr: num },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof PARTITION_KINDS> {}
}

const NO_BATCHES: readonly RecordBatch[] = Object.freeze([]);

/** Source of Partition.stateVersion values: unique across partitions, so a memo never matches another replica object. */
let lastStateVersion = 0;

/**
 * What a fetch session's partition remembers of its last read that found nothing (a caught-up follower in the ISR,
 * or a consumer at the end of what it may read): while the partition's role, ISR, log end, HW and log start (and
 * LSO for read_committed) stay as they were, the same request reads nothing again, and a repeat only records the
 * follower's fetch. Any change of the request's parameters resets memoVersion to -1.
 */
export interface EmptyReadMemo {
  /** The partition's stateVersion when remembered; -1: nothing remembered. */
  memoVersion: number;
  memoReplicaId: number;
  memoCommitted: boolean;
  memoLogEndOffset: number;
  memoHighWatermark: number;
  memoLogStartOffset: number;
  /** read_committed: the LSO it read up to. */
  memoLastStableOffset: number;
  /** The follower's state the repeat updates (a follower's memo only). */
  memoFollower: FollowerState | null;
}

/**
 * A fetch session's partition whose repeat read of this partition would find nothing and change nothing (see
 * CachedPartition.quiet): the partition wakes it whenever something that read depends on may have changed.
 */
export interface QuietReader {
  quiet: boolean;
  /** The partition it is registered with and that partition's quietWakes then (one entry per partition and wake). */
  quietOn: object | null;
  quietWakes: number;
  wakeQuiet(): void;
}

/** A partition as the controller's committed metadata describes it. */
export interface PartitionState {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly elr: readonly number[];
}

/** What a partition needs from its broker. */
export interface ReplicaHost {
  readonly brokerId: number;
  readonly nodeId: string;
  readonly trace: Trace;
  readonly config: BrokerConfig;
  nowMs(): number;
  /** min(min.insync.replicas, replication factor) from the metadata the broker applied. */
  effectiveMinIsr(topic: string): number;
  /** Registered, unfenced, not shutting down, and (when given) with this broker epoch [Partition.isReplicaIsrEligible]. */
  isReplicaIsrEligible(brokerId: number, brokerEpoch: number): boolean;
  /** Sends an AlterPartition for this partition to the active controller. */
  sendAlterPartition(p: Partition, newIsr: readonly number[]): void;
  /** Lets waiting produce requests and fetches see the new high watermark. */
  onHighWatermarkIncreased(p: Partition): void;
  /** The old rule (before KIP-101): followers truncate to their high watermark. */
  readonly legacyHighWatermarkTruncation: boolean;
  /** The broker's meters (IsrShrinksPerSec, IsrExpandsPerSec). */
  readonly metrics: BrokerMetrics;
}

/** An ISR change sent to the controller and not yet answered [Partition.scala PendingExpandIsr / PendingShrinkIsr]. */
interface PendingIsr {
  readonly kind: 'shrink' | 'expand';
  readonly proposed: readonly number[];
  /** Maximal ISR while pending: for an expansion the larger set (stricter for the HW), for a shrink the old one. */
  readonly maximal: readonly number[];
  /** After an error that needs new metadata, no more proposals until it arrives. */
  awaitingMetadata: boolean;
}

/**
 * One replica of a partition on one broker [core/src/main/scala/kafka/cluster/Partition.scala]: its log,
 * its role, and — as leader — what it knows about each follower, the ISR it proposes, and the high
 * watermark it advances.
 */
export class Partition {
  leader = -1;
  leaderEpoch = -1;
  partitionEpoch = -1;
  replicas: readonly number[] = [];
  /** The ISR the controller committed. */
  isr: readonly number[] = [];
  elr: readonly number[] = [];
  private followers = new Map<number, FollowerState>();
  /** The same states, as a list (the HW rule reads them all). */
  private followerList: FollowerState[] = [];
  private pending: PendingIsr | null = null;
  /**
   * What the last fetchAsLeader that read nothing saw (it returns null rather than a response object: most
   * partitions of most fetches have nothing new, and their session leaves them out of the answer).
   */
  readHighWatermark = -1;
  readLogStartOffset = -1;
  private readLogEndOffset = -1;
  /** The log end offset when this leader epoch began (a follower must reach it to join the ISR). */
  leaderEpochStartOffset = 0;
  /**
   * Changes whenever the role, leader epoch, replicas, ISR, a pending ISR change or the follower states change:
   * an EmptyReadMemo taken at another version is stale. (The log's offsets are compared by value.)
   */
  stateVersion = ++lastStateVersion;

  private bumpStateVersion(): void {
    this.stateVersion = ++lastStateVersion;
    this.wakeQuietReaders();
  }

  /** Session partitions whose repeat read of this partition is known to find nothing (see QuietReader). */
  private readonly quietReaders: QuietReader[] = [];
  /** Counts wakes of quietReaders (a reader registered since the last one is not added twice). */
  private quietWakes = 0;

  /** Registers a session partition whose repeat read finds nothing while this partition stays as it is. */
  addQuietReader(r: QuietReader): void {
    if (r.quietOn === this && r.quietWakes === this.quietWakes) return;
    r.quietOn = this;
    r.quietWakes = this.quietWakes;
    this.quietReaders.push(r);
  }

  /**
   * Something a read depends on may have changed (role, leader epoch, ISR, follower state, LEO, HW, log start,
   * LSO): every quiet reader is read again next time.
   */
  wakeQuietReaders(): void {
    const list = this.quietReaders;
    if (list.length === 0) return;
    this.quietWakes++;
    for (let i = 0; i < list.length; i++) list[i]!.wakeQuiet();
    list.length = 0;
  }

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly log: PartitionLog,
    private readonly host: ReplicaHost,
  ) {
    this.key = tpKey(topic, partition);
  }

  get isLeader(): boolean {
    return this.leader === this.host.brokerId;
  }

  /** "topic-partition", the key the broker's maps use. */
  readonly key: string;

  /** The committed ISR plus any replica being added (the set the HW and acks=all wait for). */
  get maximalIsr(): readonly number[] {
    return this.pending ? this.pending.maximal : this.isr;
  }

  get hasPendingIsrChange(): boolean {
    return this.pending !== null;
  }

  // ---- role changes from metadata ----

  /**
   * Applies committed partition state [ReplicaManager.applyDelta -> Partition.makeLeader / makeFollower].
   * Returns what changed for this broker, so the broker can start or stop fetching.
   */
  applyState(s: PartitionState): 'became-leader' | 'became-follower' | 'updated' | 'unchanged' {
    const me = this.host.brokerId;
    if (s.leaderEpoch < this.leaderEpoch || (s.leaderEpoch === this.leaderEpoch && s.partitionEpoch <= this.partitionEpoch)) return 'unchanged';
    const newEpoch = s.leaderEpoch > this.leaderEpoch;
    const wasLeader = this.isLeader;
    this.bumpStateVersion();
    this.leader = s.leader;
    this.leaderEpoch = s.leaderEpoch;
    this.partitionEpoch = s.partitionEpoch;
    this.replicas = s.replicas;
    this.isr = s.isr;
    this.elr = s.elr;
    // New committed state supersedes any ISR change in flight.
    this.pending = null;
    if (s.leader === me) {
      if (newEpoch || !wasLeader) {
        this.makeLeader();
        return 'became-leader';
      }
      this.maybeIncrementLeaderHW();
      return 'updated';
    }
    if (newEpoch || wasLeader) {
      this.clearFollowers();
      this.trace('follower');
      return 'became-follower';
    }
    return 'updated';
  }

  private makeLeader(): void {
    const now = this.host.nowMs();
    const leo = this.log.logEndOffset;
    this.leaderEpochStartOffset = leo;
    this.lsoTraced = -1;
    // KIP-279: the new epoch starts at our log end offset, recorded at once so any follower's epoch is answerable.
    this.log.assignEpochStartOffset(this.leaderEpoch, leo);
    this.clearFollowers();
    for (const r of this.replicas) {
      if (r !== this.host.brokerId) this.addFollower(resetFollowerState(r, this.isr.includes(r), now));
    }
    this.trace('leader');
    this.maybeIncrementLeaderHW();
  }

  private trace(role: 'leader' | 'follower' | 'none'): void {
    this.host.trace.emit('replica.role', this.host.nodeId, {
      topic: this.topic,
      partition: this.partition,
      broker: this.host.brokerId,
      role,
      leader: this.leader,
      leaderEpoch: this.leaderEpoch,
      isr: [...this.isr],
      leo: this.log.logEndOffset,
      hw: this.log.highWatermark,
    });
  }

  // ---- the leader's produce path ----

  /**
   * Appends a producer's batch as leader [Partition.appendRecordsToLeader]. With acks=all the committed ISR
   * must be at least the effective min ISR before anything is written.
   */
  appendRecordsToLeader(
    batch: RecordBatch,
    requiredAcks: -1 | 0 | 1,
    origin: 'CLIENT' | 'COORDINATOR' = 'CLIENT',
  ): { error: KafkaError; baseOffset: number; lastOffset: number; flushCompletesAt: number | null } {
    if (!this.isLeader) return { error: 'NOT_LEADER_OR_FOLLOWER', baseOffset: -1, lastOffset: -1, flushCompletesAt: null };
    const minIsr = this.host.effectiveMinIsr(this.topic);
    if (requiredAcks === -1 && this.isr.length < minIsr) {
      this.host.trace.emit('replica.produce-rejected', this.host.nodeId, {
        topic: this.topic,
        partition: this.partition,
        broker: this.host.brokerId,
        error: 'NOT_ENOUGH_REPLICAS',
        isr: [...this.isr],
        minIsr,
      });
      return { error: 'NOT_ENOUGH_REPLICAS', baseOffset: -1, lastOffset: -1, flushCompletesAt: null };
    }
    const r = this.log.appendAsLeader(batch, this.leaderEpoch, this.host.nowMs(), origin);
    if (r.kind === 'error') return { error: r.error, baseOffset: -1, lastOffset: -1, flushCompletesAt: null };
    if (r.kind === 'duplicate') return { error: 'NONE', baseOffset: r.firstOffset, lastOffset: r.lastOffset, flushCompletesAt: null };
    const b = r.batch;
    this.wakeQuietReaders();
    // A marker carries no values: it ends a producer's transaction, it is not a write of the history.
    // (Plain literals: this runs for every leader append.)
    const control = b.isControl ? (b.controlType ?? 'COMMIT') : undefined;
    const node = this.host.nodeId;
    this.host.trace.emitEvent(
      control === undefined
        ? { t: UNSTAMPED, seq: UNSTAMPED, kind: 'replica.append', node, topic: this.topic, partition: this.partition, broker: this.host.brokerId, base: b.baseOffset, last: lastOffset(b), epoch: b.partitionLeaderEpoch, role: 'leader', values: b.values() }
        : { t: UNSTAMPED, seq: UNSTAMPED, kind: 'replica.append', node, topic: this.topic, partition: this.partition, broker: this.host.brokerId, base: b.baseOffset, last: lastOffset(b), epoch: b.partitionLeaderEpoch, role: 'leader', control, producerId: b.producerId, producerEpoch: b.producerEpoch },
      control === undefined ? b.valueNumbers() : undefined,
    );
    if (b.isTransactional) this.traceLastStableOffset();
    this.maybeIncrementLeaderHW();
    return { error: 'NONE', baseOffset: b.baseOffset, lastOffset: lastOffset(b), flushCompletesAt: r.flushCompletesAt };
  }

  /** Whether an acks=all write up to `requiredOffset` is done, and how [Partition.checkEnoughReplicasReachOffset]. */
  checkEnoughReplicasReachOffset(requiredOffset: number): KafkaError | null {
    if (!this.isLeader) return 'NOT_LEADER_OR_FOLLOWER';
    if (this.log.highWatermark < requiredOffset) return null;
    return this.host.effectiveMinIsr(this.topic) <= this.maximalIsr.length ? 'NONE' : 'NOT_ENOUGH_REPLICAS_AFTER_APPEND';
  }

  // ---- the leader's fetch path ----

  /** Leadership and epoch checks of a fetch [Partition.checkCurrentLeaderEpoch]. */
  checkLeaderEpoch(currentLeaderEpoch: number): KafkaError {
    if (!this.isLeader) return 'NOT_LEADER_OR_FOLLOWER';
    if (currentLeaderEpoch < 0) return 'NONE';
    if (currentLeaderEpoch < this.leaderEpoch) return 'FENCED_LEADER_EPOCH';
    if (currentLeaderEpoch > this.leaderEpoch) return 'UNKNOWN_LEADER_EPOCH';
    return 'NONE';
  }

  /**
   * Serves one partition of a fetch as leader [Partition.fetchRecords]. A follower fetch also updates that
   * follower's state, may expand the ISR and advance the HW (the response carries the HW read before that) —
   * except the read that completes a delayed fetch (`fromPurgatory`): the follower's offsets are the ones its
   * first read already recorded. [src: DelayedFetch.scala `onComplete` (readFromPurgatory = true); ReplicaManager `fetchMessages`]
   * Returns null when the read found nothing and nothing went wrong (no records, no error, no diverging
   * epoch), with the HW, log start and end it saw in readHighWatermark etc. for `emptyReadResponse`.
   */
  fetchAsLeader(
    req: FetchPartition,
    replicaId: number,
    replicaEpoch: number,
    maxBytes: number,
    isolationLevel: 'read_uncommitted' | 'read_committed',
    throttled = false,
    memo: EmptyReadMemo | null = null,
    fromPurgatory = false,
  ): FetchPartitionResponse | null {
    const version = this.stateVersion;
    const epochError = this.checkLeaderEpoch(req.currentLeaderEpoch);
    if (epochError !== 'NONE') return this.errorResponse(epochError);
    const isFollower = replicaId >= 0;
    if (isFollower && !this.replicas.includes(replicaId)) return this.errorResponse('UNKNOWN_LEADER_EPOCH');
    const log = this.log;
    const hw = log.highWatermark;
    const leo = log.logEndOffset;
    const atLatestEpoch = isFollower && req.lastFetchedEpoch === log.latestEpoch();
    if (atLatestEpoch && req.fetchOffset === leo && leo >= log.logStartOffset) {
      // A caught-up follower whose last epoch is ours: nothing to read and no divergence possible.
      if (!fromPurgatory) this.updateFollowerFetchState(replicaId, req.fetchOffset, req.logStartOffset, leo, replicaEpoch);
      // In the ISR the repeat is the same read again (no ISR expansion to consider, no throttle applies), unless
      // what the fetch set off (a HW move and its completions) changed the partition meanwhile.
      if (memo !== null && version === this.stateVersion && log.logEndOffset === leo && this.isr.includes(replicaId)) {
        this.remember(memo, replicaId, false, this.followerOf(replicaId) ?? null);
      }
      return this.emptyRead(hw, leo);
    }
    // A follower at our latest epoch and not past our end has not diverged (that epoch ends at our LEO), so the
    // lookup below would find nothing [LeaderEpochFileCache `endOffsetFor`: the latest epoch ends at the LEO].
    if (isFollower && req.lastFetchedEpoch >= 0 && !this.host.legacyHighWatermarkTruncation && !(atLatestEpoch && req.fetchOffset <= leo)) {
      const d = divergingEpoch(req.fetchOffset, req.lastFetchedEpoch, (e) => log.endOffsetForEpoch(e));
      if (d) {
        return this.response('NONE', hw, leo, d, NO_BATCHES);
      }
    }
    if (req.fetchOffset < log.logStartOffset || req.fetchOffset > leo) {
      return this.response('OFFSET_OUT_OF_RANGE', hw, leo, null, NO_BATCHES);
    }
    // Followers read to the LEO, consumers to the HW, read_committed consumers to the LSO. [src: UnifiedLog `read` (FetchIsolation)]
    const committed = !isFollower && isolationLevel === 'read_committed';
    const lso = isFollower ? hw : log.lastStableOffset;
    const upTo = isFollower ? leo : committed ? lso : hw;
    // A throttled follower gets no records this time, but its fetch still counts [ReplicaManager `readFromLocalLog`].
    const r = throttled ? { error: null, batches: NO_BATCHES } : log.read(req.fetchOffset, Math.min(req.maxBytes, maxBytes), upTo, true);
    if (r.error) return this.errorResponse(r.error);
    if (isFollower && !fromPurgatory) this.updateFollowerFetchState(replicaId, req.fetchOffset, req.logStartOffset, leo, replicaEpoch);
    if (r.batches.length === 0) {
      // At the end of what it may read, a consumer reads nothing again until an offset moves; so does a follower
      // in the ISR (an empty log: its fetch has no epoch while ours has one), unless its fetch moved the partition.
      if (memo !== null && req.fetchOffset >= upTo) {
        if (!isFollower) this.remember(memo, replicaId, committed, null);
        else if (!throttled && version === this.stateVersion && log.logEndOffset === leo && this.isr.includes(replicaId)) this.remember(memo, replicaId, false, this.followerOf(replicaId) ?? null);
      }
      return this.emptyRead(hw, leo);
    }
    const resp = this.response('NONE', hw, leo, null, r.batches);
    if (isFollower) return resp;
    if (!committed) return lso === hw ? resp : { ...resp, lastStableOffset: lso };
    const last = r.batches[r.batches.length - 1]!;
    // [src: LocalLog `addAbortedTransactions`] the range is the fetch offset up to just past the data returned.
    const aborted = log.collectAbortedTransactions(req.fetchOffset, last.baseOffset + last.lastOffsetDelta + 1);
    return { ...resp, lastStableOffset: lso, abortedTransactions: aborted };
  }

  /** Takes the memo of a read that found nothing, as of the state after it (what a repeat would see). */
  private remember(memo: EmptyReadMemo, replicaId: number, committed: boolean, follower: FollowerState | null): void {
    const log = this.log;
    memo.memoVersion = this.stateVersion;
    memo.memoReplicaId = replicaId;
    memo.memoCommitted = committed;
    memo.memoLogEndOffset = log.logEndOffset;
    memo.memoHighWatermark = log.highWatermark;
    memo.memoLogStartOffset = log.logStartOffset;
    memo.memoLastStableOffset = committed ? log.lastStableOffset : -1;
    memo.memoFollower = follower;
  }

  /**
   * The repeat of a read that found nothing, when nothing it depends on moved since `memo` (`req` is the same
   * request, its parameters unchanged): exactly what fetchAsLeader would do then — a follower's fetch is recorded
   * (it stays caught up), readHighWatermark etc. are set — without its lookups. False: read in full.
   */
  repeatEmptyRead(req: FetchPartition & EmptyReadMemo, replicaId: number, replicaEpoch: number, committed: boolean, nowMs: number, fromPurgatory = false): boolean {
    if (req.memoVersion !== this.stateVersion || req.memoReplicaId !== replicaId || req.memoCommitted !== committed) return false;
    const log = this.log;
    const leo = log.logEndOffset;
    const hw = log.highWatermark;
    if (leo !== req.memoLogEndOffset || hw !== req.memoHighWatermark || log.logStartOffset !== req.memoLogStartOffset) return false;
    if (committed && log.lastStableOffset !== req.memoLastStableOffset) return false;
    const f = req.memoFollower;
    // In the ISR already: no expansion to consider.
    if (f !== null && !fromPurgatory) this.recordFetch(f, req.fetchOffset, req.logStartOffset, leo, nowMs, replicaEpoch);
    this.readHighWatermark = hw;
    this.readLogStartOffset = req.memoLogStartOffset;
    this.readLogEndOffset = leo;
    return true;
  }

  /** Whether `memo` still holds for a request by `replicaId` (what repeatEmptyRead checks, without its effects). */
  memoHolds(memo: EmptyReadMemo, replicaId: number, committed: boolean): boolean {
    if (memo.memoVersion !== this.stateVersion || memo.memoReplicaId !== replicaId || memo.memoCommitted !== committed) return false;
    const log = this.log;
    if (log.logEndOffset !== memo.memoLogEndOffset || log.highWatermark !== memo.memoHighWatermark || log.logStartOffset !== memo.memoLogStartOffset) return false;
    return !committed || log.lastStableOffset === memo.memoLastStableOffset;
  }

  private emptyRead(hw: number, leo: number): null {
    this.readHighWatermark = hw;
    this.readLogStartOffset = this.log.logStartOffset;
    this.readLogEndOffset = leo;
    return null;
  }

  /** The answer for the last read that found nothing (see fetchAsLeader). */
  emptyReadResponse(): FetchPartitionResponse {
    return this.response('NONE', this.readHighWatermark, this.readLogEndOffset, null, NO_BATCHES);
  }

  /** One partition of a fetch response (a plain literal: object spread is slow on this hot path). */
  private response(error: KafkaError, hw: number, leo: number, divergingEpoch: FetchPartitionResponse['divergingEpoch'], batches: readonly RecordBatch[]): FetchPartitionResponse {
    return {
      topic: this.topic,
      partition: this.partition,
      error,
      highWatermark: hw,
      logStartOffset: this.log.logStartOffset,
      logEndOffset: leo,
      divergingEpoch,
      batches,
      currentLeader: null,
    };
  }

  errorResponse(error: KafkaError): FetchPartitionResponse {
    return {
      topic: this.topic,
      partition: this.partition,
      error,
      highWatermark: -1,
      logStartOffset: -1,
      logEndOffset: -1,
      divergingEpoch: null,
      batches: [],
      currentLeader: this.leader >= 0 ? { leaderId: this.leader, leaderEpoch: this.leaderEpoch } : null,
    };
  }

  private updateFollowerFetchState(replicaId: number, fetchOffset: number, followerStart: number, leaderEnd: number, brokerEpoch: number): void {
    const now = this.host.nowMs();
    let f = this.followerOf(replicaId);
    if (f === undefined) this.addFollower((f = resetFollowerState(replicaId, false, now)));
    this.recordFetch(f, fetchOffset, followerStart, leaderEnd, now, brokerEpoch, true);
  }

  /** One follower fetch recorded [Partition.updateFollowerFetchState]: its state, then the ISR and the HW it may move. */
  private recordFetch(f: FollowerState, fetchOffset: number, followerStart: number, leaderEnd: number, nowMs: number, brokerEpoch: number, mayExpandIsr = false): void {
    const before = f.logEndOffset;
    updateFetchState(f, fetchOffset, followerStart, leaderEnd, nowMs, brokerEpoch);
    if (mayExpandIsr) this.maybeExpandIsr(f);
    if (before !== f.logEndOffset) {
      // A quiet reader's repeat leaves this follower where it was: no longer so.
      this.wakeQuietReaders();
      this.maybeIncrementLeaderHW();
    }
  }

  /** What this leader last recorded of a follower's fetches (for describing and testing; undefined when none). */
  followerFetchState(brokerId: number): Readonly<FollowerState> | undefined {
    return this.followerOf(brokerId);
  }

  /** The follower's state: a scan of the (two or so) followers, cheaper than the map on every fetched partition. */
  private followerOf(brokerId: number): FollowerState | undefined {
    const list = this.followerList;
    for (let i = 0; i < list.length; i++) if (list[i]!.brokerId === brokerId) return list[i];
    return undefined;
  }

  private addFollower(f: FollowerState): void {
    this.bumpStateVersion();
    this.followers.set(f.brokerId, f);
    this.followerList.push(f);
  }

  private clearFollowers(): void {
    this.bumpStateVersion();
    this.followers = new Map();
    this.followerList = [];
  }

  /** Whether the HW may count a follower (passed to the HW rule; one function for the partition's life). */
  private readonly isIsrEligible = (id: number): boolean => this.host.isReplicaIsrEligible(id, this.followerOf(id)?.brokerEpoch ?? -1);

  /** The follower's latest known log end offset, -1 unknown (for tests and the UI). */
  followerLogEndOffset(brokerId: number): number {
    return this.followers.get(brokerId)?.logEndOffset ?? -1;
  }

  // ---- the high watermark ----

  /**
   * The LSO as the leader last traced it while a transaction held it below the HW; -1 while it equals the HW
   * (partitions without transactions never trace it).
   */
  private lsoTraced = -1;

  private traceLastStableOffset(): void {
    const log = this.log;
    const lso = log.lastStableOffset;
    const pinned = lso < log.highWatermark;
    if (!pinned && this.lsoTraced < 0) return;
    if (pinned && lso === this.lsoTraced) return;
    this.lsoTraced = pinned ? lso : -1;
    this.host.trace.emit('replica.lso', this.host.nodeId, {
      topic: this.topic,
      partition: this.partition,
      broker: this.host.brokerId,
      lso,
      hw: log.highWatermark,
      firstUnstableOffset: pinned ? lso : null,
    });
  }

  /** [Partition.maybeIncrementLeaderHW]; tells the broker when it moved. */
  maybeIncrementLeaderHW(): boolean {
    if (!this.isLeader) return false;
    const log = this.log;
    // The HW never passes the leader's log end offset: once there, nothing below can move it.
    if (log.highWatermark >= log.logEndOffset) return false;
    const now = this.host.nowMs();
    const hw = nextHighWatermark({
      currentHighWatermark: log.highWatermark,
      leaderLogEndOffset: log.logEndOffset,
      committedIsrSize: this.isr.length,
      maximalIsr: this.maximalIsr,
      followers: this.followerList,
      isIsrEligible: this.isIsrEligible,
      effectiveMinIsr: this.host.effectiveMinIsr(this.topic),
      nowMs: now,
      replicaLagTimeMaxMs: this.host.config['replica.lag.time.max.ms'],
    });
    if (hw <= log.highWatermark) return false;
    log.updateHighWatermark(hw);
    this.wakeQuietReaders();
    this.host.trace.emitEvent({ t: UNSTAMPED, seq: UNSTAMPED, kind: 'replica.hw', node: this.host.nodeId, topic: this.topic, partition: this.partition, broker: this.host.brokerId, hw: log.highWatermark, leo: log.logEndOffset });
    if (this.lsoTraced >= 0 || log.lastStableOffset < log.highWatermark) this.traceLastStableOffset();
    this.host.onHighWatermarkIncreased(this);
    return true;
  }

  // ---- the ISR ----

  private maybeExpandIsr(f: FollowerState): void {
    if (this.pending || this.isr.includes(f.brokerId)) return;
    if (!this.host.isReplicaIsrEligible(f.brokerId, f.brokerEpoch)) return;
    if (!canJoinIsr(f, this.log.highWatermark, this.leaderEpochStartOffset)) return;
    const proposed = [...this.isr, f.brokerId];
    this.pending = { kind: 'expand', proposed, maximal: proposed, awaitingMetadata: false };
    this.bumpStateVersion();
    this.host.trace.emit('replica.alter-isr', this.host.nodeId, {
      topic: this.topic,
      partition: this.partition,
      broker: this.host.brokerId,
      change: 'expand',
      from: [...this.isr],
      to: proposed,
      reason: `broker ${f.brokerId} caught up to offset ${f.logEndOffset}`,
    });
    this.host.sendAlterPartition(this, proposed);
  }

  /** The isr-expiration task [ReplicaManager.maybeShrinkIsr -> Partition.maybeShrinkIsr]. */
  maybeShrinkIsr(): void {
    if (!this.isLeader || this.pending) return;
    const now = this.host.nowMs();
    const lag = this.host.config['replica.lag.time.max.ms'];
    const out = outOfSyncReplicas(this.isr, this.host.brokerId, this.followers, this.log.logEndOffset, now, lag);
    if (out.length === 0) return;
    const proposed = this.isr.filter((r) => !out.includes(r));
    this.pending = { kind: 'shrink', proposed, maximal: this.isr, awaitingMetadata: false };
    this.bumpStateVersion();
    this.host.trace.emit('replica.alter-isr', this.host.nodeId, {
      topic: this.topic,
      partition: this.partition,
      broker: this.host.brokerId,
      change: 'shrink',
      from: [...this.isr],
      to: proposed,
      reason: `not caught up within replica.lag.time.max.ms=${lag}: ${out.join(', ')}`,
    });
    this.host.sendAlterPartition(this, proposed);
  }

  /** The controller's answer to our AlterPartition [Partition.handleAlterPartitionError / handleAlterPartitionUpdate]. */
  onAlterPartitionResponse(
    error: KafkaError,
    result: { leaderEpoch: number; partitionEpoch: number; isr: readonly number[] } | null,
  ): 'retry' | 'done' {
    if (!this.pending) return 'done';
    this.bumpStateVersion();
    if (error === 'NONE' && result) {
      if (result.leaderEpoch !== this.leaderEpoch || result.partitionEpoch <= this.partitionEpoch) {
        // Metadata already moved past it.
        this.pending = null;
        return 'done';
      }
      this.isr = result.isr;
      this.partitionEpoch = result.partitionEpoch;
      // Counted when the controller commits it [Partition.handleAlterPartitionUpdate → markIsrShrink / markIsrExpand].
      (this.pending.kind === 'shrink' ? this.host.metrics.isrShrinks : this.host.metrics.isrExpands).mark();
      this.pending = null;
      this.maybeIncrementLeaderHW();
      return 'done';
    }
    switch (error) {
      case 'OPERATION_NOT_ATTEMPTED':
      case 'INELIGIBLE_REPLICA':
        this.pending = null; // back to the committed state; the next check may try again
        return 'done';
      case 'FENCED_LEADER_EPOCH':
      case 'INVALID_UPDATE_VERSION':
      case 'NOT_LEADER_OR_FOLLOWER':
      case 'UNKNOWN_TOPIC_OR_PARTITION':
      case 'NEW_LEADER_ELECTED':
        // Only new metadata can resolve it; keep the pending state (and the maximal ISR) until then.
        this.pending.awaitingMetadata = true;
        return 'done';
      default:
        return 'retry';
    }
  }

  /** The proposal in flight, for a retry after a network error. */
  get pendingProposal(): readonly number[] | null {
    return this.pending && !this.pending.awaitingMetadata ? this.pending.proposed : null;
  }

  /** Stops being a replica (reassigned away or deleted). */
  stop(): void {
    this.bumpStateVersion();
    this.leader = -1;
    this.clearFollowers();
    this.pending = null;
    this.trace('none');
  }
}
