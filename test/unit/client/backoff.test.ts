import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { ExponentialBackoff, reconnectBackoff, retryBackoff } from '../../../sim/kafka/client/backoff';

const draws = (b: ExponentialBackoff, attempts: number[]) => attempts.map((a) => b.backoff(a));

describe('ExponentialBackoff', () => {
  it('doubles from retry.backoff.ms up to retry.backoff.max.ms without jitter', () => {
    const b = new ExponentialBackoff(100, 2, 1000, 0, Random.root(1));
    // 100 * 2^a, the exponent capped at log2(1000/100) = 3.32, so a >= 4 gives exactly 1000.
    expect(draws(b, [0, 1, 2, 3, 4, 5, 30])).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('applies +-20% jitter with the defaults (100 ms, 1000 ms)', () => {
    const b = retryBackoff(100, 1000, Random.root(7).fork('retry'));
    for (let i = 0; i < 200; i++) {
      const bounds: [number, number, number][] = [
        [0, 80, 120],
        [1, 160, 240],
        [2, 320, 480],
        [3, 640, 960],
        [4, 800, 1000], // 1000 * [0.8, 1.2), capped at the max
      ];
      for (const [attempts, lo, hi] of bounds) {
        const v = b.backoff(attempts);
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(lo);
        expect(v).toBeLessThanOrEqual(hi);
      }
    }
  });

  it('actually varies, and repeats for the same seed', () => {
    const a = retryBackoff(100, 1000, Random.root('s'));
    const seen = new Set(Array.from({ length: 50 }, () => a.backoff(0)));
    expect(seen.size).toBeGreaterThan(10);
    const x = reconnectBackoff(50, 1000, Random.root('r'));
    const y = reconnectBackoff(50, 1000, Random.root('r'));
    expect(draws(x, [0, 1, 2, 3, 4, 5])).toEqual(draws(y, [0, 1, 2, 3, 4, 5]));
  });

  it('is the constant max (no jitter, no random draw) when max <= initial', () => {
    const r = Random.root(3);
    const before = JSON.stringify(r.save());
    const b = new ExponentialBackoff(500, 2, 200, 0.2, r);
    expect(draws(b, [0, 1, 10])).toEqual([200, 200, 200]);
    expect(JSON.stringify(r.save())).toBe(before);
  });

  it('draws the factor uniformly from [0.8, 1.2) and truncates like Java\'s (long) cast', () => {
    // A twin stream gives the factor the backoff will draw; the expected value follows Kafka's formula.
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const factor = Random.root(seed).float(0.8, 1.2);
      const v = retryBackoff(100, 1000, Random.root(seed)).backoff(2);
      expect(v).toBe(Math.trunc(factor * 400));
    }
    // At least one of those seeds has a fractional part >= 0.5, where rounding would differ.
    expect([1, 2, 3, 4, 5, 6, 7, 8].some((seed) => (Random.root(seed).float(0.8, 1.2) * 400) % 1 >= 0.5)).toBe(true);
  });

  it('rejects a jitter outside [0, 1]', () => {
    expect(() => new ExponentialBackoff(100, 2, 1000, 1.5, Random.root(1))).toThrow(RangeError);
  });
});
