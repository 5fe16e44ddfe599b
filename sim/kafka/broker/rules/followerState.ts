/**
 * What a partition leader knows about one follower, and how each follower fetch updates it
 * [core/src/main/scala/kafka/cluster/Replica.scala `updateFetchStateOrThrow`, `isCaughtUp`, `resetReplicaState`].
 */
export interface FollowerState {
  readonly brokerId: number;
  /** The follower's log end offset = the fetch offset of its latest fetch; -1 until the first fetch. */
  readonly logEndOffset: number;
  readonly logStartOffset: number;
  /** The leader's log end offset when it served the previous fetch. */
  readonly lastFetchLeaderLogEndOffset: number;
  readonly lastFetchTimeMs: number;
  /** The last time the follower was known to have every record the leader had. */
  readonly lastCaughtUpTimeMs: number;
  /** The broker epoch the follower sent with its last fetch (-1 unknown). */
  readonly brokerEpoch: number;
}

export const UNKNOWN_OFFSET = -1;

/**
 * "Never" for the two times. Kafka starts them at 0, which on a wall clock is 1970; on the simulated clock 0
 * is the boot, so 0 would make a replica that never caught up count as caught up for the first
 * replica.lag.time.max.ms of every run.
 */
export const NEVER_MS = Number.MIN_SAFE_INTEGER;

/**
 * A fresh state for a follower when this broker becomes leader with a new leader epoch
 * [Partition.makeLeader]: a follower in the ISR counts as caught up now, any other as never.
 */
export function resetFollowerState(brokerId: number, inIsr: boolean, nowMs: number): FollowerState {
  return {
    brokerId,
    logEndOffset: UNKNOWN_OFFSET,
    logStartOffset: UNKNOWN_OFFSET,
    lastFetchLeaderLogEndOffset: UNKNOWN_OFFSET,
    lastFetchTimeMs: NEVER_MS,
    lastCaughtUpTimeMs: inIsr ? nowMs : NEVER_MS,
    brokerEpoch: -1,
  };
}

/**
 * One follower fetch at `fetchTimeMs` for `fetchOffset` (= its LEO), served while the leader's LEO was
 * `leaderEndOffset`. A follower that fetched at least what the leader had at its previous fetch was
 * caught up as of that previous fetch.
 */
export function updateFetchState(
  prev: FollowerState,
  fetchOffset: number,
  followerStartOffset: number,
  leaderEndOffset: number,
  fetchTimeMs: number,
  brokerEpoch: number,
): FollowerState {
  let lastCaughtUpTimeMs = prev.lastCaughtUpTimeMs;
  if (fetchOffset >= leaderEndOffset) lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, fetchTimeMs);
  else if (fetchOffset >= prev.lastFetchLeaderLogEndOffset) lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, prev.lastFetchTimeMs);
  return {
    brokerId: prev.brokerId,
    logEndOffset: fetchOffset,
    logStartOffset: followerStartOffset,
    lastFetchLeaderLogEndOffset: Math.max(leaderEndOffset, prev.lastFetchLeaderLogEndOffset),
    lastFetchTimeMs: fetchTimeMs,
    lastCaughtUpTimeMs,
    brokerEpoch,
  };
}

/** In sync: has everything the leader has, or had it within replica.lag.time.max.ms [Replica.isCaughtUp]. */
export function isCaughtUp(f: FollowerState, leaderEndOffset: number, nowMs: number, replicaLagTimeMaxMs: number): boolean {
  return f.logEndOffset === leaderEndOffset || nowMs - f.lastCaughtUpTimeMs <= replicaLagTimeMaxMs;
}
