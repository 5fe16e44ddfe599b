import type { Micros } from '../../core/time';
import type { EpochElection } from './epochElection';
import type { ElectionState } from './quorumStateStore';
import type { RaftStateName } from './voteRules';

/**
 * A replica's state in one epoch, as plain data [raft/.../{Unattached,Prospective,Candidate,Leader,Follower,
 * Resigned}State.java]. Deadlines are absolute simulated times. The client holds exactly one.
 */

/** Knows the epoch but no leader yet (or knows one it cannot follow); may have voted in this epoch. */
export interface UnattachedState {
  readonly kind: 'Unattached';
  readonly epoch: number;
  readonly leaderId: string | null;
  votedId: string | null;
  /** A voter becomes prospective at this time; an observer never (Infinity). */
  electionDeadline: Micros;
}

/** KIP-996: asking for pre-votes in the same epoch before standing as a candidate. */
export interface ProspectiveState {
  readonly kind: 'Prospective';
  readonly epoch: number;
  readonly leaderId: string | null;
  readonly votedId: string | null;
  readonly election: EpochElection;
  readonly electionDeadline: Micros;
  /** Failed elections in a row (feeds the candidate's backoff). */
  readonly retries: number;
}

/** Stands for election in a new epoch, having voted for itself. */
export interface CandidateState {
  readonly kind: 'Candidate';
  readonly epoch: number;
  readonly election: EpochElection;
  readonly electionDeadline: Micros;
  readonly retries: number;
  /** Lost the vote: waits until this time, then goes back to prospective. */
  backoffUntil: Micros | null;
}

/** Fetches from a known leader. */
export interface FollowerState {
  readonly kind: 'Follower';
  readonly epoch: number;
  readonly leaderId: string;
  readonly votedId: string | null;
  /** Without a successful fetch by then, a voter becomes prospective (an observer looks for the leader elsewhere). */
  fetchDeadline: Micros;
  /** A successful fetch from the leader in this epoch: from then on pre-votes are refused. */
  hasFetchedFromLeader: boolean;
}

export interface LeaderState<R> {
  readonly kind: 'Leader';
  readonly epoch: number;
  /** The log end offset when this epoch began: the LeaderChange record's offset. */
  readonly epochStartOffset: number;
  readonly grantingVoters: readonly string[];
  /** Per voter (index in the voter set): the end offset it last fetched from (its durable end), null if unknown. */
  readonly endOffsets: (number | null)[];
  /** Per voter: fetched since the check-quorum timer last reset. */
  readonly fetchedSinceCheck: boolean[];
  /** Per voter: when its last fetch arrived, null if none in this epoch (DescribeQuorum's lastFetchTimestamp). */
  readonly lastFetchTimes: (Micros | null)[];
  checkQuorumDeadline: Micros;
  beginQuorumEpochDeadline: Micros;
  /** Records appended but not yet written (append linger). */
  pending: R[];
  pendingBytes: number;
  drainAt: Micros | null;
  /** onBecomeLeader fired: this epoch's first entry committed and the listener has caught up. */
  announced: boolean;
}

/** A leader that gave up its epoch: takes no writes, votes for nobody in it, tells the voters. */
export interface ResignedState {
  readonly kind: 'Resigned';
  readonly epoch: number;
  /** Voters yet to acknowledge EndQuorumEpoch, in voter-set order. */
  unacked: string[];
  readonly preferredSuccessors: readonly string[];
  readonly electionDeadline: Micros;
}

export type EpochState<R> = UnattachedState | ProspectiveState | CandidateState | FollowerState | LeaderState<R> | ResignedState;

/** The leader a state knows (a leader and a resigned leader know themselves). */
export function leaderIdOf(s: EpochState<unknown>, self: string): string | null {
  switch (s.kind) {
    case 'Leader':
    case 'Resigned':
      return self;
    case 'Candidate':
      return null;
    default:
      return s.leaderId;
  }
}

/** The vote a state holds in its epoch (a candidate and a leader voted for themselves). */
export function votedIdOf(s: EpochState<unknown>, self: string): string | null {
  switch (s.kind) {
    case 'Candidate':
    case 'Leader':
      return self;
    case 'Resigned':
      return null;
    default:
      return s.votedId;
  }
}

/** What a state writes to `quorum-state` [EpochState.election()]. */
export function electionStateOf(s: EpochState<unknown>, self: string, voters: readonly string[]): ElectionState {
  return { leaderEpoch: s.epoch, leaderId: leaderIdOf(s, self), votedId: votedIdOf(s, self), currentVoters: voters };
}

export function stateName(s: EpochState<unknown>): RaftStateName {
  return s.kind;
}
