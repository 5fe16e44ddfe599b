import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { FakeWorld } from '../../support/fakeBroker';
import { CONSUMERS, faultsArb, produceFaultAndRun, stallsArb, stallsOf, type Fault, type Stall } from './groupFaults';
import { checkPartitionOwnership } from '../../../sim/check/partitionOwnership';

interface Case {
  readonly seed: number;
  readonly strategy: 'range' | 'cooperative-sticky' | 'roundrobin' | 'sticky';
  readonly staticMembers: boolean;
  readonly recordMs: number;
  readonly stalls: readonly Stall[];
  readonly faults: readonly Fault[];
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  strategy: fc.constantFrom('range', 'cooperative-sticky', 'roundrobin', 'sticky'),
  staticMembers: fc.boolean(),
  recordMs: fc.constantFrom(1, 5, 20),
  stalls: stallsArb,
  faults: faultsArb,
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
      processing: { recordTime: { kind: 'exponential', meanMs: c.recordMs }, stalls: stallsOf(c.stalls, i) },
    });
  }
  return produceFaultAndRun(w, c.faults);
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
