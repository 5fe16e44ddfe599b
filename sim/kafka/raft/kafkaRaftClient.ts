import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { KafkaError } from '../errors';
import { RECORD_BATCH_OVERHEAD } from '../records';
import { isLogUpToDate, truncationOffset, validateOffsetAndEpoch } from './epochEndOffset';
import { EpochElection } from './epochElection';
import {
  electionStateOf,
  leaderIdOf,
  votedIdOf,
  type CandidateState,
  type EpochState,
  type FollowerState,
  type LeaderState,
  type ProspectiveState,
  type ResignedState,
  type UnattachedState,
} from './epochState';
import { binaryExponentialElectionBackoffMs, randomElectionTimeoutMs, strictExponentialElectionBackoffMs } from './electionTimeouts';
import { CHECK_QUORUM_TIMEOUT_FACTOR, fetchersNeededForCheckQuorum, maybeUpdateHighWatermark } from './highWatermark';
import {
  METADATA_PARTITION,
  METADATA_TOPIC,
  batchEnd,
  isRaftMessage,
  messageBytes,
  type BeginQuorumEpochRequest,
  type EndQuorumEpochRequest,
  type RaftBatch,
  type RaftFetchRequest,
  type RaftFetchResponse,
  type RaftMessage,
  type RaftResponseMessage,
  type VoteRequest,
  type VoteResponse,
} from './messages';
import { MetadataLog, sliceBatch, type FlushToken } from './metadataLog';
import type { QuorumConfig } from './quorumConfig';
import { QuorumStateStore } from './quorumStateStore';
import type { RaftIo } from './raftIo';
import './raftTrace';
import { InFlightRequests } from './inFlightRequests';
import { RequestManager } from './requestManager';
import { canGrantVote, isIllegalVoteEpoch, type RaftStateName, type VoteReason } from './voteRules';

/** How long a process's graceful raft shutdown may take [raft/.../KafkaRaftClientDriver.java `shutdown`: client.shutdown(5000)]. */
export const RAFT_SHUTDOWN_TIMEOUT_MS = 5000;
/** How long the leader holds a Fetch that finds nothing new [KafkaRaftClient.java MAX_FETCH_WAIT_MS]. */
export const MAX_FETCH_WAIT_MS = 500;
/** Largest batch the leader writes, and a fetch's size limit [KafkaRaftClient.java MAX_BATCH_SIZE_BYTES, MAX_FETCH_SIZE_BYTES]. */
export const MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024;
export const MAX_FETCH_SIZE_BYTES = MAX_BATCH_SIZE_BYTES;

export interface RaftClientConfig<R> {
  readonly quorum: QuorumConfig;
  /** Serialized size of one record (feeds batch sizes on disk and on the wire). */
  readonly recordBytes: (record: R) => number;
  /** The process's metadata log directory (Kafka's metadata.log.dir); defaults to the node id. */
  readonly metadataLogDir?: string;
}

/**
 * What the embedding process hears from the raft client. Callbacks never re-enter the client except through
 * `append`, which is safe from any of them.
 */
export interface RaftListener<R> {
  /**
   * Newly committed data batches in offset order (control batches left out), each offset once per incarnation;
   * after a restart delivery starts again from offset 0 once the log is known committed. `committedOffset` is
   * the end of what is now delivered (the high watermark as applied).
   */
  onCommit(batches: readonly RaftBatch<R>[], committedOffset: number): void;
  /** The leader or epoch this replica knows changed (leader null while there is an election). */
  onLeaderChange(leader: string | null, epoch: number): void;
  /**
   * This replica leads `epoch` and may act: its LeaderChange record at `epochStartOffset` is committed and every
   * earlier committed record has been delivered through onCommit.
   */
  onBecomeLeader?(epoch: number, epochStartOffset: number): void;
  /** This replica stopped leading `epoch`; appends it accepted but had not written are gone. */
  onResign?(epoch: number): void;
  /** The client stopped on a disk error (DISK_FULL), as Kafka's fatal fault handler stops the process. */
  onFatalError?(reason: string): void;
}

/** What DescribeQuorum answers: the leader's view of every voter's log [DescribeQuorumResponse.json]. */
export interface QuorumDescription {
  readonly leaderId: string;
  readonly leaderEpoch: number;
  readonly highWatermark: number;
  /**
   * Every voter, the leader included: the log end offset the leader knows (-1: not fetched yet in this epoch) and
   * when its last fetch arrived (simulated µs; -1 never; the leader: now).
   */
  readonly voters: readonly { readonly replicaId: string; readonly logEndOffset: number; readonly lastFetchTimestamp: number }[];
}

/** The replica's view, for tests and the UI (never read by other actors). */
export interface RaftInspection {
  readonly nodeId: string;
  readonly role: 'voter' | 'observer';
  readonly state: RaftStateName;
  readonly epoch: number;
  readonly leaderId: string | null;
  readonly votedId: string | null;
  readonly endOffset: number;
  readonly lastFetchedEpoch: number;
  readonly flushedEndOffset: number;
  readonly highWatermark: number | null;
  readonly committedOffset: number;
}

/** A graceful shutdown under way [KafkaRaftClient.java `GracefulShutdown`]. */
interface GracefulShutdown {
  readonly deadline: Micros;
  readonly done: (timedOut: boolean) => void;
}

interface ParkedFetch {
  readonly from: string;
  readonly req: RaftFetchRequest;
  timer: TimerId;
}

const EMPTY_BATCHES: readonly RaftBatch<never>[] = [];

/**
 * KRaft's replication protocol (KIP-595 with KIP-996 pre-vote) for the `__cluster_metadata` log, as
 * raft/.../KafkaRaftClient.java runs it: voters elect a leader by epoch, followers and observers pull the log
 * with Fetch, the leader commits by majority. Controllers embed it as voters, brokers as observers.
 *
 * Like Kafka's, it is a poll loop: every message, timer and disconnect is handled, then the current state is
 * polled (which sends what is due) and a wake-up is set for the earliest deadline.
 *
 * Durable transitions write `quorum-state` and fsync it before anything else happens, as Kafka's raft thread
 * blocks on that write: while the fsync runs, the client holds back everything it would send, trace or tell
 * its listener, and queues what arrives; a power loss in that window leaves no trace of the transition.
 */
export class KafkaRaftClient<R> {
  readonly nodeId: string;
  readonly voters: readonly string[];
  readonly isVoter: boolean;
  private readonly remoteVoters: readonly string[];
  private readonly selfIndex: number;

  private readonly electionTimeoutMs: number;
  private readonly electionBackoffMaxMs: number;
  private readonly fetchTimeout: Micros;
  private readonly retryBackoff: Micros;
  private readonly linger: Micros;
  private readonly checkQuorumTimeout: Micros;
  private readonly beginQuorumEpochInterval: Micros;
  private readonly recordBytes: (r: R) => number;

  private readonly log: MetadataLog<R>;
  private readonly store: QuorumStateStore;
  private readonly requests: RequestManager;
  private readonly inFlight: InFlightRequests;
  private state!: EpochState<R>;
  private stateVersion = 0;
  /** The high watermark this replica knows (null: unknown, e.g. a new leader before its first commit). */
  private hw: number | null = null;
  /** Offsets below this were handed to the listener. */
  private delivered = 0;
  private nextCorrelationId = 1;
  private parked: ParkedFetch[] = [];
  private notifiedLeader: string | null | undefined = undefined;
  private notifiedEpoch = -1;
  /** Throttles fetches to bootstrap voters that told us nothing new. */
  private bootstrapQuietUntil: Micros = 0;

  // The poll loop.
  private wakeTimer: TimerId = NO_TIMER;
  private wakeAt: Micros = Number.POSITIVE_INFINITY;
  private polling = false;
  private repoll = false;
  private started = false;
  private halted = false;
  private shutdownState: GracefulShutdown | null = null;

