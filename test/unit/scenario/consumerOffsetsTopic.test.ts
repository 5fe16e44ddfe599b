import { describe, expect, it } from 'vitest';
import { ofKind } from '../../../sim/core/trace';
import { runScenario, type RunResult } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

// __consumer_offsets has offsets.topic.replication.factor (3) replicas, not capped by the broker count: on a smaller
// cluster Kafka cannot create it and FindCoordinator answers COORDINATOR_NOT_AVAILABLE [GroupCoordinatorConfig
// OFFSETS_TOPIC_REPLICATION_FACTOR_DOC: "Internal topic creation will fail until the cluster size meets this
// replication factor requirement"].
function run(brokers: number, broker: Record<string, number> = {}): RunResult {
  const spec: ScenarioSpec = {
    id: 'offsets-topic',
    duration: '12s',
    quiet: '2s',
    cluster: { brokers, broker },
    topics: [{ name: 't', partitions: 1, replicationFactor: 1 }],
    producers: [{ id: 'p', workload: { topic: 't', rate: 10 } }],
    consumers: [{ id: 'c1', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest' } }],
  };
  return runScenario(validateScenario(spec));
}

const offsetsTopic = (r: RunResult) => ofKind(r.trace, 'admin.create-topics').flatMap((e) => e.topics).find((t) => t.name === '__consumer_offsets');

describe('__consumer_offsets replication (offsets.topic.replication.factor)', () => {
  it('one broker and the default of 3: the topic is not created and the group never gets a coordinator', () => {
    const r = run(1);
    expect(offsetsTopic(r)?.error).toBe('INVALID_REPLICATION_FACTOR');
    expect(r.checks['records-read']!.count).toBe(0);
    expect(ofKind(r.trace, 'consumer.assignment')).toEqual([]);
  });

  it('one broker with offsets.topic.replication.factor=1 (the single-broker setting): the group consumes', () => {
    const r = run(1, { 'offsets.topic.replication.factor': 1 });
    expect(offsetsTopic(r)?.error).toBe('NONE');
    expect(r.checks['records-read']!.count).toBeGreaterThan(50);
  });

  it('three brokers: the topic has three replicas per partition', () => {
    const r = run(3, { 'offsets.topic.num.partitions': 3 });
    expect(offsetsTopic(r)?.error).toBe('NONE');
    const created = ofKind(r.trace, 'controller.partition').filter((e) => e.topic === '__consumer_offsets');
    expect(created.length).toBeGreaterThan(0);
    for (const p of created) expect(p.replicas).toHaveLength(3);
  });
});
