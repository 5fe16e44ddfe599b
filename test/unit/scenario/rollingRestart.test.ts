import { describe, expect, it } from 'vitest';
import { ofKind } from '../../../sim/core/trace';
import { runScenario, type RunResult } from '../../../sim/scenario/runner';
import type { ActionSpec, ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { ValidationError } from '../../../sim/core/validate';

const base = (actions: readonly unknown[], extra: Partial<ScenarioSpec> = {}): ScenarioSpec => ({
  id: 'roll',
  duration: '40s',
  quiet: '0s',
  topics: [{ name: 't', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  producers: [{ id: 'p1', config: { acks: 'all' }, workload: { topic: 't', rate: 50 } }],
  actions: actions as ActionSpec[],
  ...extra,
});

function run(action: Record<string, unknown>, extra: Partial<ScenarioSpec> = {}): RunResult {
  return runScenario(validateScenario(base([{ at: '2s', action: 'rolling-restart', ...action }], extra)));
}

const steps = (r: RunResult) => ofKind(r.trace, 'operator.step').map((e) => `${e.target}:${e.step}`);

function validationError(action: Record<string, unknown>): string {
  try {
    validateScenario(base([{ at: '2s', action: 'rolling-restart', targets: ['tag:broker'], ...action }]));
  } catch (e) {
    if (e instanceof ValidationError) return e.message;
    throw e;
  }
  throw new Error('no validation error');
}

describe('rolling-restart: validation', () => {
  it('names the field, the bad value and what is allowed', () => {
    expect(validationError({ via: 'sigkill' })).toMatch(/actions\[0\]\.via.*"sigkill".*"stop", "crash"/);
    expect(validationError({ wait: 'forever' })).toMatch(/actions\[0\]\.wait.*"forever".*no-under-replicated/);
    expect(validationError({ targets: ['brokr-1'] })).toMatch(/actions\[0\]\.targets\[0\].*did you mean "broker-1"/);
    expect(validationError({ timeout: 0 })).toMatch(/actions\[0\]\.timeout.*> 0/);
    expect(validationError({ failToStart: ['zone'] })).toMatch(/actions\[0\]\.failToStart\[0\]/);
    expect(validationError({ targets: [] })).toMatch(/actions\[0\]\.targets/);
  });
});

describe('rolling-restart: the operator script', () => {
  it('careful: each broker is stopped only once the previous one is back and nothing is under-replicated', () => {
    const r = run({ targets: ['tag:broker'] }, { duration: '24s' });
    expect(steps(r)).toEqual([
      ...['broker-1', 'broker-2', 'broker-3'].flatMap((b) => ['stop', 'exited', 'start', 'back', 'in-sync'].map((s) => `${b}:${s}`)),
      ':done',
    ]);
    // Never two brokers down at once: each exit comes after the previous broker's host is up again.
    const exits = ofKind(r.trace, 'process.exit').filter((e) => e.process.startsWith('broker-'));
    const ups = ofKind(r.trace, 'host.up').filter((e) => e.node.startsWith('broker-') && e.t > r.startUs);
    expect(exits.map((e) => e.process)).toEqual(['broker-1', 'broker-2', 'broker-3']);
    for (let i = 1; i < exits.length; i++) expect(exits[i]!.t).toBeGreaterThan(ups[i - 1]!.t);
    expect(r.checks['lost-write']!.count).toBe(0);
    expect(r.checks['errors.NOT_ENOUGH_REPLICAS']?.count ?? 0).toBe(0);
  });

  it('a fixed pause moves on whatever the cluster looks like; kill -9 exits at once', () => {
    const r = run({ targets: ['broker-2', 'broker-1'], via: 'crash', wait: '1s' });
    expect(steps(r)).toEqual(['broker-2:kill', 'broker-2:exited', 'broker-2:start', 'broker-2:paused', 'broker-1:kill', 'broker-1:exited', 'broker-1:start', 'broker-1:paused', ':done']);
    const kills = ofKind(r.trace, 'operator.step').filter((e) => e.step === 'kill');
    expect(kills[1]!.t - kills[0]!.t).toBe(1_000_000);
    expect(ofKind(r.trace, 'host.crash').map((e) => e.node)).toEqual(['broker-2', 'broker-1']);
  });

  it('a node that fails to start is never back: the wait times out and the roll stops before the next node', () => {
    const r = run({ targets: ['tag:broker'], failToStart: ['broker-2'], timeout: '5s' });
    const s = steps(r);
    expect(s.slice(-3)).toEqual(['broker-2:exited', 'broker-2:fails-to-start', 'broker-2:gave-up']);
    expect(s.some((x) => x.startsWith('broker-3'))).toBe(false);
    expect(ofKind(r.trace, 'host.stop').map((e) => e.node)).toEqual(['broker-1', 'broker-2']);
  });

  it('controllers: each voter is back in the quorum (it fetched since its start and caught up) before the next stops', () => {
    const r = run({ targets: ['tag:controller'] }, { duration: '20s' });
    expect(steps(r).filter((x) => x.endsWith(':back'))).toEqual(['controller-1:back', 'controller-2:back', 'controller-3:back']);
    const at = (target: string, step: string) => ofKind(r.trace, 'operator.step').find((e) => e.target === target && e.step === step)!.t;
    for (const c of ['controller-1', 'controller-2', 'controller-3']) {
      // A restarted host needs its start-up delay (1 s) before it can fetch: "back" is not the stale view from before the stop.
      expect(at(c, 'back') - at(c, 'start')).toBeGreaterThan(1_000_000);
    }
    expect(r.checks['lost-write']!.count).toBe(0);
    expect(r.checks['unavailability.longest-ms']!.count).toBeLessThan(1000);
  });
});
