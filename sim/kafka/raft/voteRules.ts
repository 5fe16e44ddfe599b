/**
 * Whether a voter grants a Vote, as a function of its state: one binding vote per epoch, only for a log at
 * least as up to date as its own, and (KIP-996) a pre-vote only when it is not hearing from a leader.
 */

/** The replica states of KIP-595 and KIP-996 [raft/.../QuorumState.java]. */
export const RAFT_STATE_NAMES = ['Unattached', 'Prospective', 'Candidate', 'Leader', 'Follower', 'Resigned'] as const;
export type RaftStateName = (typeof RAFT_STATE_NAMES)[number];

/** Why a vote was granted or refused (the trace carries it). */
export const VOTE_REASONS = [
  'granted',
  'log-not-up-to-date',
  'already-voted',
  'has-leader',
  'fetched-from-leader',
  'is-leader',
  'is-candidate',
  'is-resigned',
  'fenced-epoch',
  'invalid-request',
  'not-a-voter',
] as const;
export type VoteReason = (typeof VOTE_REASONS)[number];

/** What of a voter's state the decision reads. */
export interface VoterView {
  readonly state: RaftStateName;
  readonly leaderId: string | null;
  readonly votedId: string | null;
  /** Follower only: it has had a successful fetch from the leader in this epoch. */
  readonly hasFetchedFromLeader: boolean;
}

export interface VoteDecision {
  readonly granted: boolean;
  readonly reason: VoteReason;
}

const GRANTED: VoteDecision = { granted: true, reason: 'granted' };
const refuse = (reason: VoteReason): VoteDecision => ({ granted: false, reason });

/**
 * The decision for a request already in the voter's epoch (a higher epoch moved the voter to Unattached first)
 * [raft/.../{Leader,Follower,Candidate,Resigned}State.java `canGrantVote`; QuorumState.java
 * `unattachedOrProspectiveCanGrantVote`].
 */
export function canGrantVote(v: VoterView, candidateId: string, isLogUpToDate: boolean, preVote: boolean): VoteDecision {
  switch (v.state) {
    case 'Leader':
      return refuse('is-leader');
    case 'Follower':
      // A follower still hearing from its leader refuses even pre-votes: that is what keeps a rejoining
      // partitioned replica from disrupting a healthy leader.
      if (!preVote) return refuse('has-leader');
      if (v.hasFetchedFromLeader) return refuse('fetched-from-leader');
      return isLogUpToDate ? GRANTED : refuse('log-not-up-to-date');
    case 'Candidate':
    case 'Resigned':
      if (!preVote) return refuse(v.state === 'Candidate' ? 'is-candidate' : 'is-resigned');
      return isLogUpToDate ? GRANTED : refuse('log-not-up-to-date');
    case 'Unattached':
    case 'Prospective':
      if (preVote) return isLogUpToDate ? GRANTED : refuse('log-not-up-to-date');
      if (v.votedId !== null) return v.votedId === candidateId ? GRANTED : refuse('already-voted');
      if (v.leaderId !== null) return refuse('has-leader');
      return isLogUpToDate ? GRANTED : refuse('log-not-up-to-date');
  }
}

/**
 * A Vote whose last log epoch is impossible for its epoch [KafkaRaftClient.java `handleVoteRequest`]: a candidate
 * bumped its epoch past everything in its log; a prospective did not, so its log may end in its own epoch.
 */
export function isIllegalVoteEpoch(preVote: boolean, lastOffsetEpoch: number, replicaEpoch: number): boolean {
  return preVote ? lastOffsetEpoch > replicaEpoch : lastOffsetEpoch >= replicaEpoch;
}
