import { bool, defineKinds, nullable, num, oneOf, str, type KindsOf } from '../../core/traceSchema';
import { RAFT_STATE_NAMES, VOTE_REASONS } from './voteRules';

/**
 * Trace kinds of the KRaft layer. Coarse on purpose: state changes, vote decisions, the leader's high-watermark
 * advances, truncations and recovery — an idle quorum adds nothing but its leader's commits.
 */
export const RAFT_KINDS = defineKinds({
  /** A replica's quorum state changed (`reason` says what moved it). */
  'raft.state-change': {
    role: oneOf('voter', 'observer'),
    epoch: num,
    state: oneOf(...RAFT_STATE_NAMES),
    leader: nullable(str),
    votedFor: nullable(str),
    reason: str,
  },
  /** A voter answered a Vote request (a pre-vote when `preVote`). */
  'raft.vote': { candidate: str, epoch: num, preVote: bool, granted: bool, reason: oneOf(...VOTE_REASONS) },
  /** The leader's high watermark advanced: entries below it are committed. */
  'raft.high-watermark': { epoch: num, highWatermark: num },
  /** A replica cut its log. */
  'raft.truncate': { fromOffset: num, toOffset: num, reason: oneOf('diverging-epoch') },
  /** A replica started from its disk. */
  'raft.recover': { endOffset: num, lastEpoch: num, droppedBatches: num, epoch: num, leader: nullable(str), votedFor: nullable(str) },
  /** A graceful shutdown completed: a new leader was known, or it gave up after its timeout. */
  'raft.shutdown': { timedOut: bool },
  /** The raft client stopped (a disk error), as Kafka's fatal fault handler stops the process. */
  'raft.fatal': { reason: str },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof RAFT_KINDS> {}
}
