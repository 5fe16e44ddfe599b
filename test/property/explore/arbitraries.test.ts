import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterShape } from '../../../sim/explore/arbitraries/clusterShape';
import { faultSchedule } from '../../../sim/explore/arbitraries/faultSchedule';
import { producerConfig } from '../../../sim/explore/arbitraries/producerConfig';
import { generatedScenario, scenarioWithFaults } from '../../../sim/explore/arbitraries/scenario';
import { topicConfig } from '../../../sim/explore/arbitraries/topicConfig';
import { BUDGETS, budgetViolation } from '../../../sim/explore/budget';
import { faultPalette } from '../../../sim/explore/palette';
import { effectiveProducerConfig } from '../../../sim/kafka/client/producer/producerConfigRules';
import { PRODUCER_CONFIGS } from '../../../sim/kafka/config/configs';
import { resolveConfig } from '../../../sim/kafka/config/def';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

const SETTLE = 10_000;
const base: ScenarioSpec = {
  id: 'base',
  duration: '20s',
  topics: [{ name: 'orders', partitions: 3, replicationFactor: 3 }],
  producers: [{ id: 'producer-1', workload: { topic: 'orders', rate: 10 } }],
};

describe('generated scenarios', () => {
  for (const budget of BUDGETS) {
    it(`are documents the validator accepts, with every fault inside the duration and the ${budget} budget kept`, () => {
      fc.assert(
        fc.property(generatedScenario({ budget, durationMs: 20_000, quietMs: 45_000, settleMs: SETTLE }), (spec) => {
          const s = validateScenario(spec);
          expect(s.faults.every((f) => f.atUs >= 1_000_000 && f.atUs < 20_000_000)).toBe(true);
          expect(budgetViolation(spec.faults ?? [], budget, SETTLE)).toBeNull();
          expect(s.cluster.brokers).toBeGreaterThanOrEqual(3);
          expect([1, 3, 5]).toContain(s.cluster.controllers);
          expect(s.topics[0]!.replicationFactor).toBeLessThanOrEqual(s.cluster.brokers);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('on a base keep its cluster, topics and clients and only draw faults and a seed', () => {
    fc.assert(
      fc.property(scenarioWithFaults(base, 20_000, { budget: 'none' }), (spec) => {
        expect(spec.topics).toBe(base.topics);
        expect(spec.producers).toBe(base.producers);
        expect(Number.isInteger(spec.seed)).toBe(true);
        validateScenario(spec);
      }),
      { numRuns: 100 },
    );
  });

  it('draw every cluster shape, durability setting and fault verb', () => {
    const seen = new Set<string>();
    for (const s of fc.sample(generatedScenario({ budget: 'none', durationMs: 20_000, quietMs: 45_000 }), { numRuns: 400, seed: 1 })) {
      seen.add(`controllers=${s.cluster!.controllers}`).add(`brokers=${s.cluster!.brokers}`).add(`rf=${s.topics![0]!.replicationFactor}`);
      seen.add(`minIsr=${s.topics![0]!.config!['min.insync.replicas']}`).add(`acks=${s.producers![0]!.config!.acks}`);
      for (const f of s.faults ?? []) seen.add(f.fault);
    }
    for (const w of ['controllers=1', 'controllers=3', 'controllers=5', 'brokers=3', 'brokers=5', 'rf=1', 'rf=3', 'minIsr=1', 'minIsr=3', 'acks=0', 'acks=1', 'acks=all']) expect(seen).toContain(w);
    for (const f of ['crash', 'power-loss', 'pause', 'isolate', 'partition', 'one-way', 'slow-disk']) expect(seen).toContain(f);
  });
});

describe('the small builders', () => {
  it('cluster shapes: 3 to 5 brokers, 1, 3 or 5 controllers, racks cycled over brokers', () => {
    fc.assert(
      fc.property(clusterShape(), (c) => {
        expect(c.brokers).toBeGreaterThanOrEqual(3);
        expect(c.brokers).toBeLessThanOrEqual(5);
        expect([1, 3, 5]).toContain(c.controllers);
        expect(c.racks === undefined || c.racks.length >= 2).toBe(true);
      }),
    );
  });

  it('producer configs never ask for idempotence the other settings forbid (Kafka would refuse to start)', () => {
    fc.assert(
      fc.property(producerConfig(), (c) => {
        const resolved = resolveConfig(PRODUCER_CONFIGS, c, 'producer');
        expect(effectiveProducerConfig(resolved, new Set(Object.keys(c))).errors).toEqual([]);
      }),
    );
  });

  it('topic configs use Kafka names and shrink toward the durable setting', () => {
    const r = fc.check(fc.property(topicConfig('t'), () => false));
    expect(r.counterexample?.[0]).toEqual({
      name: 't',
      partitions: 1,
      replicationFactor: 3,
      config: { 'min.insync.replicas': 2, 'unclean.leader.election.enable': false, 'cleanup.policy': 'delete' },
    });
  });
});

describe('fault schedules shrink to the one fault that matters', () => {
  const palette = faultPalette(base);
  const w = { startMs: 1000, endMs: 20_000, maxDurationMs: 15_000, settleMs: SETTLE, maxFaults: 6 };

  for (const budget of BUDGETS) {
    it(`(${budget}): "fails when some power loss lasts 3 s or more" shrinks to one such fault at the start`, () => {
      const r = fc.check(
        fc.property(faultSchedule(palette, budget, w), (faults) => {
          expect(budgetViolation(faults, budget, SETTLE)).toBeNull();
          return !faults.some((f) => f.fault === 'power-loss' && (f.duration as number) >= 3000);
        }),
        { seed: 42, numRuns: 500 },
      );
      expect(r.failed).toBe(true);
      // Fewest faults, earliest start, shortest duration that still fails, first target (the leader).
      expect(r.counterexample![0]).toEqual([{ at: 1000, fault: 'power-loss', targets: ['leader:orders/0'], duration: 3000 }]);
    });
  }
});
