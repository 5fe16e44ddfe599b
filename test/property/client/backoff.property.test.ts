import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { retryBackoff } from '../../../sim/kafka/client/backoff';

describe('ExponentialBackoff properties', () => {
  it('stays within 0.8x..1.2x of min(initial * 2^attempts, max), never above max', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer(),
        (initial, max, attempts, seed) => {
          const v = retryBackoff(initial, max, Random.root(seed)).backoff(attempts);
          expect(Number.isInteger(v)).toBe(true);
          if (max <= initial) {
            expect(v).toBe(max);
            return;
          }
          // The un-jittered value, computed with exact powers of two rather than the logarithm cap.
          const base = Math.min(initial * 2 ** attempts, max);
          expect(v).toBeLessThanOrEqual(max);
          expect(v).toBeGreaterThanOrEqual(Math.floor(0.8 * base * (1 - 1e-9)));
          expect(v).toBeLessThanOrEqual(Math.ceil(1.2 * base));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
