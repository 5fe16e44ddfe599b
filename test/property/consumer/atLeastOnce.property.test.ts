import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { FakeWorld } from '../../support/fakeBroker';

interface Case {
  readonly seed: number;
  readonly commit: 'auto' | 'sync' | 'async';
  readonly strategy: 'range' | 'cooperative-sticky';
  readonly faults: readonly { kind: 'crash' | 'pause' | 'stall' | 'move-coordinator'; consumer: number; atMs: number; durationMs: number }[];
}

const PARTITIONS = 4;
const RECORDS = 200;

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  commit: fc.constantFrom('auto', 'sync', 'async'),
  strategy: fc.constantFrom('range', 'cooperative-sticky'),
  faults: fc.array(
    fc.record({
      kind: fc.constantFrom('crash', 'pause', 'stall', 'move-coordinator'),
      consumer: fc.integer({ min: 0, max: 2 }),
      atMs: fc.integer({ min: 1000, max: 30_000 }),
      durationMs: fc.integer({ min: 100, max: 15_000 }),
    }),
    { maxLength: 4 },
  ),
});

describe('processing on the polling thread is at-least-once', () => {
  it('every record is processed at least once, and committed offsets never go backwards, whatever faults happen', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const w = new FakeWorld({ seed: c.seed, brokers: 2, topics: [{ name: 't', partitions: PARTITIONS }] });
        for (let i = 0; i < 3; i++) {
          w.addConsumer(`c${i}`, {
            topics: ['t'],
            config: {
              'group.id': 'g',
              'auto.offset.reset': 'earliest',
              'enable.auto.commit': c.commit === 'auto',
              'auto.commit.interval.ms': 1000,
              'partition.assignment.strategy': [c.strategy],
              'session.timeout.ms': 6000,
              'heartbeat.interval.ms': 1000,
              'max.poll.interval.ms': 8000,
              'max.poll.records': 20,
            },
            processing: {
              commit: c.commit,
              recordTime: { kind: 'exponential', meanMs: 5 },
              stalls: c.faults.filter((f) => f.kind === 'stall' && f.consumer === i).map((f) => ({ atMs: f.atMs, durationMs: f.durationMs })),
            },
          });
        }
        for (let p = 0; p < PARTITIONS; p++) w.produce('t', p, { count: RECORDS, perBatch: 2, everyMs: 200 });
        const offsetsPartition = w.cluster.coordinatorPartitionOf('g');
        for (const f of c.faults) {
          if (f.kind === 'stall') continue;
          if (f.kind === 'move-coordinator') {
            w.world.scheduler.at(ms(f.atMs), () => w.cluster.moveCoordinator(offsetsPartition, 1 - w.cluster.offsetsLeaders.get(offsetsPartition)!.leader));
            continue;
          }
          const host = w.world.host(`h-c${f.consumer}`);
          w.world.scheduler.at(ms(f.atMs), () => (f.kind === 'crash' ? host.crash() : host.pause()));
          w.world.scheduler.at(ms(f.atMs + f.durationMs), () => (f.kind === 'crash' ? host.restart(0) : host.resume()));
        }
        w.start();
        w.runUntilMs(120_000);

        const processed = new Set<string>();
        for (const e of w.events('consumer.processed')) for (const o of e.offsets as number[]) processed.add(`${e.partition as number}:${o}`);
        expect(processed.size).toBe(PARTITIONS * RECORDS);
        const last = new Map<string, number>();
        for (const e of w.events('group.offset.commit')) {
          if (e.error !== 'NONE') continue;
          for (const o of e.offsets as { topic: string; partition: number; offset: number }[]) {
            const k = `${o.topic}-${o.partition}`;
            expect(o.offset).toBeGreaterThanOrEqual(last.get(k) ?? 0);
            last.set(k, o.offset);
          }
        }
        // Auto-commit keeps committing the consumed positions: in the end everything is committed.
        if (c.commit === 'auto') for (let p = 0; p < PARTITIONS; p++) expect(w.cluster.committed('g', 't', p)).toBe(RECORDS);
      }),
      { numRuns: Number(process.env.AT_LEAST_ONCE_RUNS ?? 20) },
    );
  });
});
