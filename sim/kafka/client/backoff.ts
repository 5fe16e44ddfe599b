/**
 * Kafka's exponential backoff with jitter (KIP-580), used for retry.backoff.ms / retry.backoff.max.ms and
 * reconnect.backoff.ms / reconnect.backoff.max.ms. Values are milliseconds, as Kafka's configs; convert
 * with core/time `ms()` when scheduling.
 */
import type { Random } from '../../core/random';

/** CommonClientConfigs.RETRY_BACKOFF_EXP_BASE / RETRY_BACKOFF_JITTER. */
export const RETRY_BACKOFF_EXP_BASE = 2;
export const RETRY_BACKOFF_JITTER = 0.2;
/** ClusterConnectionStates.RECONNECT_BACKOFF_EXP_BASE / RECONNECT_BACKOFF_JITTER. */
export const RECONNECT_BACKOFF_EXP_BASE = 2;
export const RECONNECT_BACKOFF_JITTER = 0.2;

/** Java's Double.MIN_NORMAL: below it the jitter counts as zero and no random number is drawn. */
const DOUBLE_MIN_NORMAL = 2.2250738585072014e-308;

/**
 * backoff(attempts) = min(trunc(initial * multiplier^min(attempts, expMax) * U[1 - jitter, 1 + jitter)), max),
 * where expMax = log_multiplier(max / initial), so the exponent stops growing once the un-jittered value
 * reaches max; when max <= initial the backoff is the constant max, with no jitter.
 * [clients/.../common/utils/ExponentialBackoff.java]
 */
export class ExponentialBackoff {
  readonly initialInterval: number;
  readonly multiplier: number;
  readonly maxInterval: number;
  readonly jitter: number;
  private readonly expMax: number;
  private readonly random: Random;

  constructor(initialInterval: number, multiplier: number, maxInterval: number, jitter: number, random: Random) {
    if (jitter < 0 || jitter > 1) throw new RangeError('jitter must be between 0 and 1');
    this.initialInterval = Math.min(maxInterval, initialInterval);
    this.multiplier = multiplier;
    this.maxInterval = maxInterval;
    this.jitter = jitter;
    // Kafka compares with (and divides by) the configured initial value, before it was capped at max.
    this.expMax =
      maxInterval > initialInterval ? Math.log(maxInterval / Math.max(initialInterval, 1)) / Math.log(multiplier) : 0;
    this.random = random;
  }

  /** The wait in ms after `attempts` earlier failures (0 for the first wait). */
  backoff(attempts: number): number {
    if (this.expMax === 0) return this.initialInterval;
    const exp = Math.min(attempts, this.expMax);
    const term = this.initialInterval * Math.pow(this.multiplier, exp);
    const randomFactor = this.jitter < DOUBLE_MIN_NORMAL ? 1 : this.random.float(1 - this.jitter, 1 + this.jitter);
    // Java's (long) cast truncates toward zero.
    return Math.min(Math.trunc(randomFactor * term), this.maxInterval);
  }
}

/**
 * The producer's / consumer's retry backoff. A retried producer batch waits backoff(attempts - 1), unless
 * the partition's leader changed since the failure. [clients/.../producer/internals/RecordAccumulator.java `shouldBackoff`]
 */
export function retryBackoff(retryBackoffMs: number, retryBackoffMaxMs: number, random: Random): ExponentialBackoff {
  return new ExponentialBackoff(retryBackoffMs, RETRY_BACKOFF_EXP_BASE, retryBackoffMaxMs, RETRY_BACKOFF_JITTER, random);
}

/**
 * The reconnect backoff of a client's connection to one node: after the n-th consecutive failure (n from 0)
 * the next attempt waits backoff(n); a successful connection resets n to 0.
 * [clients/.../clients/ClusterConnectionStates.java `updateReconnectBackoff`, `resetReconnectBackoff`]
 */
export function reconnectBackoff(
  reconnectBackoffMs: number,
  reconnectBackoffMaxMs: number,
  random: Random,
): ExponentialBackoff {
  return new ExponentialBackoff(
    reconnectBackoffMs,
    RECONNECT_BACKOFF_EXP_BASE,
    reconnectBackoffMaxMs,
    RECONNECT_BACKOFF_JITTER,
    random,
  );
}
