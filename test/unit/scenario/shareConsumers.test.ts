import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

const BASE: ScenarioSpec = {
  id: 'share-validation',
  duration: '10s',
  cluster: { brokers: 3 },
  topics: [{ name: 'jobs', partitions: 2, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 'jobs', rate: 10 } }],
};

const share = (over: Record<string, unknown> = {}) => ({ id: 'w', group: 'jobs', topics: ['jobs'], ...over });

function refused(spec: Partial<ScenarioSpec>, re: RegExp): void {
  let caught: unknown;
  try {
    validateScenario({ ...BASE, ...spec });
  } catch (e) {
    caught = e;
  }
  expect(caught, `accepted: ${JSON.stringify(spec).slice(0, 200)}`).toBeInstanceOf(ValidationError);
  expect((caught as Error).message.split('\n')).toHaveLength(1);
  expect((caught as Error).message).toMatch(re);
}

describe('shareConsumers in a scenario', () => {
  it('reads count, config and the processing model with its failure rules', () => {
    const s = validateScenario({
      ...BASE,
      shareConsumers: [
        share({
          count: 3,
          config: { 'share.acknowledgement.mode': 'explicit', 'max.poll.records': 10 },
          processing: { recordTime: { kind: 'fixed', ms: 5 }, commit: 'sync', failures: [{ valuePrefix: 'bad:', times: 'always' }, { keyPrefix: 'k1', times: 2, ack: 'reject' }] },
        }),
      ],
      groups: [{ id: 'jobs', config: { 'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': 20000 } }],
    });
    expect(s.shareConsumers.map((c) => c.id)).toEqual(['w-1', 'w-2', 'w-3']);
    expect(s.shareConsumers[0]!.config['max.poll.records']).toBe(10);
    expect(s.shareConsumers[0]!.processing.failures.map((f) => [f.times, f.ack])).toEqual([
      [Infinity, 'RELEASE'],
      [2, 'REJECT'],
    ]);
    expect(s.groupConfigs.jobs).toEqual({ 'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': '20000' });
  });

  it.each([
    [{ shareConsumers: [share({ processing: { failures: [{ valuePrefix: 'bad:', times: 'always' }] } })] }, /shareConsumers\[0\]\.processing\.failures: .*share\.acknowledgement\.mode=explicit.*implicit mode every record/],
    [{ shareConsumers: [share({ config: { 'share.acknowledgement.mode': 'manual' } })] }, /shareConsumers\[0\]\.config\.share\.acknowledgement\.mode: "manual" is not allowed; expected one of implicit, explicit/],
    [{ shareConsumers: [share({ topics: ['nope'] })] }, /shareConsumers\[0\]\.topics\[0\]: "nope" is not allowed; expected a topic of this scenario \(jobs\)/],
    [{ shareConsumers: [share({ config: { 'share.acknowledgement.mode': 'explicit' }, processing: { failures: [{ times: 2 }] } })] }, /failures\[0\].*a keyPrefix or a valuePrefix/],
    [{ shareConsumers: [share({ config: { 'share.acknowledgement.mode': 'explicit' }, processing: { failures: [{ keyPrefix: 'k', times: 0 }] } })] }, /failures\[0\]\.times/],
    [{ shareConsumers: [share({ processing: { commit: 'auto' } })] }, /shareConsumers\[0\]\.processing\.commit: "auto" is not allowed; expected one of "piggyback", "sync", "async"/],
    [{ consumers: [{ id: 'c1', group: 'jobs', topics: ['jobs'] }], shareConsumers: [share()] }, /shareConsumers\[0\]\.group: "jobs".*is a consumer group here/],
    [{ shareConsumers: [share(), share()] }, /shareConsumers\[1\]\.id: "w" is not allowed; expected an id not used by another client/],
    [{ shareConsumers: [share()], groups: [{ id: 'jobs', config: { 'share.record.lock.duration.ms': 5000 } }] }, /groups\[0\]\.config\.share\.record\.lock\.duration\.ms: .*group\.share\.min\.record\.lock\.duration\.ms \(15000\)/],
    [{ shareConsumers: [share()], groups: [{ id: 'jobs', config: { 'consumer.session.timeout.ms': 50000 } }] }, /groups\[0\]\.config/],
    [{ shareConsumers: [share({ speed: 3 })] }, /shareConsumers\[0\]/],
    [{ shareConsumers: [share({ processing: { renew: '5s' } })] }, /shareConsumers\[0\]\.processing\.renew: .*share\.acknowledgement\.mode=explicit/],
    [{ shareConsumers: [share({ config: { 'share.acknowledgement.mode': 'explicit' }, processing: { renew: 10 } })] }, /processing\.renew: 10 is not allowed; expected a duration of at least 100 ms/],
  ])('refuses %j in one line', (spec, re) => refused(spec as Partial<ScenarioSpec>, re));

  it('a share consumer can be crashed or paused by its id', () => {
    const s = validateScenario({ ...BASE, shareConsumers: [share({ count: 2 })], faults: [{ at: '2s', fault: 'pause', targets: ['w-2'], duration: '1s' }] });
    expect(s.faults).toHaveLength(1);
  });
});

describe('--set share-consumer.<config>', () => {
  it('sets every share consumer; a scenario without share consumers refuses it', async () => {
    const { applyOverrides } = await import('../../../sim/scenario/overrides');
    const spec = applyOverrides({ ...BASE, shareConsumers: [share({ count: 2 })] }, ['share-consumer.max.poll.records=7']);
    expect(validateScenario(spec).shareConsumers.map((c) => c.config['max.poll.records'])).toEqual([7, 7]);
    expect(() => applyOverrides(BASE, ['share-consumer.max.poll.records=7'])).toThrow(/it declares no shareConsumers/);
    expect(() => applyOverrides(BASE, ['share-consumer.max.pol.records=7'])).toThrow(/did you mean "max.poll.records"/);
  });
});
