import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { partitionFigureName, windowProblem } from '../../../sim/check/names';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

/*
 * The scenario language for precise failure cases (issue 23) as the validator reads it: tombstones in a workload,
 * expectations over a window ("during"), per-partition figures. What a run makes of them is in
 * test/scenarios/scenarioLanguage.test.ts.
 */
const BASE: ScenarioSpec = {
  id: 'language',
  duration: '10s',
  quiet: '5s',
  topics: [{ name: 'orders', partitions: 2, replicationFactor: 3, config: { 'cleanup.policy': 'compact' } }],
  producers: [{ id: 'p1', workload: { topic: 'orders', rate: 10, keys: { kind: 'uniform', count: 5 } } }],
  consumers: [{ id: 'c1', group: 'g', topics: ['orders'] }],
  actions: [{ at: '2s', action: 'create-partitions', topic: 'orders', count: 3 }],
};

function refusal(spec: Partial<ScenarioSpec>): string {
  try {
    validateScenario({ ...BASE, ...spec });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    const m = (e as Error).message;
    expect(m).not.toContain('\n');
    return m;
  }
  throw new Error(`accepted: ${JSON.stringify(spec).slice(0, 300)}`);
}

const expecting = (...expect: object[]) => ({ expect }) as Partial<ScenarioSpec>;
const workload = (w: object) => ({ producers: [{ id: 'p1', workload: { topic: 'orders', keys: { kind: 'uniform', count: 5 }, ...w } }] }) as Partial<ScenarioSpec>;

describe('tombstones in a workload', () => {
  it('takes true, false or a share, at a rate or at given times', () => {
    for (const tombstones of [true, false, 0, 0.25, 1]) expect(() => validateScenario({ ...BASE, ...workload({ rate: 5, tombstones }) })).not.toThrow();
    const s = validateScenario({ ...BASE, ...workload({ at: ['1s', '2s'], tombstones: true }) });
    expect(s.producers[0]!.workloads[0]!.tombstones).toBe(1);
    expect(validateScenario({ ...BASE, ...workload({ rate: 5, tombstones: 0.25 }) }).producers[0]!.workloads[0]!.tombstones).toBe(0.25);
    expect(validateScenario({ ...BASE, ...workload({ rate: 5, tombstones: false }) }).producers[0]!.workloads[0]!.tombstones).toBeUndefined();
  });

  it.each([
    [1.5, /^producers\[0\]\.workload\.tombstones: 1\.5 is not allowed; expected true \(every record a tombstone\), false, or the share of records sent as tombstones \(0 to 1\)$/],
    [-0.1, /tombstones: -0\.1 is not allowed/],
    ['yes', /tombstones: "yes" is not allowed/],
    [null, /tombstones: null is not allowed/],
  ])('refuses tombstones: %j', (tombstones, re) => {
    expect(refusal(workload({ rate: 5, tombstones }))).toMatch(re);
  });

  it('refuses tombstones without keys: a keyless tombstone deletes nothing', () => {
    const m = refusal({ producers: [{ id: 'p1', workload: { topic: 'orders', rate: 5, tombstones: true } }] });
    expect(m).toBe('producers[0].workload.tombstones: true is not allowed; expected tombstones on a workload with "keys" (a tombstone deletes its key)');
  });
});

