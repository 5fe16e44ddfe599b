import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { ValidationError } from '../../../sim/core/validate';
import { supportsShareGroupDlq, supportsShareGroups } from '../../../sim/kafka/share/shareVersion';

const base: ScenarioSpec = {
  id: 'share-version',
  duration: '4s',
  quiet: '1s',
  cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': 1 } },
  topics: [{ name: 'jobs', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p', workload: { topic: 'jobs', rate: 20 } }],
  shareConsumers: [{ id: 'w', count: 2, group: 'jobs', topics: ['jobs'] }],
  groups: [{ id: 'jobs', config: { 'share.auto.offset.reset': 'earliest' } }],
};

const withShareVersion = (v: unknown): ScenarioSpec => ({ ...base, cluster: { ...base.cluster, features: { 'share.version': v as 0 } } });

describe('share.version feature levels', () => {
  it('level 1 serves share groups, level 2 adds the dead-letter queue', () => {
    expect([0, 1, 2].map((v) => supportsShareGroups(v as 0))).toEqual([false, true, true]);
    expect([0, 1, 2].map((v) => supportsShareGroupDlq(v as 0))).toEqual([false, false, true]);
  });

  it('a new cluster is formatted with share.version 1 (LATEST_PRODUCTION); 0, 1 and 2 are accepted, 3 refused in one line', () => {
    expect(validateScenario(base).cluster.shareVersion).toBe(1);
    for (const v of [0, 1, 2]) expect(validateScenario(withShareVersion(v)).cluster.shareVersion).toBe(v);
    const bad = () => validateScenario(withShareVersion(3));
    expect(bad).toThrow(ValidationError);
    expect(bad).toThrow(/cluster\.features\.share\.version/);
  });

  it('with share.version 0 the heartbeat is refused UNSUPPORTED_VERSION and each share consumer ends with UnsupportedVersionException', () => {
    const r = runScenario(validateScenario(withShareVersion(0)), { seed: 1, hash: false });
    const exits = r.trace.filter((e) => e.kind === 'process.exit' && String((e as unknown as { process: string }).process).startsWith('w-'));
    expect(exits.map((e) => (e as unknown as { reason: string }).reason)).toEqual([expect.stringMatching(/^UnsupportedVersionException/), expect.stringMatching(/^UnsupportedVersionException/)]);
    expect(r.trace.some((e) => e.kind === 'share.acquire' || e.kind === 'share.member')).toBe(false);
  });

  it('with the default share.version the same group acquires and acknowledges', () => {
    const r = runScenario(validateScenario(base), { seed: 1, hash: false });
    expect(r.trace.some((e) => e.kind === 'share.acquire')).toBe(true);
    expect(r.trace.some((e) => e.kind === 'process.exit')).toBe(false);
  });
});
