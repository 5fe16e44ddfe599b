import { describe, expect, it } from 'vitest';
import { counterexampleDocument, describeFault } from '../../../sim/explore/counterexample';
import { caseSpec, exploreArbitrary, runAddress, shardRuns, type ExplorePlan } from '../../../sim/explore/plan';
import { noAckedLoss } from '../../../sim/explore/properties/noAckedLoss';
import { singleLeaderPerEpoch } from '../../../sim/explore/properties/singleLeaderPerEpoch';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { isKnownCheck } from '../../../sim/check/names';

const base: ScenarioSpec = {
  id: 'steady',
  title: 'Steady',
  lesson: 'about its own schedule',
  duration: '20s',
  quiet: '45s',
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  producers: [{ id: 'producer-1', workload: { topic: 'orders', rate: 50 } }],
  faults: [{ at: '1s', fault: 'crash', targets: ['broker-1'] }],
  expect: [{ check: 'acked', op: '>', value: 0 }],
};
const plan: ExplorePlan = { property: 'no-acked-loss', base, sets: ['producer.acks=1'], budget: 'one-at-a-time', seed: 7 };

describe('the seed space', () => {
  it('shards are disjoint and together cover every run', () => {
    const all = [1, 2, 3].flatMap((i) => shardRuns(10, { index: i, count: 3 }));
    expect(all.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(shardRuns(10, { index: 2, count: 3 })).toEqual([1, 4, 7]);
    expect(shardRuns(5)).toEqual([0, 1, 2, 3, 4]);
  });

  it("addresses run k by a fast-check seed and path that depend only on (seed, k)", () => {
    expect(runAddress(7, 5)).toEqual(runAddress(7, 5));
    expect(runAddress(7, 5).path).toBe('5');
    expect(runAddress(7, 1030).path).toBe('6');
    expect(runAddress(7, 5).fcSeed).not.toBe(runAddress(7, 1030).fcSeed);
    expect(runAddress(7, 5).fcSeed).not.toBe(runAddress(8, 5).fcSeed);
    // A number and its text are different seeds (the CLI reads digits as a number).
    expect(runAddress(7, 5).fcSeed).not.toBe(runAddress('7', 5).fcSeed);
  });

  it('draws the same scenario for (seed, k) however many runs came before, and different ones for other k', () => {
    const arb = exploreArbitrary(plan);
    const a = caseSpec(arb, 7, 12);
    const again = caseSpec(exploreArbitrary(plan), 7, 12);
    expect(again).toEqual(a);
    const others = [0, 1, 2, 3].map((k) => JSON.stringify(caseSpec(arb, 7, k)));
    expect(new Set(others).size).toBe(4);
  });
});

describe('exploreArbitrary', () => {
  it('keeps the base cluster and clients, replaces its faults, drops its expectations, and applies --set last', () => {
    const s = caseSpec(exploreArbitrary(plan), 7, 3);
    expect(s.topics).toEqual(base.topics);
    expect(s.producers![0]!.config).toEqual({ acks: '1' });
    expect(s.expect).toEqual([]);
    expect(s.faults).not.toEqual(base.faults);
    expect(typeof s.seed).toBe('number');
    expect(() => validateScenario(s)).not.toThrow();
  });

  it('draws whole scenarios without a base, with a duration and a quiet period', () => {
    const s = caseSpec(exploreArbitrary({ ...plan, base: null, sets: [] }), 7, 0);
    expect(s.duration).toBe(20_000);
    expect(s.quiet).toBe(45_000);
    expect(s.topics).toHaveLength(1);
    expect(() => validateScenario(s)).not.toThrow();
  });
});

describe('the counterexample document', () => {
  const faults = [
    { at: 1000, fault: 'one-way' as const, from: ['leader:orders/0'], to: ['tag:broker', 'tag:controller'], duration: 6300 },
    { at: 11_500, fault: 'power-loss' as const, targets: ['leader:orders/0'], duration: 500 },
  ];

  it('describes faults in plain words', () => {
    expect(describeFault(faults[0]!)).toBe('one-way [leader:orders/0] -/-> [tag:broker, tag:controller] at 1s for 6.3s');
    expect(describeFault(faults[1]!)).toBe('power-loss of leader:orders/0 at 11.5s for 0.5s');
    expect(describeFault({ at: 0, fault: 'partition', groups: [['broker:1'], ['tag:controller']], duration: 100 })).toBe('partition [broker:1] | [tag:controller] at 0s for 0.1s');
  });

  it('is a valid scenario carrying the property as its expectation, a caption per fault, and how it was found', () => {
    const spec: ScenarioSpec = { ...base, seed: 99, faults, expect: [], captions: [] };
    const doc = counterexampleDocument(spec, { property: noAckedLoss, opts: {}, verdict: { ok: false, count: 3, examples: ['x lost'] }, seed: 7, run: 12, shrinks: 4 });
    expect(doc.id).toBe('counterexample-no-acked-loss');
    expect(doc.title).toBe('Counterexample to no-acked-loss: 2 faults');
    expect(doc.expect).toEqual([{ check: 'lost-write', op: '=', value: 0, description: 'no-acked-loss: lost-write = 0' }]);
    expect(doc.captions).toEqual([
      { at: 1000, text: describeFault(faults[0]!) },
      { at: 11_500, text: describeFault(faults[1]!) },
    ]);
    expect(doc.summary).toContain('--seed 7 (run 12), shrunk 4 times');
    expect(doc.summary).toContain('x lost');
    expect(doc.lesson).toBeUndefined();
    expect(doc.seed).toBe(99);
    expect(doc.faults).toEqual(faults);
    expect(validateScenario(doc).expect).toHaveLength(1);
    const other = counterexampleDocument(spec, { property: singleLeaderPerEpoch, opts: {}, verdict: { ok: false, count: 1, examples: [] }, seed: 7, run: 1, shrinks: 1 });
    expect(other.expect).toHaveLength(isKnownCheck('leader-epoch-conflict') ? 1 : 0);
  });
});
