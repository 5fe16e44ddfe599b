import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';

const seed = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }));

describe('Random distributions', () => {
  it('int stays in [min, max) and covers every value of a small range', () => {
    fc.assert(
      fc.property(seed, fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 8 }), (s, min, span) => {
        const r = Random.root(s);
        const seen = new Set<number>();
        for (let i = 0; i < 400; i++) {
          const x = r.int(min, min + span);
          expect(Number.isInteger(x)).toBe(true);
          expect(x).toBeGreaterThanOrEqual(min);
          expect(x).toBeLessThan(min + span);
          seen.add(x);
        }
        expect(seen.size).toBe(span);
      }),
      { numRuns: 50 },
    );
  });

  it('exponential and normal have about the requested mean', () => {
    fc.assert(
      fc.property(seed, fc.double({ min: 0.5, max: 100, noNaN: true }), (s, mean) => {
        const r = Random.root(s);
        let se = 0;
        let sn = 0;
        let sn2 = 0;
        const n = 20_000;
        for (let i = 0; i < n; i++) {
          const e = r.exponential(mean);
          expect(e).toBeGreaterThanOrEqual(0);
          se += e;
          const x = r.normal(mean, 2);
          sn += x;
          sn2 += x * x;
        }
        expect(Math.abs(se / n - mean)).toBeLessThan(mean * 0.05);
        expect(Math.abs(sn / n - mean)).toBeLessThan(0.1);
        const sd = Math.sqrt(sn2 / n - (sn / n) ** 2);
        expect(Math.abs(sd - 2)).toBeLessThan(0.1);
      }),
      { numRuns: 20 },
    );
  });

  it('shuffle is a permutation and weighted choice follows the weights', () => {
    fc.assert(
      fc.property(seed, fc.array(fc.integer(), { maxLength: 30 }), (s, items) => {
        const r = Random.root(s);
        const out = r.shuffle(items);
        expect([...out].sort((a, b) => a - b)).toEqual([...items].sort((a, b) => a - b));
        const counts = [0, 0, 0];
        for (let i = 0; i < 6000; i++) counts[r.weighted([0, 1, 2], [1, 0, 3])]!++;
        expect(counts[1]).toBe(0);
        expect(counts[2]! / counts[0]!).toBeGreaterThan(2.5);
        expect(counts[2]! / counts[0]!).toBeLessThan(3.5);
      }),
      { numRuns: 30 },
    );
  });

  it('zipf favours low ranks in the ratio 1/k^s', () => {
    fc.assert(
      fc.property(seed, fc.integer({ min: 2, max: 1000 }), (s, n) => {
        const r = Random.root(s);
        const counts = new Map<number, number>();
        for (let i = 0; i < 20_000; i++) {
          const k = r.zipf(n, 1);
          expect(k).toBeGreaterThanOrEqual(0);
          expect(k).toBeLessThan(n);
          counts.set(k, (counts.get(k) ?? 0) + 1);
        }
        const ratio = (counts.get(0) ?? 0) / (counts.get(1) ?? 1);
        expect(ratio).toBeGreaterThan(1.6);
        expect(ratio).toBeLessThan(2.5);
      }),
      { numRuns: 20 },
    );
  });
});
