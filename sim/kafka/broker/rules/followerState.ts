/**
 * What a partition leader knows about one follower, and how each follower fetch updates it
 * [core/src/main/scala/kafka/cluster/Replica.scala `updateFetchStateOrThrow`, `isCaughtUp`, `resetReplicaState`].
 * A leader updates it in place: every follower fetch reads every partition of its session, many times a second.
 */
export interface FollowerState {
  readonly brokerId: number;
  /** The follower's log end offset = the fetch offset of its latest fetch; -1 until the first fetch. */
  logEndOffset: number;
  logStartOffset: number;
  /** The leader's log end offset when it served the previous fetch. */
  lastFetchLeaderLogEndOffset: number;
  lastFetchTimeMs: number;
  /** The last time the follower was known to have every record the leader had. */
  lastCaughtUpTimeMs: number;
  /** The broker epoch the follower sent with its last fetch (-1 unknown). */
  brokerEpoch: number;
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
 * Applies one follower fetch at `fetchTimeMs` for `fetchOffset` (= its LEO), served while the leader's LEO was
 * `leaderEndOffset`, to `s`. A follower that fetched at least what the leader had at its previous fetch was
 * caught up as of that previous fetch.
 */
export function updateFetchState(
  s: FollowerState,
  fetchOffset: number,
  followerStartOffset: number,
  leaderEndOffset: number,
  fetchTimeMs: number,
  brokerEpoch: number,
): void {
  if (fetchOffset >= leaderEndOffset) s.lastCaughtUpTimeMs = Math.max(s.lastCaughtUpTimeMs, fetchTimeMs);
  else if (fetchOffset >= s.lastFetchLeaderLogEndOffset) s.lastCaughtUpTimeMs = Math.max(s.lastCaughtUpTimeMs, s.lastFetchTimeMs);
  s.logEndOffset = fetchOffset;
  s.logStartOffset = followerStartOffset;
  s.lastFetchLeaderLogEndOffset = Math.max(leaderEndOffset, s.lastFetchLeaderLogEndOffset);
  s.lastFetchTimeMs = fetchTimeMs;
  s.brokerEpoch = brokerEpoch;
}

/** In sync: has everything the leader has, or had it within replica.lag.time.max.ms [Replica.isCaughtUp]. */
export function isCaughtUp(f: FollowerState, leaderEndOffset: number, nowMs: number, replicaLagTimeMaxMs: number): boolean {
  return f.logEndOffset === leaderEndOffset || nowMs - f.lastCaughtUpTimeMs <= replicaLagTimeMaxMs;
}

/**
 * A session partition whose follower fetches the same offset again while the leader's log end stays where it
 * was at the last read (a quiet one: the read itself is skipped).
 */
export interface RepeatedFetch {
  readonly fetchOffset: number;
  /** The follower's log start offset its request carries. */
  readonly logStartOffset: number;
  /** The leader's log end offset as of the last read, unchanged since. */
  readonly memoLogEndOffset: number;
  /** The leader's state of the follower (null: nothing to record). */
  readonly memoFollower: FollowerState | null;
}

/**
 * Records one follower fetch at `fetchTimeMs` for each partition of a fetch that was not read because nothing
 * changed: exactly what the read would have recorded (its offsets are unchanged, so only the times and the broker
 * epoch move) [Partition.fetchRecords -> updateFollowerFetchState, on every follower fetch].
 */
export function recordRepeatedFetches(fetches: readonly RepeatedFetch[], fetchTimeMs: number, brokerEpoch: number): void {
  for (let i = 0; i < fetches.length; i++) {
    const r = fetches[i]!;
    const f = r.memoFollower;
    if (f !== null) updateFetchState(f, r.fetchOffset, r.logStartOffset, r.memoLogEndOffset, fetchTimeMs, brokerEpoch);
  }
}
