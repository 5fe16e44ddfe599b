import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { randomSchedule, validateSchedule, type FaultEntry, type RandomNemesisOptions } from '../../../sim/world/nemesis';
import { makeWorld } from '../../unit/world/harness';

const HOSTS = ['b1', 'b2', 'b3', 'b4', 'b5'];
const world = makeWorld({ hosts: HOSTS });

const KINDS = ['crash', 'power-loss', 'pause', 'isolate', 'slow-disk', 'lossy'] as const;

const options: fc.Arbitrary<RandomNemesisOptions> = fc
  .record({
    kinds: fc.uniqueArray(fc.constantFrom(...KINDS), { minLength: 1 }).chain((ks) =>
      fc.tuple(...ks.map((k) => fc.integer({ min: 1, max: 5 }).map((weight) => ({ kind: k, weight })))),
    ),
    targets: fc.subarray(HOSTS, { minLength: 1 }),
    startMs: fc.integer({ min: 0, max: 10_000 }),
    span: fc.integer({ min: 1, max: 300_000 }),
    meanIntervalMs: fc.integer({ min: 1, max: 20_000 }),
    minDurationMs: fc.integer({ min: 0, max: 5_000 }),
    extraDuration: fc.integer({ min: 0, max: 30_000 }),
    maxImpaired: fc.integer({ min: 0, max: 4 }),
    settleMs: fc.integer({ min: 0, max: 10_000 }),
    correlatedPowerLoss: fc.boolean(),
  })
  .map(({ span, extraDuration, ...o }) => ({ ...o, endMs: o.startMs + span, maxDurationMs: o.minDurationMs + extraDuration }));

/** The host a drawn entry impairs. */
function hostOf(e: FaultEntry): string {
  return (e.targets ?? e.from)![0]!;
}

/** [start, end) of the time the entry's host counts as impaired: the fault, then the settle time. */
function impaired(e: FaultEntry, o: RandomNemesisOptions): [number, number] {
  return [e.at as number, (e.at as number) + (e.duration as number) + o.settleMs];
}

describe('randomSchedule', () => {
  it('stays within its budget, in its window, on its targets and kinds; and its output validates', () => {
    fc.assert(
      fc.property(fc.integer(), options, (seed, o) => {
        const out = randomSchedule(Random.root(seed).fork('nemesis'), o);
        validateSchedule(out, world.resolver); // throws if not
        const kinds = new Set(o.kinds.map((k) => k.kind));
        let prevAt = -1;
        for (const e of out) {
          expect(kinds.has(e.fault as (typeof KINDS)[number])).toBe(true);
          expect(o.targets).toContain(hostOf(e));
          expect(e.at as number).toBeGreaterThan(prevAt);
          expect(e.at as number).toBeGreaterThan(o.startMs);
          expect(e.at as number).toBeLessThan(o.endMs);
          expect(e.duration as number).toBeGreaterThanOrEqual(Math.max(1, o.minDurationMs));
          expect(e.duration as number).toBeLessThanOrEqual(Math.max(1, o.maxDurationMs));
          prevAt = e.at as number;
        }
        // At every fault start, count the hosts impaired (settle time included): never more than maxImpaired,
        // and never the same host twice.
        // A sweep in start order (a window of 1 ms intervals can hold a hundred thousand faults: no n² here).
        let busy: FaultEntry[] = [];
        for (const e of out) {
          const t = e.at as number;
          busy = busy.filter((x) => t < impaired(x, o)[1]);
          busy.push(e);
          if (busy.length > o.maxImpaired) expect(busy.length).toBeLessThanOrEqual(o.maxImpaired);
          if (new Set(busy.map(hostOf)).size !== busy.length) expect(new Set(busy.map(hostOf)).size).toBe(busy.length);
        }
        // Power losses never overlap (settle time included) unless correlated ones are allowed.
        if (!o.correlatedPowerLoss) {
          const losses = out.filter((e) => e.fault === 'power-loss').map((e) => impaired(e, o));
          for (let i = 1; i < losses.length; i++) expect(losses[i]![0]).toBeGreaterThanOrEqual(losses[i - 1]![1]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is a function of its seed: the same seed gives the same schedule, another seed another one', () => {
    const o: RandomNemesisOptions = {
      kinds: KINDS.map((kind) => ({ kind, weight: 1 })),
      targets: HOSTS,
      startMs: 0,
      endMs: 600_000,
      meanIntervalMs: 5_000,
      minDurationMs: 1_000,
      maxDurationMs: 30_000,
      maxImpaired: 2,
      settleMs: 5_000,
      correlatedPowerLoss: false,
    };
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (a, b) => {
        fc.pre(a !== b);
        const first = randomSchedule(Random.root(a).fork('nemesis'), o);
        expect(first.length).toBeGreaterThan(10);
        expect(randomSchedule(Random.root(a).fork('nemesis'), o)).toEqual(first);
        expect(randomSchedule(Random.root(b).fork('nemesis'), o)).not.toEqual(first);
      }),
      { numRuns: 100 },
    );
  });

  it('with correlatedPowerLoss and room for it, power losses do overlap', () => {
    const o: RandomNemesisOptions = {
      kinds: [{ kind: 'power-loss', weight: 1 }],
      targets: HOSTS,
      startMs: 0,
      endMs: 600_000,
      meanIntervalMs: 2_000,
      minDurationMs: 10_000,
      maxDurationMs: 20_000,
      maxImpaired: 3,
      settleMs: 0,
      correlatedPowerLoss: true,
    };
    const out = randomSchedule(Random.root(1).fork('nemesis'), o);
    const overlapping = out.some((e, i) => i > 0 && (out[i - 1]!.at as number) + (out[i - 1]!.duration as number) > (e.at as number));
    expect(overlapping).toBe(true);
  });
});
