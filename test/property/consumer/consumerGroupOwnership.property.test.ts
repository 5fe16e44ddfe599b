import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { ms } from '../../../sim/core/time';
import { checkPartitionOwnership } from '../../../sim/check/partitionOwnership';
import { FakeWorld } from '../../support/fakeBroker';

// The consumer group protocol (KIP-848) under random faults: the coordinator never lets two members own one
// partition (revocation before assignment; its own assertion would throw), and no two live consumers hold one.

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
  readonly assignor: 'uniform' | 'range';
  readonly staticMembers: boolean;
  readonly autoCommit: boolean;
  readonly recordMs: number;
  readonly stalls: readonly { consumer: number; atMs: number; durationMs: number }[];
  readonly faults: readonly Fault[];
}

const CONSUMERS = 4;
const RUN_MS = 60_000;

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  assignor: fc.constantFrom('uniform', 'range'),
  staticMembers: fc.boolean(),
  autoCommit: fc.boolean(),
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
  // Shorter group timeouts than Kafka's defaults, within bounds lowered the same way, to keep the runs short.
  const w = new FakeWorld({
    seed: c.seed,
    brokers: 2,
    topics: [{ name: 't', partitions: 6 }],
    brokerConfig: {
      'group.consumer.min.session.timeout.ms': 6000,
      'group.consumer.session.timeout.ms': 8000,
      'group.consumer.min.heartbeat.interval.ms': 1000,
      'group.consumer.heartbeat.interval.ms': 1000,
    },
  });
  for (let i = 0; i < CONSUMERS; i++) {
    w.addConsumer(`c${i}`, {
      topics: ['t'],
      config: {
        'group.id': 'g',
        'group.protocol': 'consumer',
        'group.remote.assignor': c.assignor,
        'auto.offset.reset': 'earliest',
        'enable.auto.commit': c.autoCommit,
        'max.poll.interval.ms': 8000,
        'max.poll.records': 50,
        ...(c.staticMembers ? { 'group.instance.id': `i${i}` } : {}),
      },
      processing: {
        commit: c.autoCommit ? 'auto' : 'sync',
        recordTime: { kind: 'exponential', meanMs: c.recordMs },
        stalls: c.stalls.filter((s) => s.consumer === i).map((s) => ({ atMs: s.atMs, durationMs: s.durationMs })),
      },
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

/** What the coordinator says each member owns (assigned or still revoking), replayed from its trace: no partition twice. */
function coordinatorDoubleOwners(events: readonly TraceEvent[]): string[] {
  const owners = new Map<string, Map<string, { memberId: string; epoch: number }>>();
  const out: string[] = [];
  for (const e of events) {
    if (e.kind === 'group.load' || e.kind === 'group.unload') {
      // A coordinator that takes over starts from its replayed log; the next events rebuild the picture.
      continue;
    }
    if (e.kind === 'group.member.leave' || e.kind === 'group.member.expire') {
      for (const m of owners.values()) for (const [p, o] of [...m]) if (o.memberId === e.memberId) m.delete(p);
      continue;
    }
    if (e.kind === 'group.member.join' && e.replaced !== null) {
      for (const m of owners.values()) for (const [p, o] of [...m]) if (o.memberId === e.replaced) m.delete(p);
      continue;
    }
    if (e.kind !== 'group.consumer.member') continue;
    let m = owners.get(e.group);
    if (!m) owners.set(e.group, (m = new Map()));
    for (const [p, o] of [...m]) if (o.memberId === e.memberId) m.delete(p);
    for (const p of [...e.assigned, ...e.revoking]) {
      const other = m.get(p);
      if (other) out.push(`${p} owned by ${other.memberId} at epoch ${other.epoch} and by ${e.memberId} at epoch ${e.memberEpoch}`);
      m.set(p, { memberId: e.memberId, epoch: e.memberEpoch });
    }
  }
  return out;
}

describe('partition ownership under the consumer group protocol (KIP-848)', () => {
  it('no partition is owned by two members, on the coordinator or among live consumers, whatever faults happen', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const w = run(c);
        const events = (w.world.memory?.events ?? []) as TraceEvent[];
        expect(coordinatorDoubleOwners(events)).toEqual([]);
        const report = checkPartitionOwnership(events);
        expect(report.violations).toEqual([]);
        expect(report.assignments).toBeGreaterThan(0);
      }),
      { numRuns: Number(process.env.KIP848_OWNERSHIP_RUNS ?? 25) },
    );
  });
});