describe('expectations over a window ("during")', () => {
  it('resolves the window to scenario time, within the run (the quiet period included)', () => {
    const s = validateScenario({ ...BASE, ...expecting({ check: 'unavailability.longest-ms', op: '<', value: 100, during: ['2s', 12_000] }) });
    expect(s.expect[0]!.window).toEqual({ fromUs: 2_000_000, toUs: 12_000_000 });
    for (const check of ['errors.NOT_LEADER_OR_FOLLOWER', 'partition.offline-ms', 'rebalances.g', 'acked.orders-2', 'tombstones.removed.orders-0', 'elections']) {
      expect(validateScenario({ ...BASE, ...expecting({ check, op: '>=', value: 0, during: ['0s', '1s'] }) }).expect[0]!.window, check).toBeDefined();
    }
  });

  it.each([
    [{ check: 'lost-write', op: '=', value: 0, during: ['1s', '2s'] }, /^expect\[0\]\.during: an array of 2 is not allowed; expected no window on lost-write: it is a verdict on the whole run, judged at its healed end; "during" takes a check that counts moments \(acked, send-failed, /],
    [{ check: 'leader.final.orders-0', op: '=', value: 1, during: ['1s', '2s'] }, /no window on leader\.final\.orders-0: it is a figure of the run's end/],
    [{ check: 'lag.max.g', op: '<', value: 1, during: ['1s', '2s'] }, /no window on lag\.max\.g: it depends on a state that began before the window/],
    [{ check: 'acked', op: '>', value: 0, during: ['1s'] }, /^expect\[0\]\.during: an array of 1 is not allowed; expected a window of two times, \["from", "to"\]/],
    [{ check: 'acked', op: '>', value: 0, during: '1s' }, /^expect\[0\]\.during: "1s" is not allowed; expected an array/],
    [{ check: 'acked', op: '>', value: 0, during: ['3s', '2s'] }, /^expect\[0\]\.during\[1\]: "2s" is not allowed; expected a time after the window's start \(3000 ms\)/],
    [{ check: 'acked', op: '>', value: 0, during: ['3s', '3s'] }, /during\[1\]: "3s" is not allowed/],
    [{ check: 'acked', op: '>', value: 0, during: ['1s', '16s'] }, /^expect\[0\]\.during\[1\]: "16s" is not allowed; expected a time within the run \(15000 ms/],
    [{ check: 'acked', op: '>', value: 0, during: ['soon', '2s'] }, /^expect\[0\]\.during\[0\]: "soon" is not allowed; expected a time/],
  ])('refuses %j', (e, re) => {
    expect(refusal(expecting(e))).toMatch(re);
  });

  it('knows which checks count moments', () => {
    for (const ok of ['unavailability.longest-ms.orders-0', 'errors.TIMEOUT', 'acked', 'records-read.g', 'partition.offline-ms.orders-1']) expect(windowProblem(ok), ok).toBeNull();
    for (const no of ['final.records.orders-0', 'leader.final.orders-0', 'unseen', 'unseen.g', 'lag.final', 'member.pause-ms.c1', 'alert.x']) expect(windowProblem(no), no).not.toBeNull();
  });
});

describe('per-partition figures', () => {
  it('parse as <figure>.<topic>-<partition>, topics with dots and dashes included', () => {
    expect(partitionFigureName('unavailability.longest-ms.orders-0')).toEqual({ figure: 'unavailability.longest-ms', topic: 'orders', partition: 0 });
    expect(partitionFigureName('leader.final.eu.orders-v2-11')).toEqual({ figure: 'leader.final', topic: 'eu.orders-v2', partition: 11 });
    expect(partitionFigureName('final.tombstones.t-01')).toBeNull();
    expect(partitionFigureName('final.records.orders')).toBeNull();
    expect(partitionFigureName('unavailability.longest-ms')).toBeNull();
  });

  it('name a topic and a partition of the scenario, counting partitions an action adds', () => {
    for (const check of ['unavailability.longest-ms.orders-0', 'leader.final.orders-2', 'final.tombstones.orders-1', 'tombstones.removed.orders-0', 'partition.offline-ms.orders-1', 'elections.orders-0', 'acked.orders-1', 'records.compacted-away.orders-0']) {
      expect(() => validateScenario({ ...BASE, ...expecting({ check, op: '>=', value: 0 }) }), check).not.toThrow();
    }
  });

  it.each([
    ['leader.final.orders-3', /^expect\[0\]\.check: "leader\.final\.orders-3" is not allowed; expected leader\.final\.<topic>-<partition> for a partition of this scenario's topics \(orders: 0 to 2\) \(topic "orders" has 3 partition\(s\); did you mean "leader\.final\.orders-2"\?\)$/],
    ['final.records.ordrs-1', /expected final\.records\.<topic>-<partition> for a partition of this scenario's topics \(orders: 0 to 2\) \(no topic "ordrs" in this scenario; did you mean "final\.records\.orders-1"\?\)$/],
    ['final.records.payments-0', /\(no topic "payments" in this scenario\)$/],
    ['final.records.orders', /^expect\[0\]\.check: "final\.records\.orders" is not allowed; .*did you mean "final\.records\.orders-0"\?/],
  ])('refuses %s with the nearest name', (check, re) => {
    expect(refusal(expecting({ check, op: '=', value: 1 }))).toMatch(re);
  });
});
