import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FaultEntry } from '../../sim/world/nemesis';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// Issue 6's guarantee as a property: acks=all, replication factor 3, min.insync.replicas=2, unclean election
// off, and at most one broker impaired at any moment (crash, power loss, pause or a network partition of it;
// never two power losses at once): no acknowledged record is ever lost, whatever the schedule.

const BROKERS = 3;
const DURATION_MS = 20_000;
/** Long enough to heal: a cut breaks the connections across it, and a follower's fetch on a broken connection
 * only fails after replica.socket.timeout.ms + replica.fetch.wait.max.ms (30.5 s); until then the ISR cannot
 * catch up and an acknowledged record may still sit above the final high watermark. */
const QUIET_MS = 45_000;
/** After a fault ends, the broker restarts, registers (a power loss waits out its old session), catches up and
 * rejoins the ISR before another may be hit: until then it still counts as impaired. */
const SETTLE_MS = 10_000;

type Kind = 'crash' | 'power-loss' | 'pause' | 'isolate' | 'partition' | 'one-way-in' | 'one-way-out';

interface Step {
  readonly kind: Kind;
  /** 0: the leader of partition 0 when the fault starts; 1..3: that broker. */
  readonly target: number;
  /** Wait after the previous broker settled (ms). */
  readonly gapMs: number;
  readonly durationMs: number;
}

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<Kind>('crash', 'power-loss', 'pause', 'isolate', 'partition', 'one-way-in', 'one-way-out'),
  target: fc.integer({ min: 0, max: BROKERS }),
  gapMs: fc.integer({ min: 0, max: 6_000 }),
  durationMs: fc.integer({ min: 500, max: 12_000 }),
});

/** One broker at a time: each fault starts after the previous one ended and its broker settled. */
function schedule(steps: readonly Step[]): FaultEntry[] {
  const out: FaultEntry[] = [];
  let cursor = 1_000;
  for (const s of steps) {
    const at = cursor + s.gapMs;
    if (at >= DURATION_MS) break;
    const host = s.target === 0 ? 'leader:events/0' : `broker-${s.target}`;
    const others = s.target === 0 ? ['follower:events/0'] : Array.from({ length: BROKERS }, (_, i) => `broker-${i + 1}`).filter((b) => b !== host);
    const base = { at, duration: s.durationMs };
    switch (s.kind) {
      case 'crash':
      case 'power-loss':
      case 'pause':
      case 'isolate':
        out.push({ ...base, fault: s.kind, targets: [host] });
        break;
      case 'partition':
        // Cut from the other brokers only: it still talks to the controllers and the producer.
        out.push({ ...base, fault: 'partition', groups: [[host], others] });
        break;
      case 'one-way-in':
        out.push({ ...base, fault: 'one-way', from: others, to: [host] });
        break;
      case 'one-way-out':
        out.push({ ...base, fault: 'one-way', from: [host], to: others });
        break;
    }
    cursor = at + s.durationMs + SETTLE_MS;
  }
  return out;
}

function spec(faults: FaultEntry[]): ScenarioSpec {
  return {
    id: 'no-acked-loss-one-broker-at-a-time',
    duration: DURATION_MS,
    quiet: QUIET_MS,
    cluster: { controllers: 3, brokers: BROKERS },
    topics: [{ name: 'events', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2, 'unclean.leader.election.enable': false } }],
    producers: [{ id: 'producer-1', config: { acks: 'all' }, workload: { topic: 'events', rate: 100, keys: { kind: 'uniform', count: 50 } } }],
    faults,
  };
}

describe('acks=all, replication factor 3, min.insync.replicas=2, one broker impaired at a time', () => {
  it('never loses an acknowledged record (100 generated fault schedules)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 1_000_000 }), (steps, seed) => {
        const faults = schedule(steps);
        const r = runScenario(validateScenario(spec(faults)), { seed, hash: false });
        const lost = r.checks['lost-write']!;
        // Something was acknowledged, so the property is not vacuous.
        expect(r.checks['acked']!.count).toBeGreaterThan(0);
        expect(lost.count, `${JSON.stringify(faults)} seed ${seed}: ${lost.examples.join('; ')}\n${(lost.stories?.[0] ?? []).join('\n')}`).toBe(0);
      }),
      {
        numRuns: 100,
        // Found by this property: a leader that lost power and restarted within its session served its old
        // epoch from a log missing its unflushed tail, and its followers truncated to it.
        examples: [[[{ kind: 'power-loss', target: 0, gapMs: 0, durationMs: 500 }, { kind: 'crash', target: 0, gapMs: 0, durationMs: 500 }], 1]],
      },
    );
  });
});