  // Blocking on a quorum-state fsync.
  private blocked = false;
  private unblockAt: Micros = 0;
  private unblockTimer: TimerId = NO_TIMER;
  private inbox: (() => void)[] = [];
  private effects: (() => void)[] = [];

  constructor(
    private readonly io: RaftIo,
    config: RaftClientConfig<R>,
    private readonly listener: RaftListener<R>,
  ) {
    const q = config.quorum;
    this.nodeId = io.nodeId;
    this.voters = q['controller.quorum.voters'];
    this.selfIndex = this.voters.indexOf(this.nodeId);
    this.isVoter = this.selfIndex >= 0;
    this.remoteVoters = this.voters.filter((v) => v !== this.nodeId);
    this.electionTimeoutMs = q['controller.quorum.election.timeout.ms'];
    this.electionBackoffMaxMs = q['controller.quorum.election.backoff.max.ms'];
    this.fetchTimeout = ms(q['controller.quorum.fetch.timeout.ms']);
    this.retryBackoff = ms(q['controller.quorum.retry.backoff.ms']);
    this.linger = ms(q['controller.quorum.append.linger.ms']);
    this.checkQuorumTimeout = ms(Math.floor(q['controller.quorum.fetch.timeout.ms'] * CHECK_QUORUM_TIMEOUT_FACTOR));
    this.beginQuorumEpochInterval = ms(Math.floor(q['controller.quorum.fetch.timeout.ms'] / 2));
    this.recordBytes = config.recordBytes;
    const dir = config.metadataLogDir ?? this.nodeId;
    this.log = new MetadataLog<R>(io.disk, dir);
    this.store = new QuorumStateStore(io.disk, dir);
    const requestTimeout = ms(q['controller.quorum.request.timeout.ms']);
    this.requests = new RequestManager(this.remoteVoters, this.retryBackoff, requestTimeout, io.random);
    this.inFlight = new InFlightRequests(requestTimeout);
  }

  // ---------------------------------------------------------------- public API

  /**
   * Recovers from disk and starts [QuorumState.java `initialize`; KafkaRaftClient.java `initialize`]: a former
   * leader restarts Resigned in its epoch, a former candidate as Candidate, a follower follows, anything else is
   * Unattached; a quorum of one elects itself at once.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const rec = this.log.recovery;
    const stored = this.store.read();
    const now = this.io.now();
    const epoch = stored?.leaderEpoch ?? 0;
    let initial: EpochState<R>;
    let candidate = false;
    if (epoch < rec.lastEpoch) {
      // The log saw a later epoch than the state file: trust the log, vote for nobody in it.
      initial = this.unattached(rec.lastEpoch, null, null, now);
    } else if (this.isVoter && stored?.leaderId === this.nodeId) {
      // A leader that restarts must not lead (or vote in) its old epoch again: its unflushed records are gone.
      initial = this.resigned(epoch, [], now);
    } else if (this.isVoter && stored?.votedId === this.nodeId) {
      initial = { kind: 'Candidate', epoch, election: new EpochElection(this.voters, this.nodeId), electionDeadline: now + this.randomElectionTimeout(), retries: 1, backoffUntil: null };
      candidate = true;
    } else if (stored && stored.leaderId !== null && stored.leaderId !== this.nodeId) {
      initial = { kind: 'Follower', epoch, leaderId: stored.leaderId, votedId: stored.votedId, fetchDeadline: now + this.fetchTimeout, hasFetchedFromLeader: false };
    } else {
      initial = this.unattached(epoch, null, this.isVoter ? (stored?.votedId ?? null) : null, now);
    }
    this.io.trace.emit('raft.recover', this.nodeId, {
      endOffset: rec.endOffset,
      lastEpoch: rec.lastEpoch,
      droppedBatches: rec.droppedBatches,
      epoch: stored?.leaderEpoch ?? 0,
      leader: stored?.leaderId ?? null,
      votedFor: stored?.votedId ?? null,
    });
    this.enterState(initial, 'start', true);
    // What the page cache kept across a crash is not yet known durable: a voter reports it only once flushed.
    if (this.log.endOffset > this.log.flushedEnd) this.flushLog();
    if (candidate) this.maybeTransitionForward();
    else if (this.isVoter && this.voters.length === 1) this.transitionToProspective('only-voter');
    if (!this.blocked) this.drainInbox();
    this.poll();
  }

  /**
   * Routes a message to the client. Returns false when it is not a quorum message (the process handles it).
   */
  handleMessage(from: string, msg: unknown): boolean {
    if (!isRaftMessage(msg)) return false;
    const m = msg as RaftMessage<R>;
    this.enter(() => this.dispatch(from, m));
    return true;
  }

  /** The connection to `peer` broke: a request in flight to it failed; its parked fetches are void. */
  onDisconnect(peer: string): void {
    this.enter(() => {
      this.inFlight.clear(peer);
      this.requests.onDisconnect(peer, this.io.now());
      if (this.parked.length > 0) {
        const keep: ParkedFetch[] = [];
        for (const p of this.parked) {
          if (p.from === peer) this.io.cancelTimer(p.timer);
          else keep.push(p);
        }
        this.parked = keep;
      }
    });
  }

  /**
   * Appends records on the leader [KafkaRaftClient.java `prepareAppend` / BatchAccumulator]: they linger up to
   * controller.quorum.append.linger.ms and are written as one batch. Returns the offset the last record will
   * have, or null when this replica is not the leader (of `epoch`, when given) or `records` is empty.
   */
  append(records: readonly R[], epoch?: number): number | null {
    const st = this.state;
    if (this.halted || !this.started || st.kind !== 'Leader' || records.length === 0) return null;
    if (epoch !== undefined && epoch !== st.epoch) return null;
    const first = this.log.endOffset + st.pending.length;
    for (const r of records) {
      st.pending.push(r);
      st.pendingBytes += this.recordBytes(r);
    }
    const now = this.io.now();
    if (st.drainAt === null) st.drainAt = now + this.linger;
    if (st.pendingBytes >= MAX_BATCH_SIZE_BYTES) st.drainAt = now;
    this.requestPoll(st.drainAt);
    return first + records.length - 1;
  }

  /**
   * Begins a graceful shutdown [KafkaRaftClient.java `shutdown`, `maybeCompleteShutdown`]: a leader resigns at
   * once and tells the voters (EndQuorumEpoch) so they elect a successor without waiting for their fetch timeout;
   * no replica stands for election any more. It completes (the client stops) when this replica is an observer,
   * the only voter, or knows another leader, or after `timeoutMs` (`done(true)`). `done` runs outside the poll.
   */
  shutdown(timeoutMs: number, done: (timedOut: boolean) => void): void {
    if (this.shutdownState || this.halted) return;
    this.shutdownState = { deadline: this.io.now() + ms(timeoutMs), done };
    if (!this.started) {
      this.completeShutdown(false);
      return;
    }
    this.enter(noop);
  }

  /**
   * DescribeQuorum on this replica [KafkaRaftClient.java `handleDescribeQuorumRequest`]: the leader answers
   * with each voter's log end offset as its fetches report it; any other replica gives null
   * (NOT_LEADER_OR_FOLLOWER).
   */
  describeQuorum(): QuorumDescription | null {
    const st = this.state;
    if (this.halted || st.kind !== 'Leader') return null;
    return {
      leaderId: this.nodeId,
      leaderEpoch: st.epoch,
      highWatermark: this.hw ?? -1,
      voters: this.voters.map((v, i) =>
        v === this.nodeId
          ? { replicaId: v, logEndOffset: this.log.endOffset, lastFetchTimestamp: this.io.now() }
          : { replicaId: v, logEndOffset: st.endOffsets[i] ?? -1, lastFetchTimestamp: st.lastFetchTimes[i] ?? -1 },
      ),
    };
  }

