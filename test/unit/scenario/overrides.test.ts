import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { applyOverrides } from '../../../sim/scenario/overrides';
import type { ScenarioSpec } from '../../../sim/scenario/spec';

const SPEC: ScenarioSpec = {
  id: 'two-topics',
  duration: '3s',
  topics: [
    { name: 'orders', partitions: 1, replicationFactor: 3 },
    { name: 'orders.audit', partitions: 1, replicationFactor: 3, config: { 'retention.ms': 5000 } },
  ],
};

const configOf = (s: ScenarioSpec, topic: string) => s.topics!.find((t) => t.name === topic)!.config;

function refusal(set: string): string {
  try {
    applyOverrides(SPEC, [set]);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as Error).message;
  }
  throw new Error(`--set ${set} was accepted`);
}

describe('--set topic.<topic>.<config>', () => {
  it('topic.<config> sets every topic, topic.<topic>.<config> only the one named (the longest topic name wins)', () => {
    const all = applyOverrides(SPEC, ['topic.min.insync.replicas=2']);
    expect(configOf(all, 'orders')).toEqual({ 'min.insync.replicas': 2 });
    expect(configOf(all, 'orders.audit')).toEqual({ 'retention.ms': 5000, 'min.insync.replicas': 2 });
    const one = applyOverrides(SPEC, ['topic.orders.audit.retention.ms=1000', 'topic.orders.min.insync.replicas=2']);
    expect(configOf(one, 'orders')).toEqual({ 'min.insync.replicas': 2 });
    expect(configOf(one, 'orders.audit')).toEqual({ 'retention.ms': 1000 });
  });

  it('an unknown topic is refused with the nearest topic; an unknown config with the nearest config', () => {
    expect(refusal('topic.ordrs.retention.ms=1000')).toMatch(/--set topic\.ordrs\.retention\.ms: "ordrs" .*a topic of the scenario \(orders, orders\.audit\).*did you mean "topic\.orders\.retention\.ms"\?/);
    expect(refusal('topic.orders.retention.mss=1000')).toMatch(/unknown config "retention\.mss"; did you mean "retention\.ms"\?/);
    expect(refusal('topic.retention.mss=1000')).toMatch(/did you mean "retention\.ms"\?/);
    expect(refusal('topic.orders.retention.ms=soon')).toMatch(/"soon" is not allowed/);
  });
});
