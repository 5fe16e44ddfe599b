/**
 * The KRaft leader's high watermark rule [raft/.../LeaderState.java `maybeUpdateHighWatermark`]: the largest
 * offset a majority of voters (leader included) has, and only once it passes the start of the leader's own
 * epoch — a leader commits an entry of its epoch before it exposes anything from earlier epochs. Monotonic.
 *
 * `voterEndOffsets` holds one entry per voter: its durable end offset, or null when unknown (no fetch yet).
 * Returns the new high watermark, or null when it does not move.
 */
export function maybeUpdateHighWatermark(
  voterEndOffsets: readonly (number | null)[],
  epochStartOffset: number,
  currentHighWatermark: number | null,
): number | null {
  const candidate = majorityEndOffset(voterEndOffsets);
  if (candidate === null || candidate <= epochStartOffset) return null;
  if (currentHighWatermark !== null && candidate <= currentHighWatermark) return null;
  return candidate;
}

/** The end offset held by a majority: voter end offsets sorted descending, the one at index n/2 (unknown sorts last). */
export function majorityEndOffset(voterEndOffsets: readonly (number | null)[]): number | null {
  const sorted = voterEndOffsets.map((o) => (o === null ? -1 : o)).sort((a, b) => b - a);
  const v = sorted[sorted.length >> 1];
  return v === undefined || v < 0 ? null : v;
}

/**
 * Check quorum [LeaderState.java `updateCheckQuorumForFollowingVoter`]: the remote voters whose fetches a leader
 * (itself a voter) needs within the check-quorum timeout to stay leader: a majority minus itself.
 */
export function fetchersNeededForCheckQuorum(voterCount: number): number {
  return (voterCount >> 1) + 1 - 1;
}

/** Kafka's check-quorum timeout is 1.5 times the fetch timeout [LeaderState.java CHECK_QUORUM_TIMEOUT_FACTOR]. */
export const CHECK_QUORUM_TIMEOUT_FACTOR = 1.5;