  get stateName(): RaftStateName {
    return this.state.kind;
  }

  get epoch(): number {
    return this.state.epoch;
  }

  get leaderId(): string | null {
    return leaderIdOf(this.state, this.nodeId);
  }

  get isLeader(): boolean {
    return this.state.kind === 'Leader';
  }

  get highWatermark(): number | null {
    return this.hw;
  }

  get endOffset(): number {
    return this.log.endOffset;
  }

  inspect(): RaftInspection {
    return {
      nodeId: this.nodeId,
      role: this.isVoter ? 'voter' : 'observer',
      state: this.state.kind,
      epoch: this.state.epoch,
      leaderId: leaderIdOf(this.state, this.nodeId),
      votedId: votedIdOf(this.state, this.nodeId),
      endOffset: this.log.endOffset,
      lastFetchedEpoch: this.log.lastFetchedEpoch,
      flushedEndOffset: this.log.flushedEnd,
      highWatermark: this.hw,
      committedOffset: this.delivered,
    };
  }

  /** The local log's batches (tests and the UI). */
  logBatches(): readonly RaftBatch<R>[] {
    return this.log.allBatches();
  }

  // ---------------------------------------------------------------- the loop

  /** Runs `fn` now and polls, or queues it while a quorum-state fsync blocks the client. */
  private enter(fn: () => void): void {
    if (this.halted) return;
    if (this.blocked || !this.started) {
      this.inbox.push(fn);
      return;
    }
    fn();
    this.poll();
  }

  /** A timer whose callback goes through `enter`. */
  private timer(delay: Micros, fn: () => void): TimerId {
    return this.io.setTimer(Math.max(0, delay), () => this.enter(fn));
  }

  /** Something needs a poll by `at` (an append from inside a callback must not re-enter the loop). */
  private requestPoll(at: Micros): void {
    if (this.polling) this.repoll = true;
    else if (!this.blocked && at < this.wakeAt) this.scheduleWake(at);
  }

  private poll(): void {
    if (this.halted || this.blocked || !this.started) return;
    if (this.polling) {
      this.repoll = true;
      return;
    }
    this.polling = true;
    let wait: Micros = Number.POSITIVE_INFINITY;
    try {
      for (let round = 0; round < 64; round++) {
        this.repoll = false;
        const now = this.io.now();
        if (this.maybeCompleteShutdown(now)) return;
        // A request unanswered for request.timeout.ms closes its connection (as Kafka's NetworkClient does),
        // whatever the raft state did meanwhile; the next request opens a new one after the retry backoff.
        for (const peer of this.inFlight.expire(now)) {
          this.io.disconnect(peer);
          this.requests.onDisconnect(peer, now);
        }
        this.requests.expireTimedOut(now);
        wait = this.pollCurrentState(now);
        if (this.halted || this.blocked) return;
        wait = Math.min(wait, this.inFlight.nextTimeout() - now, this.requests.nextTimeout() - now);
        if (wait > 0 && !this.repoll) break;
      }
      // Still due at once after every round: Kafka's client would spin in its poll loop (a timer of 0 ms, such as
      // the BeginQuorumEpoch interval of controller.quorum.fetch.timeout.ms=1, halved and rounded down); its clock
      // reads milliseconds, so the next poll that can see anything new is at the next millisecond.
      // [src: raft/.../KafkaRaftClient.java `poll` (pollCurrentState's timeout); QuorumConfig fetch timeout atLeast(0)]
      const now = this.io.now();
      this.scheduleWake(wait > 0 ? now + wait : Math.floor(now / 1000) * 1000 + 1000);
    } finally {
      this.polling = false;
    }
  }

  /** [KafkaRaftClient.java `maybeCompleteShutdown`]: true when the shutdown completed (the client is stopped). */
  private maybeCompleteShutdown(now: Micros): boolean {
    const sd = this.shutdownState;
    if (!sd) return false;
    if (now >= sd.deadline) {
      this.completeShutdown(true);
      return true;
    }
    const leader = leaderIdOf(this.state, this.nodeId);
    if (!this.isVoter || this.voters.length === 1 || (leader !== null && leader !== this.nodeId)) {
      this.completeShutdown(false);
      return true;
    }
    return false;
  }

  private completeShutdown(timedOut: boolean): void {
    const sd = this.shutdownState!;
    this.stop();
    this.io.trace.emit('raft.shutdown', this.nodeId, { timedOut });
    // The process exits from its own timer, never from inside the poll loop.
    this.io.setTimer(0, () => sd.done(timedOut));
  }

  /** Stops the client: no more polls, sends or wake-ups. */
  private stop(): void {
    this.halted = true;
    if (this.wakeTimer !== NO_TIMER) this.io.cancelTimer(this.wakeTimer);
    this.wakeTimer = NO_TIMER;
    for (const p of this.parked) this.io.cancelTimer(p.timer);
    this.parked = [];
  }

  private scheduleWake(at: Micros): void {
    if (at === this.wakeAt) return;
    if (this.wakeTimer !== NO_TIMER) this.io.cancelTimer(this.wakeTimer);
    this.wakeTimer = NO_TIMER;
    this.wakeAt = Number.POSITIVE_INFINITY;
    if (!Number.isFinite(at)) return;
    this.wakeAt = at;
    this.wakeTimer = this.io.setTimer(Math.max(0, at - this.io.now()), () => {
      this.wakeTimer = NO_TIMER;
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.enter(noop);
    });
  }

  private pollCurrentState(now: Micros): Micros {
    const st = this.state;
    switch (st.kind) {
      case 'Leader':
        return this.pollLeader(st, now);
      case 'Candidate':
        return this.pollCandidate(st, now);
      case 'Prospective':
        return this.pollProspective(st, now);
      case 'Follower':
        return this.isVoter ? this.pollFollowerAsVoter(st, now) : this.pollFollowerAsObserver(st, now);
      case 'Unattached':
        return this.pollUnattached(st, now);
      case 'Resigned':
        return this.pollResigned(st, now);
    }
  }

  /** [KafkaRaftClient.java `pollLeader`]: check quorum, write lingering appends, BeginQuorumEpoch every fetch.timeout/2. */
  private pollLeader(st: LeaderState<R>, now: Micros): Micros {
    let wait = Number.POSITIVE_INFINITY;
    if (this.shutdownState && this.voters.length > 1) {
      this.transitionToResigned('shutdown');
      return 0;
    }
    if (this.voters.length > 1) {
      if (now >= st.checkQuorumDeadline) {
        this.transitionToResigned('check-quorum');
        return 0;
      }
      wait = st.checkQuorumDeadline - now;
    }
    if (st.drainAt !== null) {
      if (now >= st.drainAt) this.drainPending(st, now);
      else wait = Math.min(wait, st.drainAt - now);
      if (this.halted) return wait;
    }
    if (now >= st.beginQuorumEpochDeadline) {
      for (const v of this.remoteVoters) this.maybeSendRequest(v, now, (c) => this.beginQuorumEpochRequest(c, st));
      st.beginQuorumEpochDeadline = now + this.beginQuorumEpochInterval;
    }
    return Math.min(wait, st.beginQuorumEpochDeadline - now);
  }

  /** [KafkaRaftClient.java `pollCandidate`]: ask for votes; after a lost vote's backoff or the timeout, back to prospective. */
  private pollCandidate(st: CandidateState, now: Micros): Micros {
    if (st.backoffUntil !== null) {
      if (now >= st.backoffUntil) {
        this.transitionToProspective('election-backoff-expired');
        return 0;
      }
      return st.backoffUntil - now;
    }
    if (now >= st.electionDeadline) {
      this.transitionToProspective('election-timeout');
      return 0;
    }
    return Math.min(this.maybeSendVoteRequests(st, now), st.electionDeadline - now);
  }

