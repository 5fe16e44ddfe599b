import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FaultEntry } from '../../sim/world/nemesis';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// Issue 17's guarantee as a property: whatever crashes, pauses or cuts hit the brokers (the transaction
// coordinator and the partition leaders among them) and the transactional producer, a read_committed consumer
// never returns a record of a transaction that aborted or never committed (G1a = 0).

const BROKERS = 3;
const DURATION_MS = 15_000;
const QUIET_MS = 20_000;
/** npm test draws a few schedules; npm run fuzz (KAFKASIM_FUZZ) many more. */
const RUNS = process.env.KAFKASIM_FUZZ ? 60 : 6;

type Kind = 'crash' | 'power-loss' | 'pause' | 'isolate';

interface Step {
  readonly kind: Kind;
  /** 0: the leader of payments/0; 1..3: that broker; 4: the producer (paused: a zombie in the making). */
  readonly target: number;
  readonly atMs: number;
  readonly durationMs: number;
}

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<Kind>('crash', 'power-loss', 'pause', 'isolate'),
  target: fc.integer({ min: 0, max: BROKERS + 1 }),
  atMs: fc.integer({ min: 1_000, max: DURATION_MS - 1_000 }),
  durationMs: fc.integer({ min: 500, max: 8_000 }),
});

function faults(steps: readonly Step[]): FaultEntry[] {
  return steps.map((s) => {
    const target = s.target === 0 ? 'leader:payments/0' : s.target <= BROKERS ? `broker-${s.target}` : 'ledger';
    // A producer is paused (a stalled application), never powered off: that is a crash and restart.
    const fault = s.target > BROKERS ? 'pause' : s.kind;
    return { at: s.atMs, fault, targets: [target], duration: Math.min(s.durationMs, DURATION_MS - s.atMs) };
  });
}

function spec(f: FaultEntry[]): ScenarioSpec {
  return {
    id: 'read-committed-never-reads-aborted',
    duration: DURATION_MS,
    quiet: QUIET_MS,
    cluster: { controllers: 1, brokers: BROKERS, broker: { 'transaction.state.log.num.partitions': 3 } },
    topics: [{ name: 'payments', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
    producers: [{ id: 'ledger', config: { 'transactional.id': 'ledger-1', 'transaction.timeout.ms': 5000 }, workload: { topic: 'payments', rate: 60, transactionSize: 15, abortProbability: 0.4 } }],
    consumers: [{ id: 'reader', topics: ['payments'], config: { 'isolation.level': 'read_committed', 'auto.offset.reset': 'earliest' } }],
    faults: f,
  };
}

describe('transactions under faults', () => {
  it(`a read_committed consumer never reads an aborted or uncommitted write (${RUNS} generated fault schedules)`, () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 2 }), fc.integer({ min: 1, max: 1_000_000 }), (steps, seed) => {
        const f = faults(steps);
        const r = runScenario(validateScenario(spec(f)), { seed, hash: false });
        // Something was written and read, so the property is not vacuous.
        expect(r.checks['acked']!.count).toBeGreaterThan(0);
        const g1a = r.checks['G1a']!;
        expect(g1a.count, `${JSON.stringify(f)} seed ${seed}: ${g1a.examples.join('; ')}`).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });
});
