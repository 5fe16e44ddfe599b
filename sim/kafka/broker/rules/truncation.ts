/** Kafka's sentinels for "no epoch" and "no offset" in OffsetsForLeaderEpoch answers. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

/** An (epoch, end offset) pair as OffsetsForLeaderEpoch or a DivergingEpoch carries it. */
export interface EpochEndOffset {
  readonly epoch: number;
  readonly endOffset: number;
}

/** Where a follower truncates, and whether it must ask again (its own log never saw the leader's epoch). */
export interface TruncationState {
  readonly offset: number;
  readonly truncationCompleted: boolean;
}

/**
 * A follower's truncation point given the leader's answer for the follower's last epoch
 * [core/src/main/scala/kafka/server/AbstractFetcherThread.scala `getOffsetTruncationState`; KIP-101, KIP-279].
 *
 * `ownEndOffsetFor` is the follower's own leader-epoch cache lookup (LeaderEpochFileCache.endOffsetFor).
 */
export function offsetTruncationState(
  leader: EpochEndOffset,
  followerLogEndOffset: number,
  followerFetchOffset: number,
  ownEndOffsetFor: (epoch: number) => EpochEndOffset | null,
): TruncationState {
  if (leader.endOffset === UNDEFINED_EPOCH_OFFSET) {
    return { offset: followerFetchOffset, truncationCompleted: true };
  }
  if (leader.epoch === UNDEFINED_EPOCH) {
    return { offset: Math.min(leader.endOffset, followerLogEndOffset), truncationCompleted: true };
  }
  const own = ownEndOffsetFor(leader.epoch);
  if (own === null || own.epoch === UNDEFINED_EPOCH || own.endOffset === UNDEFINED_EPOCH_OFFSET) {
    // The follower has no epoch at or below the leader's: trust the leader's end offset.
    return { offset: Math.min(leader.endOffset, followerLogEndOffset), truncationCompleted: true };
  }
  if (own.epoch !== leader.epoch) {
    // The follower never saw the leader's epoch: cut back to where its own older epoch ends and ask again.
    return { offset: Math.min(own.endOffset, followerLogEndOffset), truncationCompleted: false };
  }
  return { offset: Math.min(leader.endOffset, own.endOffset, followerLogEndOffset), truncationCompleted: true };
}

/**
 * The leader's divergence check for a follower fetch that carries `lastFetchedEpoch`
 * [Partition.scala `fetchRecords` / `validateFetchOffsetAndMaybeGetDivergingEpoch`]. Returns the
 * DivergingEpoch to send, or null when the follower's log is a prefix of the leader's.
 */
export function divergingEpoch(
  fetchOffset: number,
  lastFetchedEpoch: number,
  leaderEndOffsetFor: (epoch: number) => EpochEndOffset,
): EpochEndOffset | null {
  if (lastFetchedEpoch < 0) return null;
  const e = leaderEndOffsetFor(lastFetchedEpoch);
  if (e.epoch < lastFetchedEpoch || e.endOffset < fetchOffset) return e;
  return null;
}
