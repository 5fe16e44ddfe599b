import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

/*
 * Under random faults — share consumers killed or paused mid-acquisition, brokers (partition leaders, the group
 * coordinator, the DLQ topic's leader) crashed and restarted — a share group still acknowledges no record on
 * behalf of a member that did not hold it, finishes every record (acknowledged, archived, or dead-lettered then
 * archived: a record left ARCHIVING counts as unfinished), gives every archived record its DLQ write (done or
 * failed; twice when a new leader reran it), and delivers none more often than group.share.delivery.count.limit.
 * Few, short runs here; `npm run fuzz` draws more.
 */
const LIMIT = 4;

const faultArb = fc.record({
  fault: fc.constantFrom('crash', 'pause'),
  target: fc.constantFrom('worker-1', 'worker-2', 'worker-3', 'worker-4', 'leader:jobs/0', 'leader:jobs/1', 'coordinator:jobs', 'leader:dlq.jobs/0'),
  atMs: fc.integer({ min: 3000, max: 12_000 }),
  durationMs: fc.integer({ min: 500, max: 8000 }),
});

function spec(seed: number, faults: readonly { fault: string; target: string; atMs: number; durationMs: number }[]): ScenarioSpec {
  return {
    id: 'share-faults',
    seed,
    duration: '15s',
    quiet: '40s',
    cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': 3, 'group.share.delivery.count.limit': LIMIT }, features: { 'share.version': 2 } },
    topics: [
      { name: 'jobs', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } },
      { name: 'dlq.jobs', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2, 'errors.deadletterqueue.group.enable': true } },
    ],
    producers: [
      { id: 'p', config: { acks: 'all' }, workload: { topic: 'jobs', rate: 20, stop: '12s', keys: { kind: 'uniform', count: 50 } } },
      { id: 'flaky', config: { acks: 'all' }, workload: { topic: 'jobs', rate: 2, stop: '12s' } },
      { id: 'poison', config: { acks: 'all' }, workload: { topic: 'jobs', rate: 1, stop: '12s' } },
    ],
    shareConsumers: [
      {
        id: 'worker',
        count: 4,
        group: 'jobs',
        topics: ['jobs'],
        config: { 'share.acknowledgement.mode': 'explicit', 'max.poll.records': 10 },
        processing: { recordTime: { kind: 'exponential', meanMs: 20 }, commit: 'async', failures: [{ valuePrefix: 'flaky:', times: 2 }, { valuePrefix: 'poison:', times: 'always' }] },
      },
    ],
    groups: [{ id: 'jobs', config: { 'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': 15000, 'errors.deadletterqueue.topic.name': 'dlq.jobs' } }],
    faults: faults.map((f) => ({ at: f.atMs, fault: f.fault as 'crash' | 'pause', targets: [f.target], duration: f.durationMs })),
  };
}

describe('share groups under random faults', () => {
  it('no record is acknowledged for a member that did not hold it, every record ends finished (dead-lettered ones too), none past the delivery limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(faultArb, { maxLength: 3 }), (seed, faults) => {
        const r = runScenario(validateScenario(spec(seed, faults)), { seed, hash: false });
        const c = (name: string): number => r.checks[name]?.count ?? 0;
        const why = JSON.stringify({ seed, faults, unfinished: r.checks['share.unfinished']?.examples, bad: r.checks['share.acked-by-non-holder']?.examples });
        expect(c('share.acked-by-non-holder'), why).toBe(0);
        expect(c('share.unfinished'), why).toBe(0);
        expect(c('share.deliveries.max'), why).toBeLessThanOrEqual(LIMIT);
        expect(c('share.archived'), why).toBeGreaterThan(0);
        expect(c('share.dead-lettered') + c('share.dead-letter-failed'), why).toBeGreaterThanOrEqual(c('share.archived'));
        expect(c('acked'), why).toBeGreaterThan(200);
      }),
      { numRuns: 3 },
    );
  });
});
