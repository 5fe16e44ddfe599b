import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { ms } from '../../../sim/core/time';
import { FakeWorld } from '../../support/fakeBroker';
import { checkPartitionOwnership } from '../../../sim/check/partitionOwnership';

interface Fault {
  /** crash / pause of a consumer's host; a broker's crash; the group coordinator moving to the other broker. */
  readonly kind: 'crash' | 'pause' | 'broker-crash' | 'move-coordinator';
  /** The consumer (or, for broker faults, the broker: this number mod 2). */
  readonly consumer: number;
  readonly atMs: number;
  readonly durationMs: number;
}

interface Case {
  readonly seed: number;
  readonly strategy: 'range' | 'cooperative-sticky' | 'roundrobin' | 'sticky';
  readonly staticMembers: boolean;
  readonly recordMs: number;
  readonly stalls: readonly { consumer: number; atMs: number; durationMs: number }[];
  readonly faults: readonly Fault[];
}

const CONSUMERS = 4;
const RUN_MS = 60_000;

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  strategy: fc.constantFrom('range', 'cooperative-sticky', 'roundrobin', 'sticky'),
  staticMembers: fc.boolean(),
  recordMs: fc.constantFrom(1, 5, 20),
  stalls: fc.array(fc.record({ consumer: fc.integer({ min: 0, max: CONSUMERS - 1 }), atMs: fc.integer({ min: 1000, max: 50_000 }), durationMs: fc.integer({ min: 100, max: 15_000 }) }), { maxLength: 3 }),
  faults: fc.array(
    fc.record({
      kind: fc.constantFrom('crash', 'pause', 'crash', 'pause', 'broker-crash', 'move-coordinator'),
      consumer: fc.integer({ min: 0, max: CONSUMERS - 1 }),
      atMs: fc.integer({ min: 1000, max: 50_000 }),
      durationMs: fc.integer({ min: 100, max: 20_000 }),
    }),
    { maxLength: 5 },
  ),
});

function run(c: Case): FakeWorld {
  const w = new FakeWorld({ seed: c.seed, brokers: 2, topics: [{ name: 't', partitions: 6 }] });
  for (let i = 0; i < CONSUMERS; i++) {
    w.addConsumer(`c${i}`, {
      topics: ['t'],
      config: {
        'group.id': 'g',
        'auto.offset.reset': 'earliest',
        'partition.assignment.strategy': [c.strategy],
        'session.timeout.ms': 6000,
        'heartbeat.interval.ms': 1000,
        'max.poll.interval.ms': 8000,
        'max.poll.records': 50,
        ...(c.staticMembers ? { 'group.instance.id': `i${i}` } : {}),
      },
      processing: { recordTime: { kind: 'exponential', meanMs: c.recordMs }, stalls: c.stalls.filter((s) => s.consumer === i).map((s) => ({ atMs: s.atMs, durationMs: s.durationMs })) },
    });
  }
  for (let p = 0; p < 6; p++) w.produce('t', p, { count: 600, perBatch: 5, everyMs: 500 });
  const offsetsPartition = w.cluster.coordinatorPartitionOf('g');
  for (const f of c.faults) {
    if (f.kind === 'move-coordinator') {
      w.world.scheduler.at(ms(f.atMs), () => w.cluster.moveCoordinator(offsetsPartition, 1 - w.cluster.offsetsLeaders.get(offsetsPartition)!.leader));
      continue;
    }
    const host = f.kind === 'broker-crash' ? w.world.host(`b${f.consumer % 2}`) : w.world.host(`h-c${f.consumer}`);
    w.world.scheduler.at(ms(f.atMs), () => (f.kind === 'pause' ? host.pause() : host.crash()));
    w.world.scheduler.at(ms(f.atMs + f.durationMs), () => (f.kind === 'pause' ? host.resume() : host.restart(0)));
  }
  w.start();
  w.runUntilMs(RUN_MS);
  return w;
}

describe('partition ownership', () => {
  it('no two members of a group own one partition at the same moment, whatever crashes, pauses and stalls happen', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const w = run(c);
        const report = checkPartitionOwnership(w.world.memory!.events);
        expect(report.assignments).toBeGreaterThan(0);
        expect(report.violations).toEqual([]);
      }),
      { numRuns: Number(process.env.OWNERSHIP_RUNS ?? 25) },
    );
  });

  it('the checker catches an overlap (it is not vacuous)', () => {
    const events = [
      { t: 1, seq: 0, kind: 'consumer.assignment', node: 'a', group: 'g', memberId: 'm1', assigned: ['t-0'], revoked: [], lost: [] },
      { t: 2, seq: 1, kind: 'consumer.assignment', node: 'b', group: 'g', memberId: 'm2', assigned: ['t-0'], revoked: [], lost: [] },
    ];
    expect(checkPartitionOwnership(events as unknown as TraceEvent[]).violations).toHaveLength(1);
    // Released by the coordinator's removal first: no violation.
    const ok = [events[0]!, { t: 1.5, seq: 1, kind: 'group.member.expire', node: 'broker-0', group: 'g', memberId: 'm1' }, { ...events[1]!, seq: 2 }];
    expect(checkPartitionOwnership(ok as unknown as TraceEvent[]).violations).toHaveLength(0);
  });
});