  /**
   * [KafkaRaftClient.java `pollProspective`]: ask for pre-votes; a lost or timed-out pre-vote returns to the
   * known leader (or Unattached) in the same epoch, so a cut-off replica never inflates the epoch.
   */
  private pollProspective(st: ProspectiveState, now: Micros): Micros {
    const rejected = st.election.isVoteRejected();
    if (rejected || now >= st.electionDeadline) {
      const why = rejected ? 'pre-vote-rejected' : 'election-timeout';
      if (st.leaderId !== null && st.leaderId !== this.nodeId) this.transitionToFollower(st.epoch, st.leaderId, why);
      else this.transitionToUnattached(st.epoch, st.leaderId, why);
      return 0;
    }
    return Math.min(this.maybeSendVoteRequests(st, now), st.electionDeadline - now);
  }

  /** [KafkaRaftClient.java `pollFollowerAsVoter`]: without a successful fetch for fetch.timeout, stand (pre-vote first). */
  private pollFollowerAsVoter(st: FollowerState, now: Micros): Micros {
    // Shutting down, a follower never stands (it completes at once: it knows a leader).
    if (this.shutdownState) return this.shutdownState.deadline - now;
    if (now >= st.fetchDeadline) {
      this.transitionToProspective('fetch-timeout');
      return 0;
    }
    return this.maybeSendFetchToBestNode(st, now);
  }

  /** [KafkaRaftClient.java `pollFollowerAsObserver`]: an observer that lost its leader asks any voter. */
  private pollFollowerAsObserver(st: FollowerState, now: Micros): Micros {
    if (now >= st.fetchDeadline) return this.maybeSendFetchToAnyBootstrap(now);
    return this.maybeSendFetchToBestNode(st, now);
  }

  /** [KafkaRaftClient.java `pollUnattached`]: look for the leader by fetching from voters; a voter stands at its timeout. */
  private pollUnattached(st: UnattachedState, now: Micros): Micros {
    // Shutting down, an unattached voter stays until the shutdown completes or a new epoch moves it.
    if (this.shutdownState && this.isVoter) return this.shutdownState.deadline - now;
    if (this.isVoter && now >= st.electionDeadline) {
      this.transitionToProspective('election-timeout');
      return 0;
    }
    return Math.min(this.maybeSendFetchToAnyBootstrap(now), st.electionDeadline - now);
  }

  /** [KafkaRaftClient.java `pollResigned`]: tell the voters (EndQuorumEpoch) until they acknowledge; stand at the timeout. */
  private pollResigned(st: ResignedState, now: Micros): Micros {
    let wait = Number.POSITIVE_INFINITY;
    for (const v of st.unacked) wait = Math.min(wait, this.maybeSendRequest(v, now, (c) => this.endQuorumEpochRequest(c, st)));
    // Shutting down, a resigned leader stays resigned until another leader is known or the shutdown times out.
    if (this.shutdownState) return Math.min(wait, this.shutdownState.deadline - now);
    if (now >= st.electionDeadline) {
      if (this.isVoter) {
        this.transitionToProspective('election-timeout');
        return 0;
      }
      return wait;
    }
    return Math.min(wait, st.electionDeadline - now);
  }

  // ---------------------------------------------------------------- sending requests

  /** Sends if the destination is ready; returns how long until it needs attention [KafkaRaftClient.java `maybeSendRequest`]. */
  private maybeSendRequest(dest: string, now: Micros, build: (correlationId: number) => RaftMessage<R>): Micros {
    if (this.requests.isBackingOff(dest, now)) return this.requests.remainingBackoff(dest, now);
    if (this.requests.isReady(dest, now)) {
      const correlationId = this.nextCorrelationId++;
      const msg = build(correlationId);
      this.requests.onRequestSent(dest, correlationId, now);
      this.inFlight.sent(dest, correlationId, now);
      this.send(dest, msg);
    }
    return this.requests.remainingRequestTime(dest, now);
  }

  private maybeSendVoteRequests(st: ProspectiveState | CandidateState, now: Micros): Micros {
    // Keep asking while the election can still be won [KafkaRaftClient.java `maybeSendVoteRequests`].
    if (st.election.isVoteRejected()) return Number.POSITIVE_INFINITY;
    let wait = Number.POSITIVE_INFINITY;
    const preVote = st.kind === 'Prospective';
    for (const v of st.election.unrecordedVoters()) {
      if (v === this.nodeId) continue;
      wait = Math.min(wait, this.maybeSendRequest(v, now, (c) => this.voteRequest(c, st.epoch, preVote)));
    }
    return wait;
  }

  /** A voter reports only what it has flushed: no Fetch while an fsync of its log is under way. */
  private waitingForFlush(): boolean {
    return this.isVoter && this.log.flushedEnd < this.log.endOffset;
  }

  /** [KafkaRaftClient.java `maybeSendFetchToBestNode`]: the leader, or any voter while the leader backs off. */
  private maybeSendFetchToBestNode(st: FollowerState, now: Micros): Micros {
    const untilTimeout = st.fetchDeadline - now;
    if (this.waitingForFlush()) return untilTimeout;
    let wait: Micros;
    if (this.requests.isBackingOff(st.leaderId, now)) wait = this.maybeSendFetchToAnyBootstrap(now);
    else if (!this.requests.hasAnyInflightRequest()) wait = this.maybeSendRequest(st.leaderId, now, (c) => this.fetchRequest(c));
    else wait = this.requests.backoffBeforeAvailableBootstrapServer(now);
    return Math.min(wait, untilTimeout);
  }

  /** [KafkaRaftClient.java `maybeSendFetchToAnyBootstrap`]: a Fetch to a random ready voter, to learn the leader. */
  private maybeSendFetchToAnyBootstrap(now: Micros): Micros {
    if (this.waitingForFlush()) return Number.POSITIVE_INFINITY;
    if (now < this.bootstrapQuietUntil) return this.bootstrapQuietUntil - now;
    const node = this.requests.findReadyBootstrapServer(now);
    if (node !== null) return this.maybeSendRequest(node, now, (c) => this.fetchRequest(c));
    return this.requests.backoffBeforeAvailableBootstrapServer(now);
  }

  private voteRequest(correlationId: number, epoch: number, preVote: boolean): VoteRequest {
    const end = this.log.endOffsetAndEpoch;
    return {
      type: 'Vote',
      correlationId,
      topic: METADATA_TOPIC,
      partition: METADATA_PARTITION,
      replicaId: this.nodeId,
      replicaEpoch: epoch,
      lastOffsetEpoch: end.epoch,
      lastOffset: end.offset,
      preVote,
    };
  }

  private fetchRequest(correlationId: number): RaftFetchRequest {
    return {
      type: 'Fetch',
      correlationId,
      topic: METADATA_TOPIC,
      partition: METADATA_PARTITION,
      replicaId: this.nodeId,
      maxWaitMs: MAX_FETCH_WAIT_MS,
      maxBytes: MAX_FETCH_SIZE_BYTES,
      currentLeaderEpoch: this.state.epoch,
      fetchOffset: this.log.endOffset,
      lastFetchedEpoch: this.log.lastFetchedEpoch,
      highWatermark: this.hw ?? -1,
    };
  }

  private beginQuorumEpochRequest(correlationId: number, st: LeaderState<R>): BeginQuorumEpochRequest {
    return { type: 'BeginQuorumEpoch', correlationId, topic: METADATA_TOPIC, partition: METADATA_PARTITION, leaderId: this.nodeId, leaderEpoch: st.epoch };
  }

