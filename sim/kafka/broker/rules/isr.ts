import { isCaughtUp, type FollowerState } from './followerState';

/**
 * ISR members (other than the leader) that have not caught up within replica.lag.time.max.ms
 * [core/src/main/scala/kafka/cluster/Partition.scala `getOutOfSyncReplicas`]. The caller skips this
 * while an AlterPartition is in flight.
 */
export function outOfSyncReplicas(
  isr: readonly number[],
  leaderId: number,
  followers: ReadonlyMap<number, FollowerState>,
  leaderEndOffset: number,
  nowMs: number,
  replicaLagTimeMaxMs: number,
): number[] {
  const out: number[] = [];
  for (const id of isr) {
    if (id === leaderId) continue;
    const f = followers.get(id);
    if (!f || !isCaughtUp(f, leaderEndOffset, nowMs, replicaLagTimeMaxMs)) out.push(id);
  }
  return out;
}

/**
 * A follower outside the ISR may join once it holds everything below the high watermark and has caught
 * up into the current leader epoch [Partition.scala `maybeExpandIsr`, `isFollowerInSync`].
 */
export function canJoinIsr(f: FollowerState, highWatermark: number, leaderEpochStartOffset: number): boolean {
  return f.logEndOffset >= highWatermark && f.logEndOffset >= leaderEpochStartOffset;
}
