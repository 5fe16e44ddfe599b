import { describe, expect, it } from 'vitest';
import { ofKind } from '../../../sim/core/trace';
import { ValidationError } from '../../../sim/core/validate';
import { BROKER_CONFIGS } from '../../../sim/kafka/config/configs';
import { resolveConfig } from '../../../sim/kafka/config/def';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

/*
 * offsets.retention.check.interval.ms (issue 23): how often the group coordinator expires the committed offsets
 * of empty groups, settable like any broker config. A group commits until 8 s, when its only member leaves; from
 * then on its offsets age, and offsets.retention.minutes=1 lets them expire a minute later.
 */
const spec = (interval: number | undefined): ScenarioSpec => ({
  id: 'offsets-retention',
  duration: '10s',
  quiet: '70s',
  cluster: { broker: { 'offsets.retention.minutes': 1, ...(interval !== undefined && { 'offsets.retention.check.interval.ms': interval }) } },
  topics: [{ name: 't', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 20 } }],
  consumers: [{ id: 'c1', group: 'g', topics: ['t'], processing: { stop: '8s' } }],
});

describe('offsets.retention.check.interval.ms', () => {
  it("is a broker config with Kafka's default (600000) and bound (at least 1)", () => {
    expect(resolveConfig(BROKER_CONFIGS, {}, 'b')['offsets.retention.check.interval.ms']).toBe(600_000);
    expect(validateScenario(spec(5000)).cluster.brokerConfig['offsets.retention.check.interval.ms']).toBe(5000);
    expect(() => validateScenario(spec(0))).toThrow(ValidationError);
    expect(() => validateScenario(spec(0))).toThrow(/cluster\.broker\.offsets\.retention\.check\.interval\.ms: 0 is not allowed/);
  });

  it('checked every 5 s, the offsets expire within 5 s of offsets.retention.minutes after the group emptied', () => {
    const r = runScenario(validateScenario(spec(5000)), { hash: false });
    const emptied = ofKind(r.trace, 'consumer.close')[0]!.t;
    const expired = ofKind(r.trace, 'group.offset.expire');
    expect(expired).toHaveLength(1);
    const after = (expired[0]!.t - emptied) / 1e6;
    expect(after).toBeGreaterThanOrEqual(60);
    expect(after).toBeLessThanOrEqual(66);
  });

  it("at Kafka's default (every 10 minutes) nothing expires within the run", () => {
    const r = runScenario(validateScenario(spec(undefined)), { hash: false });
    expect(ofKind(r.trace, 'group.offset.expire')).toHaveLength(0);
  });
});
