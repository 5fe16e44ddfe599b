import { describe, expect, it } from 'vitest';
import { ofKind } from '../../../sim/core/trace';
import { runScenario, type RunResult } from '../../../sim/scenario/runner';
import type { ActionSpec, ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

const THROTTLE_CONFIGS = ['leader.replication.throttled.rate', 'follower.replication.throttled.rate', 'leader.replication.throttled.replicas', 'follower.replication.throttled.replicas'];

function reassign(throttle?: number): RunResult {
  return runScenario(
    validateScenario({
      id: 'reassign',
      duration: '20s',
      quiet: '2s',
      trace: 'minimal',
      cluster: { brokers: 4, network: { bandwidthBytesPerSec: 5_000_000 } },
      topics: [{ name: 't', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 }, assignment: [[1, 2, 3]] }],
      producers: [{ id: 'p1', config: { acks: 'all' }, workload: { topic: 't', rate: 200, valueBytes: 1000 } }],
      actions: [{ at: '8s', action: 'reassign-partitions', partitions: [{ topic: 't', partition: 0, replicas: [4, 2, 3] }], ...(throttle ? { throttle } : {}) }] as ActionSpec[],
    }),
  );
}

const catchUpMs = (r: RunResult): number => {
  const steps = ofKind(r.trace, 'operator.reassign');
  const submitted = steps.find((s) => s.step === 'submitted')!;
  const done = ofKind(r.trace, 'controller.reassignment').find((e) => e.addingReplicas.length === 0 && e.t > submitted.t)!;
  return (done.t - submitted.t) / 1000;
};

describe('kafka-reassign-partitions end to end', () => {
  it('adds the new replica, completes when it is in sync, moves leadership to it and deletes the removed copy', () => {
    const r = reassign();
    expect(ofKind(r.trace, 'operator.reassign').map((s) => s.step)).toEqual(['submitted', 'completed']);
    expect(ofKind(r.trace, 'controller.reassignment').map((e) => [e.replicas, e.addingReplicas, e.removingReplicas])).toEqual([
      [[4, 2, 3, 1], [4], [1]],
      [[4, 2, 3], [], []],
    ]);
    const final = ofKind(r.trace, 'final.partition')[0]!;
    expect(final).toMatchObject({ replicas: [4, 2, 3], leader: 4 });
    expect(r.cluster.broker(1)!.logManager.getLog({ topic: 't', partition: 0 })).toBeUndefined();
    expect(r.cluster.broker(4)!.logManager.getLog({ topic: 't', partition: 0 })!.logEndOffset).toBe(final.logEndOffset);
    expect(r.checks['lost-write']!.count).toBe(0);
  });

  it('--throttle: the configs are set on every broker involved, the catch-up is slower, and --verify removes them', () => {
    const free = reassign();
    const throttled = reassign(1_000_000);
    expect(ofKind(throttled.trace, 'operator.reassign').map((s) => s.step)).toEqual(['throttle-set', 'submitted', 'completed', 'throttle-removed']);
    // 200 KB/s of writes, 1.6 MB behind: unthrottled it is a fraction of a second, at 1 MB/s (the ISR's share counted too) several.
    expect(catchUpMs(free)).toBeLessThan(1000);
    expect(catchUpMs(throttled)).toBeGreaterThan(3 * catchUpMs(free));
    const image = throttled.cluster.image()!;
    for (const b of ['1', '2', '3', '4', '']) for (const n of THROTTLE_CONFIGS) expect(image.resourceConfigs('BROKER', b)?.get(n)).toBeUndefined();
    for (const n of THROTTLE_CONFIGS) expect(image.resourceConfigs('TOPIC', 't')?.get(n)).toBeUndefined();
    expect(throttled.checks['lost-write']!.count).toBe(0);
  });
});

describe('preferred leader election', () => {
  const base: ScenarioSpec = {
    id: 'elect',
    duration: '30s',
    quiet: '0s',
    trace: 'minimal',
    topics: [{ name: 't', partitions: 3, replicationFactor: 3, assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] }],
    // A clean stop moves broker-1's leadership away; it comes back a follower of everything.
    faults: [{ at: '2s', fault: 'stop', targets: ['broker-1'], duration: '4s' }],
  };
  const leaders = (r: RunResult) => r.cluster.image()!.topicByName('t')!.partitions.map((p) => p.leader);

  it('kafka-leader-election --election-type preferred --all-topic-partitions moves leadership back to the first replicas', () => {
    const without = runScenario(validateScenario(base));
    expect(leaders(without)[0]).not.toBe(1);
    const r = runScenario(validateScenario({ ...base, actions: [{ at: '20s', action: 'elect-leaders' }] }));
    expect(leaders(r)).toEqual([1, 2, 3]);
    const answer = ofKind(r.trace, 'admin.elect-leaders')[0]!;
    // Partitions already led by their preferred replica are left out of an all-partitions answer.
    expect(answer.partitions).toEqual([{ topic: 't', partition: 0, error: 'NONE' }]);
  });

  it('the auto rebalance runs every leader.imbalance.check.interval.seconds from the controller becoming active (a periodic task)', () => {
    const r = runScenario(validateScenario({ ...base, duration: '45s', cluster: { broker: { 'leader.imbalance.check.interval.seconds': 20 } } }));
    const active = ofKind(r.trace, 'controller.active')[0]!;
    const balanced = ofKind(r.trace, 'controller.election').filter((e) => e.reason === 'maybeBalancePartitionLeaders');
    expect(balanced.length).toBeGreaterThan(0);
    expect(leaders(r)).toEqual([1, 2, 3]);
    // The imbalance appears at about 2 s of scenario time, but the task fires on its own phase: a whole number of
    // intervals after activation (plus the commit of its records), not 20 s after the imbalance.
    const phase = (balanced[0]!.t - active.t) % 20_000_000;
    expect(phase).toBeLessThan(200_000);
  });
});