  private endQuorumEpochRequest(correlationId: number, st: ResignedState): EndQuorumEpochRequest {
    return {
      type: 'EndQuorumEpoch',
      correlationId,
      topic: METADATA_TOPIC,
      partition: METADATA_PARTITION,
      leaderId: this.nodeId,
      leaderEpoch: st.epoch,
      preferredSuccessors: st.preferredSuccessors,
    };
  }

  // ---------------------------------------------------------------- incoming messages

  private dispatch(from: string, msg: RaftMessage<R>): void {
    switch (msg.type) {
      case 'Vote':
        this.onVoteRequest(from, msg);
        return;
      case 'BeginQuorumEpoch':
        this.onBeginQuorumEpochRequest(from, msg);
        return;
      case 'EndQuorumEpoch':
        this.onEndQuorumEpochRequest(from, msg);
        return;
      case 'Fetch':
        this.onFetchRequest(from, msg);
        return;
      default:
        this.onResponse(from, msg);
    }
  }

  private responseFields(correlationId: number, errorCode: KafkaError) {
    return {
      correlationId,
      topic: METADATA_TOPIC,
      partition: METADATA_PARTITION,
      errorCode,
      leaderId: leaderIdOf(this.state, this.nodeId),
      leaderEpoch: this.state.epoch,
    } as const;
  }

  /** [KafkaRaftClient.java `handleVoteRequest`] */
  private onVoteRequest(from: string, req: VoteRequest): void {
    const reply = (errorCode: KafkaError, granted: boolean, reason: VoteReason) => {
      this.traceVote(from, req, granted, reason);
      const resp: VoteResponse = { type: 'VoteResponse', ...this.responseFields(req.correlationId, errorCode), voteGranted: granted };
      this.send(from, resp);
    };
    if (req.lastOffset < 0 || req.lastOffsetEpoch < 0 || isIllegalVoteEpoch(req.preVote, req.lastOffsetEpoch, req.replicaEpoch)) {
      reply('INVALID_REQUEST', false, 'invalid-request');
      return;
    }
    if (!this.isVoter || !this.voters.includes(from)) {
      reply('INCONSISTENT_VOTER_SET', false, 'not-a-voter');
      return;
    }
    if (req.replicaEpoch < this.state.epoch) {
      reply('FENCED_LEADER_EPOCH', false, 'fenced-epoch');
      return;
    }
    // Any higher epoch, even a pre-vote's, moves this replica into it.
    if (req.replicaEpoch > this.state.epoch) this.transitionToUnattached(req.replicaEpoch, null, 'vote-request-higher-epoch');
    const upToDate = isLogUpToDate({ offset: req.lastOffset, epoch: req.lastOffsetEpoch }, this.log.endOffsetAndEpoch);
    const st = this.state;
    const decision = canGrantVote(
      {
        state: st.kind,
        leaderId: leaderIdOf(st, this.nodeId),
        votedId: votedIdOf(st, this.nodeId),
        hasFetchedFromLeader: st.kind === 'Follower' && st.hasFetchedFromLeader,
      },
      from,
      upToDate,
      req.preVote,
    );
    // A binding vote is durable before it is answered (the transition blocks until its fsync completes).
    if (!req.preVote && decision.granted) {
      if (st.kind === 'Unattached' && st.votedId === null) this.unattachedAddVotedState(st, from);
      else if (st.kind === 'Prospective' && st.votedId === null) this.prospectiveAddVotedState(st, from);
    }
    reply('NONE', decision.granted, decision.reason);
  }

  /** [KafkaRaftClient.java `handleBeginQuorumEpochRequest`] */
  private onBeginQuorumEpochRequest(from: string, req: BeginQuorumEpochRequest): void {
    let error: KafkaError = 'NONE';
    if (req.leaderEpoch < this.state.epoch) error = 'FENCED_LEADER_EPOCH';
    else this.maybeTransition(req.leaderId, req.leaderEpoch, 'begin-quorum-epoch');
    this.send(from, { type: 'BeginQuorumEpochResponse', ...this.responseFields(req.correlationId, error) });
  }

  /** [KafkaRaftClient.java `handleEndQuorumEpochRequest`]: the preferred successors stand first. */
  private onEndQuorumEpochRequest(from: string, req: EndQuorumEpochRequest): void {
    let error: KafkaError = 'NONE';
    if (req.leaderEpoch < this.state.epoch) error = 'FENCED_LEADER_EPOCH';
    else {
      this.maybeTransition(req.leaderId, req.leaderEpoch, 'end-quorum-epoch');
      const st = this.state;
      if (this.isVoter && st.kind === 'Follower' && st.leaderId === req.leaderId) {
        const found = req.preferredSuccessors.indexOf(this.nodeId);
        const position = found < 0 ? req.preferredSuccessors.length : found;
        const backoffMs = strictExponentialElectionBackoffMs(position, req.preferredSuccessors.length, this.electionBackoffMaxMs);
        st.fetchDeadline = this.io.now() + ms(backoffMs);
      }
    }
    this.send(from, { type: 'EndQuorumEpochResponse', ...this.responseFields(req.correlationId, error) });
  }

  /** [KafkaRaftClient.java `handleFetchRequest`]: answer now, or park until new data or max wait. */
  private onFetchRequest(from: string, req: RaftFetchRequest): void {
    if (req.maxWaitMs < 0 || req.fetchOffset < 0 || req.lastFetchedEpoch < 0 || req.lastFetchedEpoch > req.currentLeaderEpoch) {
      this.send(from, this.fetchResponse(req, 'INVALID_REQUEST', null, null, EMPTY_BATCHES));
      return;
    }
    const now = this.io.now();
    const resp = this.tryCompleteFetch(from, req, now);
    // Answer at once with an error, records, a divergence, or news of a higher high watermark than the fetcher
    // knows (KAFKA-14145: brokers learn what is committed without waiting out the fetch's max wait).
    const staleHighWatermark = resp.highWatermark >= 0 && req.highWatermark < resp.highWatermark;
    if (resp.errorCode !== 'NONE' || resp.batches.length > 0 || req.maxWaitMs === 0 || resp.divergingEpoch !== null || staleHighWatermark) {
      this.send(from, resp);
      return;
    }
    const p: ParkedFetch = { from, req, timer: NO_TIMER };
    p.timer = this.timer(ms(req.maxWaitMs), () => this.expireParked(p));
    this.parked.push(p);
  }

  private expireParked(p: ParkedFetch): void {
    const i = this.parked.indexOf(p);
    if (i < 0) return;
    this.parked.splice(i, 1);
    this.send(p.from, this.tryCompleteFetch(p.from, p.req, this.io.now()));
  }

  /** New records (or, with `all`, a new high watermark): answer the parked fetches they satisfy [FuturePurgatory `maybeComplete`, `completeAll`]. */
  private completeParkedFetches(all = false): void {
    if (this.parked.length === 0) return;
    const end = this.log.endOffset;
    const now = this.io.now();
    const due: ParkedFetch[] = [];
    const keep: ParkedFetch[] = [];
    for (const p of this.parked) (all || p.req.fetchOffset < end ? due : keep).push(p);
    if (due.length === 0) return;
    this.parked = keep;
    for (const p of due) {
      this.io.cancelTimer(p.timer);
      this.send(p.from, this.tryCompleteFetch(p.from, p.req, now));
    }
  }

