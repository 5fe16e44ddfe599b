import { isCaughtUp, type FollowerState } from './followerState';

export interface HighWatermarkInput {
  readonly currentHighWatermark: number;
  readonly leaderLogEndOffset: number;
  /** The ISR the controller committed (leader included). */
  readonly committedIsrSize: number;
  /** The committed ISR plus any follower whose ISR expansion is in flight (the leader's own id is ignored). */
  readonly maximalIsr: readonly number[];
  readonly followers: readonly FollowerState[];
  /** A follower the leader may count (not fenced, not shutting down, matching broker epoch). */
  readonly isIsrEligible: (brokerId: number) => boolean;
  /** min(min.insync.replicas, replication factor). */
  readonly effectiveMinIsr: number;
  readonly nowMs: number;
  readonly replicaLagTimeMaxMs: number;
}

/**
 * The leader's high watermark after an append, a follower fetch or an ISR change
 * [core/src/main/scala/kafka/cluster/Partition.scala `maybeIncrementLeaderHW`].
 *
 * It is the lowest log end offset among the maximal ISR and any caught-up eligible follower (so that a
 * follower about to join is not raced past), never lower than before, and it does not move at all while
 * the committed ISR is smaller than the effective min ISR (the strict rule since 3.7, KAFKA-15583).
 */
export function nextHighWatermark(i: HighWatermarkInput): number {
  if (i.committedIsrSize < i.effectiveMinIsr) return i.currentHighWatermark;
  let hw = i.leaderLogEndOffset;
  for (const f of i.followers) {
    if (f.logEndOffset >= hw) continue;
    if (i.maximalIsr.includes(f.brokerId) || (isCaughtUp(f, i.leaderLogEndOffset, i.nowMs, i.replicaLagTimeMaxMs) && i.isIsrEligible(f.brokerId))) {
      // An unknown follower offset (-1) in the ISR holds the HW where it is.
      hw = Math.max(f.logEndOffset, -1);
    }
  }
  return Math.max(i.currentHighWatermark, hw);
}
