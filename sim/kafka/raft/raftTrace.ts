import type { RaftStateName, VoteReason } from './voteRules';

/**
 * Trace kinds of the KRaft layer. Coarse on purpose: state changes, vote decisions, the leader's high-watermark
 * advances, truncations and recovery — an idle quorum adds nothing but its leader's commits.
 */
declare module '../../core/trace' {
  interface TraceKinds {
    /** A replica's quorum state changed (`reason` says what moved it). */
    'raft.state-change': {
      role: 'voter' | 'observer';
      epoch: number;
      state: RaftStateName;
      leader: string | null;
      votedFor: string | null;
      reason: string;
    };
    /** A voter answered a Vote request (a pre-vote when `preVote`). */
    'raft.vote': { candidate: string; epoch: number; preVote: boolean; granted: boolean; reason: VoteReason };
    /** The leader's high watermark advanced: entries below it are committed. */
    'raft.high-watermark': { epoch: number; highWatermark: number };
    /** A replica cut its log. */
    'raft.truncate': { fromOffset: number; toOffset: number; reason: 'diverging-epoch' };
    /** A replica started from its disk. */
    'raft.recover': { endOffset: number; lastEpoch: number; droppedBatches: number; epoch: number; leader: string | null; votedFor: string | null };
    /** The raft client stopped (a disk error), as Kafka's fatal fault handler stops the process. */
    'raft.fatal': { reason: string };
  }
}

export {};