  /** [KafkaRaftClient.java `tryCompleteFetchRequest`] */
  private tryCompleteFetch(from: string, req: RaftFetchRequest, now: Micros): RaftFetchResponse<R> {
    const error = this.validateLeaderOnlyRequest(req.currentLeaderEpoch);
    const st = this.state;
    if (error !== null || st.kind !== 'Leader') return this.fetchResponse(req, error ?? 'NOT_LEADER_OR_FOLLOWER', null, null, EMPTY_BATCHES);
    const position = validateOffsetAndEpoch(this.log.epochCache, this.log.endOffset, req.fetchOffset, req.lastFetchedEpoch);
    if (position.kind === 'diverging') {
      const d = position.divergingEpoch;
      return this.fetchResponse(req, 'NONE', this.hw, { epoch: d.epoch, endOffset: d.offset }, EMPTY_BATCHES);
    }
    const batches = this.log.read(req.fetchOffset, this.log.endOffset, req.maxBytes);
    this.updateReplicaState(st, from, req.fetchOffset, now);
    return this.fetchResponse(req, 'NONE', this.hw, null, batches);
  }

  /** [KafkaRaftClient.java `validateLeaderOnlyRequest`] */
  private validateLeaderOnlyRequest(requestEpoch: number): KafkaError | null {
    if (requestEpoch < this.state.epoch) return 'FENCED_LEADER_EPOCH';
    if (requestEpoch > this.state.epoch) return 'UNKNOWN_LEADER_EPOCH';
    if (this.state.kind !== 'Leader') return 'NOT_LEADER_OR_FOLLOWER';
    return null;
  }

  private fetchResponse(
    req: RaftFetchRequest,
    error: KafkaError,
    hw: number | null,
    diverging: RaftFetchResponse<R>['divergingEpoch'],
    batches: readonly RaftBatch<R>[],
  ): RaftFetchResponse<R> {
    return { type: 'FetchResponse', ...this.responseFields(req.correlationId, error), highWatermark: hw ?? -1, divergingEpoch: diverging, batches };
  }

  /**
   * [LeaderState.java `updateReplicaState`]: a voter's fetch offset is its durable end offset (it flushes before
   * fetching), feeding the high watermark and check quorum. Observers count for neither.
   */
  private updateReplicaState(st: LeaderState<R>, from: string, fetchOffset: number, now: Micros): void {
    const i = this.voters.indexOf(from);
    if (i < 0 || i === this.selfIndex) return;
    st.endOffsets[i] = fetchOffset;
    st.fetchedSinceCheck[i] = true;
    st.lastFetchTimes[i] = now;
    let fetched = 0;
    for (let j = 0; j < st.fetchedSinceCheck.length; j++) if (st.fetchedSinceCheck[j]) fetched++;
    if (fetched >= fetchersNeededForCheckQuorum(this.voters.length)) {
      st.fetchedSinceCheck.fill(false);
      st.checkQuorumDeadline = now + this.checkQuorumTimeout;
    }
    this.maybeAdvanceLeaderHighWatermark(st);
  }

  private maybeAdvanceLeaderHighWatermark(st: LeaderState<R>): void {
    // The leader counts only what it has flushed.
    st.endOffsets[this.selfIndex] = this.log.flushedEnd;
    const next = maybeUpdateHighWatermark(st.endOffsets, st.epochStartOffset, this.hw);
    if (next === null) return;
    this.hw = next;
    const epoch = st.epoch;
    this.effect(() => this.io.trace.emit('raft.high-watermark', this.nodeId, { epoch, highWatermark: next }));
    this.deliverCommits();
    // Every fetch waiting in purgatory learns the new high watermark now [KafkaRaftClient.java
    // `onUpdateLeaderHighWatermark`, KAFKA-14145 (4.1): complete all deferred fetches].
    this.completeParkedFetches(true);
  }

  // ---------------------------------------------------------------- responses

  private onResponse(from: string, msg: RaftResponseMessage<R>): void {
    this.inFlight.completed(from, msg.correlationId);
    if (!this.requests.isResponseExpected(from, msg.correlationId)) return;
    const version = this.stateVersion;
    let ok: boolean;
    switch (msg.type) {
      case 'VoteResponse':
        ok = this.onVoteResponse(from, msg);
        break;
      case 'BeginQuorumEpochResponse':
        ok = this.commonResponse(msg) ?? msg.errorCode === 'NONE';
        break;
      case 'EndQuorumEpochResponse':
        ok = this.onEndQuorumEpochResponse(from, msg);
        break;
      case 'FetchResponse':
        ok = this.onFetchResponse(from, msg);
        break;
    }
    // Kafka counts an error response that changed nothing (NOT_LEADER_OR_FOLLOWER from a voter that knows no
    // more than we do) as handled and asks again at once: in a simulation that is a busy loop of round trips
    // until the next election. Deviation: treat it as a failure and back off controller.quorum.retry.backoff.ms.
    if (ok && msg.errorCode !== 'NONE' && this.stateVersion === version) ok = false;
    const now = this.io.now();
    this.requests.onResponseResult(from, msg.correlationId, ok, now);
    if (!ok && msg.type === 'FetchResponse') this.bootstrapQuietUntil = now + this.retryBackoff;
  }

  /**
   * [KafkaRaftClient.java `maybeHandleCommonResponse`]: every response names the responder's epoch and leader.
   * Returns undefined when the specific handler should go on, else whether the response was handled well.
   */
  private commonResponse(msg: RaftResponseMessage<R>): boolean | undefined {
    const epoch = this.state.epoch;
    const error = msg.errorCode;
    if (msg.leaderEpoch < epoch || error === 'UNKNOWN_LEADER_EPOCH') return true;
    if (msg.leaderEpoch > epoch || error === 'FENCED_LEADER_EPOCH' || error === 'NOT_LEADER_OR_FOLLOWER') {
      this.maybeTransition(msg.leaderId, msg.leaderEpoch, `${msg.type}:${error}`);
      return true;
    }
    if (msg.leaderId !== null && msg.leaderId !== this.nodeId && !this.hasLeader()) {
      this.transitionToFollower(epoch, msg.leaderId, `${msg.type}:leader-discovered`);
      return error === 'NONE' ? undefined : true;
    }
    return undefined;
  }

  /** [KafkaRaftClient.java `maybeTransition`]: learn a higher epoch, or the leader of this one. */
  private maybeTransition(leaderId: string | null, epoch: number, reason: string): void {
    const leader = leaderId === this.nodeId ? null : leaderId;
    if (epoch > this.state.epoch) {
      if (leader !== null) this.transitionToFollower(epoch, leader, reason);
      else this.transitionToUnattached(epoch, null, reason);
    } else if (epoch === this.state.epoch && leader !== null && !this.hasLeader()) {
      this.transitionToFollower(epoch, leader, reason);
    }
  }

  private hasLeader(): boolean {
    return leaderIdOf(this.state, this.nodeId) !== null;
  }

  /** [KafkaRaftClient.java `handleVoteResponse`] */
  private onVoteResponse(from: string, msg: VoteResponse): boolean {
    const common = this.commonResponse(msg);
    if (common !== undefined) return common;
    if (msg.errorCode !== 'NONE') return false;
    const st = this.state;
    if (st.kind !== 'Prospective' && st.kind !== 'Candidate') return true;
    st.election.record(from, msg.voteGranted);
    if (msg.voteGranted) {
      this.maybeTransitionForward();
    } else if (st.kind === 'Candidate' && st.election.isVoteRejected() && st.backoffUntil === null) {
      // Lost: back off a random, growing time so two candidates do not keep splitting the vote.
      st.backoffUntil = this.io.now() + ms(binaryExponentialElectionBackoffMs(this.io.random, st.retries, this.electionBackoffMaxMs));
    }
    return true;
  }

  private onEndQuorumEpochResponse(from: string, msg: RaftResponseMessage<R>): boolean {
    const common = this.commonResponse(msg);
    if (common !== undefined) return common;
    if (msg.errorCode !== 'NONE') return false;
    const st = this.state;
    if (st.kind === 'Resigned') st.unacked = st.unacked.filter((v) => v !== from);
    return true;
  }

