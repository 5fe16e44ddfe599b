import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

/*
 * What the validator accepted silently and issue 23 lists: selectors that can never match, times after the end
 * of the run, names Kafka refuses, an empty workload, and a replica assignment that was validated then ignored.
 */
const BASE: ScenarioSpec = {
  id: 'refusals',
  duration: '10s',
  quiet: '5s',
  cluster: { brokers: 3, racks: ['r1', 'r2', 'r3'], zones: ['za', 'zb', 'zc'] },
  topics: [{ name: 'orders', partitions: 2, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 'orders', rate: 10 } }],
  consumers: [{ id: 'c1', group: 'g', topics: ['orders'] }],
};

function refused(spec: Partial<ScenarioSpec>, re: RegExp): void {
  let caught: unknown;
  try {
    validateScenario({ ...BASE, ...spec });
  } catch (e) {
    caught = e;
  }
  expect(caught, `accepted: ${JSON.stringify(spec).slice(0, 200)}`).toBeInstanceOf(ValidationError);
  expect((caught as Error).message).toMatch(re);
}

const crash = (target: string, at = '1s') => ({ faults: [{ at, fault: 'crash' as const, targets: [target], duration: '1s' }] });

describe('fault selectors that can never match this scenario are refused', () => {
  it.each([
    ['zone:nowhere', /faults\[0\]\.targets\[0\]: "zone:nowhere" is not allowed; expected a zone of this scenario \(za, zb, zc\)/],
    ['rack:nowhere', /a rack of this scenario \(r1, r2, r3, controller-rack-za, controller-rack-zb, controller-rack-zc\)/],
    ['tag:nothing', /a tag hosts have \(broker, client, consumer, controller, producer\)/],
    ['broker:99', /a broker id of this scenario \(1 to 3\)/],
    ['broker:0', /a broker id of this scenario \(1 to 3\)/],
    ['broker:x', /a broker id of this scenario \(1 to 3\)/],
    ['controller:leader', /"controller:active"/],
    ['leader:nosuch/0', /a topic of this scenario \(orders\) and one of its partitions/],
    ['leader:orders/2', /partition 2 of "orders", which has 2 \(0 to 1\)/],
    ['leader:orders/0#1', /"leader:orders\/0" \(a partition has one leader; #k counts followers\)/],
    ['follower:orders/0#3', /follower #3 of a partition with 2 followers \(replication factor 3\)/],
    ['follower:orders/0#0', /followers count from #1/],
    ['leader:orders', /<topic>\/<partition>/],
    ['coordinator:nobody', /a group a consumer of this scenario joins \(g\)/],
  ])('%s', (sel, re) => refused(crash(sel), re));

  it('keeps the ones that can: zones, racks and tags there are, partitions an action creates, internal topics of groups', () => {
    const ok = (sel: string, extra: Partial<ScenarioSpec> = {}) => expect(() => validateScenario({ ...BASE, ...crash(sel, '5s'), ...extra })).not.toThrow();
    for (const s of ['zone:zb', 'rack:r1', 'rack:controller-rack-za', 'tag:broker', 'tag:consumer', 'broker:3', 'controller:active', 'leader:orders/1', 'follower:orders/0#2', 'follower:orders-1', 'leader:__consumer_offsets/49', 'zone:client-zone']) {
      ok(s, s === 'zone:client-zone' ? { producers: [{ id: 'p1', zone: 'client-zone', workload: { topic: 'orders', rate: 10 } }] } : {});
    }
    ok('leader:orders/3', { actions: [{ at: '2s', action: 'create-partitions', topic: 'orders', count: 4 }] });
    ok('tag:operator', { actions: [{ at: '2s', action: 'create-partitions', topic: 'orders', count: 4 }] });
    refused({ ...crash('leader:__consumer_offsets/0'), consumers: [] }, /a topic of this scenario \(orders\)/);
    ok('coordinator:g');
    refused({ ...crash('coordinator:g'), consumers: [] }, /this scenario has no consumer in a group/);
  });

  it('checks groups, from and to as targets are checked', () => {
    refused({ faults: [{ at: '1s', fault: 'partition', groups: [['broker-1'], ['zone:nowhere']], duration: '1s' }] }, /faults\[0\]\.groups\[1\]\[0\]: "zone:nowhere"/);
    refused({ faults: [{ at: '1s', fault: 'one-way', from: ['broker:9'], to: ['tag:broker'], duration: '1s' }] }, /faults\[0\]\.from\[0\]: "broker:9"/);
  });
});

describe('times after the end of the run are refused, for everything timed', () => {
  // The run is 10 s of faults and workload, then 5 s of quiet: captions, consumers and their processing may
  // speak of the quiet period; what producers and faults do must happen within the 10 s.
  it.each([
    [{ captions: [{ at: '15.001s', text: 'late' }] }, /captions\[0\]\.at: "15\.001s" is not allowed; expected a time within the run \(15000 ms: 10000 ms and the quiet period\)/],
    [{ producers: [{ id: 'p1', workload: { topic: 'orders', at: ['1s', '11s'] } }] }, /producers\[0\]\.workload\.at\[1\]: "11s" is not allowed; expected a time within the duration \(10000 ms\)/],
    [{ producers: [{ id: 'p1', workload: { topic: 'orders', rate: 1, start: '12s' } }] }, /producers\[0\]\.workload\.start: "12s".*within the duration \(10000 ms\)/],
    [{ producers: [{ id: 'p1', workload: { topic: 'orders', rate: 1, stop: '12s' } }] }, /producers\[0\]\.workload\.stop: "12s".*within the duration/],
    [{ consumers: [{ id: 'c1', group: 'g', topics: ['orders'], start: '16s' }] }, /consumers\[0\]\.start: "16s".*within the run \(15000 ms/],
    [{ consumers: [{ id: 'c1', group: 'g', topics: ['orders'], processing: { stalls: [{ at: '20s', duration: '1s' }] } }] }, /consumers\[0\]\.processing\.stalls\[0\]\.at: "20s".*within the run/],
    [{ consumers: [{ id: 'c1', group: 'g', topics: ['orders'], processing: { seeks: [{ at: '20s', to: 'beginning' }] } }] }, /consumers\[0\]\.processing\.seeks\[0\]\.at.*within the run/],
    [{ consumers: [{ id: 'c1', group: 'g', topics: ['orders'], processing: { stop: '1h' } }] }, /consumers\[0\]\.processing\.stop: "1h".*within the run/],
    [{ faults: [{ at: '10.5s', fault: 'crash', targets: ['broker-1'] }] }, /faults\[0\]\.at.*within the duration/],
    [{ actions: [{ at: '11s', action: 'create-partitions', topic: 'orders', count: 3 }] }, /actions\[0\]\.at.*within the duration/],
  ] as [Partial<ScenarioSpec>, RegExp][])('%j', (spec, re) => refused(spec, re));

  it('accepts the last moment of each', () => {
    expect(() =>
      validateScenario({
        ...BASE,
        captions: [{ at: '15s', text: 'the end' }],
        producers: [{ id: 'p1', workload: { topic: 'orders', at: ['10s'], stop: '10s' } }],
        consumers: [{ id: 'c1', group: 'g', topics: ['orders'], start: '15s', processing: { stalls: [{ at: '15s', duration: '1s' }] } }],
      }),
    ).not.toThrow();
  });
});

describe('names Kafka refuses', () => {
  const topic = (name: string) => ({ topics: [{ name, partitions: 1, replicationFactor: 1 }], producers: [{ id: 'p1', workload: { topic: name, rate: 1 } }], consumers: [] });
  it.each([
    ['t'.repeat(250), /at most 249 characters/],
    ['.', /not "\." or "\.\."/],
    ['..', /not "\." or "\.\."/],
    ['has space', /letters, digits, "\.", "_" and "-"/],
    ['ümlaut', /letters, digits/],
    ['a/b', /letters, digits/],
    ['__internal', /does not start with "__"/],
  ])('topic %s', (name, re) => refused(topic(name), new RegExp(`topics\\[0\\]\\.name: .*${re.source}`)));

  it('accepts what Kafka accepts: 249 characters, a leading dot, underscore or dash', () => {
    for (const name of ['t'.repeat(249), '_schemas', '-x', '.hidden', 'a.b_c-D9']) expect(() => validateScenario({ ...BASE, ...topic(name) })).not.toThrow();
  });

  it('refuses two topics whose names differ only by "." and "_" (Kafka: they collide in metric names)', () => {
    refused(
      { topics: [{ name: 'a.b', partitions: 1, replicationFactor: 1 }, { name: 'a_b', partitions: 1, replicationFactor: 1 }], consumers: [], producers: [{ id: 'p1', workload: { topic: 'a.b', rate: 1 } }] },
      /topics\[1\]\.name: "a_b" is not allowed; expected a name that does not collide with topic "a\.b"/,
    );
  });

  it('ids of clients and groups stay within 249 characters', () => {
    refused({ producers: [{ id: 'p'.repeat(250), workload: { topic: 'orders', rate: 1 } }] }, /producers\[0\]\.id: .*at most 249 characters/);
  });
});

describe('an empty workload', () => {
  it('is refused', () => {
    refused({ producers: [{ id: 'p1', workload: [] }] }, /producers\[0\]\.workload: an array of 0 is not allowed; expected a workload \(topic and rate\) or a non-empty list of them/);
  });
});

describe('topics[].assignment is a manual replica assignment, as CreateTopics takes it', () => {
  const spec: ScenarioSpec = {
    id: 'assigned',
    duration: '3s',
    quiet: '1s',
    cluster: { brokers: 4 },
    topics: [{ name: 'orders', assignment: [[4, 2], [3, 1], [2, 4]] }],
    producers: [{ id: 'p1', workload: { topic: 'orders', rate: 20 } }],
  };

  it('places the replicas where it says, the first as the preferred leader', () => {
    const s = validateScenario(spec);
    expect(s.topics[0]).toMatchObject({ partitions: 3, replicationFactor: 2 });
    const r = runScenario(s, { hash: false });
    const finals = r.trace.filter((e) => e.kind === 'final.partition' && e.topic === 'orders');
    expect(finals.map((e) => (e as { replicas: number[] }).replicas)).toEqual([[4, 2], [3, 1], [2, 4]]);
    expect(finals.map((e) => (e as { leader: number }).leader)).toEqual([4, 3, 2]);
  });

  it('is refused when it contradicts partitions or the replication factor, repeats a broker or names one there is not', () => {
    refused({ topics: [{ name: 'orders', partitions: 3, assignment: [[1, 2], [2, 3]] }] }, /topics\[0\]\.assignment: .*one replica list per partition \(3\)/);
    refused({ topics: [{ name: 'orders', replicationFactor: 3, assignment: [[1, 2], [2, 3]] }] }, /topics\[0\]\.assignment\[0\]: .*3 broker ids \(the replication factor\)/);
    refused({ topics: [{ name: 'orders', assignment: [[1, 2], [2, 3, 1]] }] }, /topics\[0\]\.assignment\[1\]: .*2 broker ids, as many as partition 0 has/);
    refused({ topics: [{ name: 'orders', assignment: [[1, 1]] }] }, /distinct broker ids/);
    refused({ topics: [{ name: 'orders', assignment: [[1, 9]] }] }, /topics\[0\]\.assignment\[0\]\[1\]: 9 is not allowed; expected an integer from 1 to 3/);
    refused({ topics: [{ name: 'orders', assignment: [] }] }, /topics\[0\]\.assignment: .*at least 1 item/);
  });
});

describe('broker configs that would make an internal topic fail to be created', () => {
  it('refuses offsets.topic.segment.bytes below the segment.bytes __consumer_offsets gets from it (fuzz seed 839275370)', () => {
    // It was an internal error (exit 3): CreateTopics of __consumer_offsets failed with INVALID_CONFIG at boot.
    refused({ cluster: { broker: { 'offsets.topic.segment.bytes': 1 } } }, /cluster\.broker\.offsets\.topic\.segment\.bytes: 1 is not allowed; expected an integer >= 14/);
    refused({ cluster: { broker: { 'offsets.topic.segment.bytes': 13 } } }, /offsets\.topic\.segment\.bytes: 13 is not allowed/);
    const s = validateScenario({ ...BASE, duration: '2s', quiet: '1s', cluster: { broker: { 'offsets.topic.segment.bytes': 14 } } });
    const r = runScenario(s, { hash: false });
    expect(r.trace.some((e) => e.kind === 'group.load')).toBe(true);
  });
});
