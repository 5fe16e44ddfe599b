import type { Random } from '../../core/random';

/**
 * The randomised timers of KRaft elections, in milliseconds as Kafka computes them.
 */

/** Base of the candidate's exponential backoff [KafkaRaftClient.java RETRY_BACKOFF_BASE_MS]. */
export const RETRY_BACKOFF_BASE_MS = 100;

/** `election.timeout + uniform[0, election.timeout)` [QuorumState.java `randomElectionTimeoutMs`]. */
export function randomElectionTimeoutMs(random: Random, electionTimeoutMs: number): number {
  if (electionTimeoutMs === 0) return 0;
  return electionTimeoutMs + random.int(0, electionTimeoutMs);
}

/**
 * A candidate whose vote was rejected waits `min(100 * uniform[0, 2^retries), backoff.max)`, retries >= 1
 * [KafkaRaftClient.java `binaryExponentialElectionBackoffMs`].
 */
export function binaryExponentialElectionBackoffMs(random: Random, retries: number, electionBackoffMaxMs: number): number {
  if (retries <= 0) throw new RangeError(`retries ${retries} should be larger than zero`);
  return Math.min(RETRY_BACKOFF_BASE_MS * random.int(0, 2 << Math.min(20, retries - 1)), electionBackoffMaxMs);
}

/**
 * After EndQuorumEpoch, a follower at `position` in the resigning leader's preferred successors waits
 * `(backoff.max >> (n - 1)) << (position - 1)` (the first stands at once; one not listed waits the maximum)
 * [KafkaRaftClient.java `strictExponentialElectionBackoffMs`, `endEpochElectionBackoff`].
 */
export function strictExponentialElectionBackoffMs(position: number, successors: number, electionBackoffMaxMs: number): number {
  if (position === 0) return 0;
  if (position < 0 || position >= successors) return electionBackoffMaxMs;
  const base = electionBackoffMaxMs >> (successors - 1);
  return Math.min(electionBackoffMaxMs, base << (position - 1));
}