  /** [KafkaRaftClient.java `handleFetchResponse`] */
  private onFetchResponse(from: string, msg: RaftFetchResponse<R>): boolean {
    const common = this.commonResponse(msg);
    if (common !== undefined) return common;
    const st = this.state;
    if (st.kind !== 'Follower' || st.leaderId !== from) return true;
    if (msg.errorCode !== 'NONE') return false;
    if (msg.divergingEpoch !== null) {
      const d = msg.divergingEpoch;
      const to = truncationOffset(this.log.epochCache, this.log.endOffset, { offset: d.endOffset, epoch: d.epoch });
      this.truncate(to);
    } else {
      if (msg.batches.length > 0) {
        this.appendAsFollower(msg.batches);
        if (this.halted) return true;
      }
      if (msg.highWatermark >= 0) this.updateFollowerHighWatermark(msg.highWatermark);
    }
    st.fetchDeadline = this.io.now() + this.fetchTimeout;
    st.hasFetchedFromLeader = true;
    return true;
  }

  // ---------------------------------------------------------------- the log

  private appendAsFollower(batches: readonly RaftBatch<R>[]): void {
    let appended = false;
    for (const b of batches) {
      const end = this.log.endOffset;
      if (batchEnd(b) <= end) continue;
      if (b.baseOffset > end) break;
      const part = b.baseOffset < end ? sliceBatch(b, end, batchEnd(b)) : b;
      const err = this.log.append(part);
      if (err) {
        this.halt(err);
        return;
      }
      appended = true;
    }
    // A voter flushes before it fetches again, so what it reports is durable; observers do not flush
    // [KafkaRaftClient.java `appendAsFollower`].
    if (appended && this.isVoter) this.flushLog();
  }

  /** [KafkaRaftClient.java `updateFollowerHighWatermark`]: never past the local log, never backwards. */
  private updateFollowerHighWatermark(leaderHw: number): void {
    const next = Math.min(this.log.endOffset, leaderHw);
    if (this.hw !== null && next <= this.hw) return;
    this.hw = next;
    this.deliverCommits();
  }

  private truncate(to: number): void {
    const from = this.log.endOffset;
    if (to >= from) return;
    if (to < this.delivered || (this.hw !== null && to < this.hw)) {
      // Kafka throws here too: a leader asking to cut committed records means the protocol was broken.
      throw new Error(`${this.nodeId}: asked to truncate to ${to}, below the high watermark ${this.hw} (delivered ${this.delivered})`);
    }
    this.log.truncateTo(to);
    this.effect(() => this.io.trace.emit('raft.truncate', this.nodeId, { fromOffset: from, toOffset: to, reason: 'diverging-epoch' }));
    if (this.waitingForFlush()) this.flushLog();
  }

  private drainPending(st: LeaderState<R>, now: Micros): void {
    const records = st.pending;
    const bytes = st.pendingBytes;
    st.pending = [];
    st.pendingBytes = 0;
    st.drainAt = null;
    if (records.length === 0) return;
    this.appendAsLeader({ baseOffset: this.log.endOffset, epoch: st.epoch, records, control: null, bytes: RECORD_BATCH_OVERHEAD + bytes, appendTime: now });
  }

  /** [KafkaRaftClient.java `appendBatch`, `flushLeaderLog`]: written, parked fetches answered, then flushed. */
  private appendAsLeader(batch: RaftBatch<R>): void {
    const err = this.log.append(batch);
    if (err) {
      this.halt(err);
      return;
    }
    this.completeParkedFetches();
    this.flushLog();
  }

  private flushLog(): void {
    const { doneAt, token } = this.log.startFlush();
    this.timer(doneAt - this.io.now(), () => this.onFlushed(token));
  }

  private onFlushed(token: FlushToken): void {
    this.log.completeFlush(token);
    const st = this.state;
    if (st.kind === 'Leader') this.maybeAdvanceLeaderHighWatermark(st);
  }

  /** Hands newly committed batches to the listener, then tells a caught-up leader it may act. */
  private deliverCommits(): void {
    if (this.hw === null) return;
    const upTo = Math.min(this.hw, this.log.endOffset);
    if (upTo > this.delivered) {
      const batches = this.log.read(this.delivered, upTo);
      const data: RaftBatch<R>[] = [];
      for (const b of batches) if (b.control === null) data.push(b);
      this.delivered = upTo;
      this.effect(() => this.listener.onCommit(data, upTo));
    }
    const st = this.state;
    if (st.kind === 'Leader' && !st.announced && this.hw > st.epochStartOffset && this.delivered >= this.hw) {
      st.announced = true;
      const { epoch, epochStartOffset } = st;
      this.effect(() => this.listener.onBecomeLeader?.(epoch, epochStartOffset));
    }
  }

  // ---------------------------------------------------------------- transitions [QuorumState.java]

  private randomElectionTimeout(): Micros {
    return ms(randomElectionTimeoutMs(this.io.random, this.electionTimeoutMs));
  }

  private unattached(epoch: number, leaderId: string | null, votedId: string | null, now: Micros): UnattachedState {
    return {
      kind: 'Unattached',
      epoch,
      leaderId,
      votedId,
      electionDeadline: this.isVoter ? now + this.randomElectionTimeout() : Number.POSITIVE_INFINITY,
    };
  }

  private resigned(epoch: number, preferredSuccessors: readonly string[], now: Micros): ResignedState {
    return { kind: 'Resigned', epoch, unacked: this.remoteVoters.slice(), preferredSuccessors, electionDeadline: now + this.randomElectionTimeout() };
  }

  /** [QuorumState.java `transitionToUnattached`]: a higher epoch, or a prospective giving up in its own. */
  private transitionToUnattached(epoch: number, leaderId: string | null, reason: string): void {
    const cur = this.state;
    const now = this.io.now();
    let deadline: Micros;
    if (!this.isVoter) deadline = Number.POSITIVE_INFINITY;
    else if (cur.kind === 'Candidate' || cur.kind === 'Unattached' || cur.kind === 'Resigned') deadline = cur.electionDeadline;
    else if (cur.kind === 'Prospective' && !cur.election.isVoteRejected()) deadline = cur.electionDeadline;
    else deadline = now + this.randomElectionTimeout();
    // In the same epoch (from Prospective) the vote cast stays: one vote per epoch.
    const votedId = epoch === cur.epoch ? votedIdOf(cur, this.nodeId) : null;
    this.enterState({ kind: 'Unattached', epoch, leaderId, votedId, electionDeadline: deadline }, reason, true);
  }

  /** [QuorumState.java `unattachedAddVotedState`]: a granted vote, durable before the answer goes out. */
  private unattachedAddVotedState(cur: UnattachedState, candidate: string): void {
    const next: UnattachedState = { ...cur, votedId: candidate, electionDeadline: this.io.now() + this.randomElectionTimeout() };
    this.enterState(next, 'voted', true, false);
  }

  /** [QuorumState.java `prospectiveAddVotedState`] */
  private prospectiveAddVotedState(cur: ProspectiveState, candidate: string): void {
    const next: ProspectiveState = {
      ...cur,
      votedId: candidate,
      election: new EpochElection(this.voters, this.nodeId),
      electionDeadline: this.io.now() + this.randomElectionTimeout(),
    };
    this.enterState(next, 'voted', true, false);
  }

  /** [QuorumState.java `transitionToFollower`] */
  private transitionToFollower(epoch: number, leaderId: string, reason: string): void {
    const cur = this.state;
    const votedId = epoch === cur.epoch ? votedIdOf(cur, this.nodeId) : null;
    const next: FollowerState = { kind: 'Follower', epoch, leaderId, votedId, fetchDeadline: this.io.now() + this.fetchTimeout, hasFetchedFromLeader: false };
    this.enterState(next, reason, true);
  }

