import type { FollowerState } from '../../../sim/kafka/broker/rules/followerState';

/** A follower at `logEndOffset` that last caught up at `lastCaughtUpTimeMs` (its last fetch then too). */
export function follower(brokerId: number, logEndOffset: number, lastCaughtUpTimeMs = 0): FollowerState {
  return { brokerId, logEndOffset, logStartOffset: 0, lastFetchLeaderLogEndOffset: logEndOffset, lastFetchTimeMs: lastCaughtUpTimeMs, lastCaughtUpTimeMs, brokerEpoch: 1 };
}
