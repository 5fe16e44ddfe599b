import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// Share-partition state lives in __share_group_state through the share coordinator: crash the broker that
// coordinates it and the partition's leader, and the new leader carries on from the records the new coordinator
// replayed — not from share.auto.offset.reset.
const spec: ScenarioSpec = {
  id: 'share-coordinator-failover',
  duration: '14s',
  quiet: '8s',
  cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': 1, 'share.coordinator.state.topic.num.partitions': 1 } },
  topics: [{ name: 'jobs', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  producers: [{ id: 'p', config: { acks: 'all' }, workload: { topic: 'jobs', rate: 40, stop: '10s' } }],
  shareConsumers: [{ id: 'w', count: 2, group: 'jobs', topics: ['jobs'], config: { 'share.acknowledgement.mode': 'explicit', 'max.poll.records': 10 }, processing: { recordTime: { kind: 'fixed', ms: 5 }, commit: 'sync' } }],
  groups: [{ id: 'jobs', config: { 'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': 15000 } }],
  faults: [
    { at: '5s', fault: 'crash', targets: ['leader:__share_group_state/0'], duration: '3s' },
    { at: '6s', fault: 'crash', targets: ['leader:jobs/0'], duration: '3s' },
  ],
};

describe('the share coordinator and __share_group_state', () => {
  it('a new share coordinator replays the partition and a new leader resumes from the persisted state after both crash', () => {
    const r = runScenario(validateScenario(spec), { seed: 1, hash: false });
    const after = (kind: string) => r.trace.filter((e) => e.kind === kind && e.t > r.startUs + 5_000_000) as unknown as Record<string, number | string>[];
    const loads = after('share.coordinator.load');
    expect(loads.length, 'a coordinator loaded __share_group_state after the crash').toBeGreaterThan(0);
    expect(Number(loads[0]!.records)).toBeGreaterThan(0);
    const inits = after('share.partition.init');
    expect(inits.length, 'the new leader initialised the share-partition').toBeGreaterThan(0);
    expect(inits.every((e) => e.source === 'persisted')).toBe(true);
    expect(Number(inits[0]!.spso), 'it resumed past what was done, not from the log start').toBeGreaterThan(0);
    const count = (c: string): number => r.checks[c]?.count ?? 0;
    expect(count('share.unfinished')).toBe(0);
    expect(count('share.acked-by-non-holder')).toBe(0);
    expect(count('acked')).toBeGreaterThan(300);
  });
});