  /** [QuorumState.java `transitionToProspective`]: in memory only; the epoch does not change. */
  private transitionToProspective(reason: string): void {
    const cur = this.state;
    const next: ProspectiveState = {
      kind: 'Prospective',
      epoch: cur.epoch,
      leaderId: leaderIdOf(cur, this.nodeId),
      votedId: votedIdOf(cur, this.nodeId),
      election: new EpochElection(this.voters, this.nodeId),
      electionDeadline: this.io.now() + this.randomElectionTimeout(),
      retries: cur.kind === 'Candidate' ? cur.retries + 1 : 1,
    };
    this.enterState(next, reason, false);
    this.maybeTransitionForward();
  }

  /** [QuorumState.java `transitionToCandidate`]: a new epoch and a vote for itself, durable before any Vote is sent. */
  private transitionToCandidate(reason: string): void {
    const cur = this.state;
    const next: CandidateState = {
      kind: 'Candidate',
      epoch: cur.epoch + 1,
      election: new EpochElection(this.voters, this.nodeId),
      electionDeadline: this.io.now() + this.randomElectionTimeout(),
      retries: cur.kind === 'Prospective' ? cur.retries : 1,
      backoffUntil: null,
    };
    this.enterState(next, reason, true);
    this.maybeTransitionForward();
  }

  /** A majority granted: a prospective stands, a candidate leads [KafkaRaftClient.java `maybeTransitionForward`]. */
  private maybeTransitionForward(): void {
    const st = this.state;
    if (st.kind === 'Prospective' && st.election.isVoteGranted()) this.transitionToCandidate('pre-vote-granted');
    else if (st.kind === 'Candidate' && st.election.isVoteGranted()) this.becomeLeader(st);
  }

  /**
   * [KafkaRaftClient.java `onBecomeLeader`; QuorumState.java `transitionToLeader`]: the high watermark starts
   * unknown (it must not seem to go back), and a LeaderChange record opens the epoch at once so it can commit.
   */
  private becomeLeader(cur: CandidateState): void {
    const now = this.io.now();
    const n = this.voters.length;
    const next: LeaderState<R> = {
      kind: 'Leader',
      epoch: cur.epoch,
      epochStartOffset: this.log.endOffset,
      grantingVoters: cur.election.grantingVoters(),
      endOffsets: new Array<number | null>(n).fill(null),
      fetchedSinceCheck: new Array<boolean>(n).fill(false),
      lastFetchTimes: new Array<Micros | null>(n).fill(null),
      checkQuorumDeadline: now + this.checkQuorumTimeout,
      beginQuorumEpochDeadline: now,
      pending: [],
      pendingBytes: 0,
      drainAt: null,
      announced: false,
    };
    this.hw = null;
    this.enterState(next, 'won-election', true);
    this.appendAsLeader({
      baseOffset: this.log.endOffset,
      epoch: next.epoch,
      records: [],
      control: { type: 'LeaderChange', leaderId: this.nodeId, voters: this.voters, grantingVoters: next.grantingVoters },
      bytes: RECORD_BATCH_OVERHEAD + 16 + 8 * n,
      appendTime: now,
    });
  }

  /** [QuorumState.java `transitionToResigned`]: in memory only; successors ranked by how far they have replicated. */
  private transitionToResigned(reason: string): void {
    const cur = this.state;
    if (cur.kind !== 'Leader') return;
    const order = this.voters
      .map((v, i) => ({ v, i, end: cur.endOffsets[i] ?? -1 }))
      .filter((x) => x.v !== this.nodeId)
      .sort((a, b) => b.end - a.end || a.i - b.i)
      .map((x) => x.v);
    this.enterState(this.resigned(cur.epoch, order, this.io.now()), reason, false);
  }

  /** Every transition goes through here: persist if durable, forget old requests, trace, tell the listener. */
  private enterState(next: EpochState<R>, reason: string, durable: boolean, resetConnections = true): void {
    const prev = this.state as EpochState<R> | undefined;
    this.state = next;
    this.stateVersion++;
    if (durable) this.persist();
    if (resetConnections) this.requests.resetAll();
    if (prev !== undefined && prev.kind === 'Leader' && next.kind !== 'Leader') this.leaveLeadership(prev);
    const fields = {
      role: this.isVoter ? ('voter' as const) : ('observer' as const),
      epoch: next.epoch,
      state: next.kind,
      leader: leaderIdOf(next, this.nodeId),
      votedFor: votedIdOf(next, this.nodeId),
      reason,
    };
    this.effect(() => this.io.trace.emit('raft.state-change', this.nodeId, fields));
    const leader = fields.leader;
    if (leader !== this.notifiedLeader || next.epoch !== this.notifiedEpoch) {
      this.notifiedLeader = leader;
      this.notifiedEpoch = next.epoch;
      const epoch = next.epoch;
      this.effect(() => this.listener.onLeaderChange(leader, epoch));
    }
  }

  /** Parked fetches get their error now (Kafka completes the fetch purgatory exceptionally); lingering appends are dropped. */
  private leaveLeadership(prev: LeaderState<R>): void {
    const parked = this.parked;
    this.parked = [];
    const now = this.io.now();
    for (const p of parked) {
      this.io.cancelTimer(p.timer);
      this.send(p.from, this.tryCompleteFetch(p.from, p.req, now));
    }
    prev.pending = [];
    prev.drainAt = null;
    const epoch = prev.epoch;
    this.effect(() => this.listener.onResign?.(epoch));
  }

  // ---------------------------------------------------------------- durability of quorum-state

  private persist(): void {
    const doneAt = this.store.write(electionStateOf(this.state, this.nodeId, this.voters));
    if (this.blocked && doneAt <= this.unblockAt) return;
    this.blocked = true;
    this.unblockAt = doneAt;
    if (this.unblockTimer !== NO_TIMER) this.io.cancelTimer(this.unblockTimer);
    this.unblockTimer = this.io.setTimer(Math.max(0, doneAt - this.io.now()), () => this.unblock());
  }

  /** The quorum-state fsync completed: commit the file, release what was held back, handle what queued. */
  private unblock(): void {
    this.unblockTimer = NO_TIMER;
    if (this.halted) return;
    this.store.commit();
    this.blocked = false;
    const effects = this.effects;
    this.effects = [];
    for (const fn of effects) fn();
    this.drainInbox();
    this.poll();
  }

  /** Handles, in arrival order, what queued while the client was blocked (or not yet started). */
  private drainInbox(): void {
    while (!this.blocked && !this.halted && this.inbox.length > 0) {
      const fn = this.inbox.shift()!;
      fn();
      this.poll();
    }
  }

  /** Something others can observe: held back while a quorum-state fsync is under way. */
  private effect(fn: () => void): void {
    if (this.blocked) this.effects.push(fn);
    else fn();
  }

  private send(to: string, msg: RaftMessage<R>): void {
    if (this.blocked) this.effects.push(() => this.io.send(to, msg, messageBytes(msg)));
    else this.io.send(to, msg, messageBytes(msg));
  }

  private traceVote(candidate: string, req: VoteRequest, granted: boolean, reason: VoteReason): void {
    const fields = { candidate, epoch: req.replicaEpoch, preVote: req.preVote, granted, reason };
    this.effect(() => this.io.trace.emit('raft.vote', this.nodeId, fields));
  }

  /** A disk error: stop, as Kafka's raft thread does on an I/O failure (the process decides whether to exit). */
  private halt(reason: string): void {
    if (this.halted) return;
    this.stop();
    this.io.trace.emit('raft.fatal', this.nodeId, { reason });
    this.listener.onFatalError?.(reason);
  }
}

function noop(): void {}
