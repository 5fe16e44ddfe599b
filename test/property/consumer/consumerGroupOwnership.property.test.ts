import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { checkPartitionOwnership } from '../../../sim/check/partitionOwnership';
import { FakeWorld } from '../../support/fakeBroker';
import { CONSUMERS, faultsArb, produceFaultAndRun, stallsArb, stallsOf, type Fault, type Stall } from './groupFaults';

// The consumer group protocol (KIP-848) under random faults: the coordinator never lets two members own one
// partition (revocation before assignment; its own assertion would throw), and no two live consumers hold one.

interface Case {
  readonly seed: number;
  readonly assignor: 'uniform' | 'range';
  readonly staticMembers: boolean;
  readonly autoCommit: boolean;
  readonly recordMs: number;
  readonly stalls: readonly Stall[];
  readonly faults: readonly Fault[];
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  assignor: fc.constantFrom('uniform', 'range'),
  staticMembers: fc.boolean(),
  autoCommit: fc.boolean(),
  recordMs: fc.constantFrom(1, 5, 20),
  stalls: stallsArb,
  faults: faultsArb,
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
        stalls: stallsOf(c.stalls, i),
      },
    });
  }
  return produceFaultAndRun(w, c.faults);
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
