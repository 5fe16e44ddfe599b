import { describe, expect, it } from 'vitest';
import { runCheckers, type CheckReport } from '../../../sim/check/checkers';
import { isKnownCheck } from '../../../sim/check/names';
import type { TraceEvent } from '../../../sim/core/trace';
import { eventuallyAvailable, lastHeal, unavailableAfterHeal } from '../../../sim/explore/properties/eventuallyAvailable';
import { groupExclusivity } from '../../../sim/explore/properties/groupExclusivity';
import { hwMonotonic } from '../../../sim/explore/properties/hwMonotonic';
import { PROPERTIES, PROPERTY_NAMES, propertyByName } from '../../../sim/explore/properties/index';
import { noAckedLoss } from '../../../sim/explore/properties/noAckedLoss';
import { noDuplicates } from '../../../sim/explore/properties/noDuplicates';
import { orderPerKey } from '../../../sim/explore/properties/orderPerKey';
import { singleLeaderPerEpoch } from '../../../sim/explore/properties/singleLeaderPerEpoch';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

// Hand-written traces: each event is what the engine would emit, with only the fields the property reads.
let seq = 0;
function ev(tMs: number, kind: string, node: string, fields: Record<string, unknown> = {}): TraceEvent {
  // Partial on purpose (only what the property reads), so typed as an event by a cast.
  return { t: tMs * 1000, seq: seq++, kind, node, ...fields } as unknown as TraceEvent;
}
const role = (tMs: number, broker: number, r: string, epoch: number, hw = 0) =>
  ev(tMs, 'replica.role', `broker-${broker}`, { topic: 't', partition: 0, broker, role: r, leader: r === 'leader' ? broker : -1, leaderEpoch: epoch, isr: [], leo: 0, hw });
const hw = (tMs: number, broker: number, value: number) => ev(tMs, 'replica.hw', `broker-${broker}`, { topic: 't', partition: 0, broker, hw: value, leo: value });
const run = (trace: TraceEvent[], checks: CheckReport = runCheckers(trace)) => ({ trace, checks });
const hwRegressions = (r: ReturnType<typeof run>) => hwMonotonic.evaluate(r, {});
const singleLeaderViolations = (r: ReturnType<typeof run>) => singleLeaderPerEpoch.evaluate(r, {});

describe('single-leader-per-epoch', () => {
  it('flags two brokers taking the leader role in one epoch, and names both', () => {
    const v = singleLeaderViolations(run([ev(0, 'scenario.start', 'cluster'), role(10, 1, 'leader', 3), role(20, 2, 'leader', 3)]));
    expect(v.ok).toBe(false);
    expect(v.count).toBe(1);
    expect(v.examples[0]).toContain('t-0 epoch 3');
    expect(v.examples[0]).toMatch(/broker 1 .*broker 2/);
  });

  it('accepts one broker claiming an epoch twice (a restart) and different epochs for different brokers', () => {
    const v = singleLeaderViolations(run([role(10, 1, 'leader', 3), role(20, 1, 'leader', 3), role(30, 2, 'leader', 4), role(31, 1, 'follower', 4)]));
    expect(v).toEqual({ ok: true, count: 0, examples: [] });
  });

  it('counts the controller naming another leader for an epoch a broker leads', () => {
    const election = ev(15, 'controller.election', 'controller-1', { topic: 't', partition: 0, previousLeader: 1, leader: 2, source: 'ISR', reason: 'x', leaderEpoch: 3, isr: [2], elr: [] });
    expect(singleLeaderViolations(run([role(10, 1, 'leader', 3), election])).count).toBe(1);
    // A leaderless epoch (leader -1) claims nothing.
    const offline = ev(15, 'controller.partition', 'controller-1', { topic: 't', partition: 0, leader: -1, leaderEpoch: 3, partitionEpoch: 5, isr: [], elr: [], replicas: [1, 2] });
    expect(singleLeaderViolations(run([role(10, 1, 'leader', 3), offline])).ok).toBe(true);
  });
});

describe('hw-monotonic', () => {
  it('flags a leader whose high watermark goes down within its epoch', () => {
    const v = hwRegressions(run([role(0, 1, 'leader', 1), hw(1, 1, 5), hw(2, 1, 9), hw(3, 1, 7)]));
    expect(v.count).toBe(1);
    expect(v.examples[0]).toContain('below 9');
  });

  it('ignores followers\' high watermarks, even on a broker that leads another epoch', () => {
    const follower = ev(3, 'replica.hw', 'broker-1', { topic: 't', partition: 0, broker: 1, hw: 2, leo: 2, role: 'follower' });
    expect(hwRegressions(run([role(0, 1, 'leader', 1), hw(1, 1, 9), follower])).ok).toBe(true);
  });

  it('allows a new epoch to start lower, and ignores HW moves of a broker that is not leading', () => {
    const v = hwRegressions(run([role(0, 1, 'leader', 1), hw(1, 1, 9), role(2, 1, 'follower', 2), hw(3, 1, 4), role(4, 2, 'leader', 2, 3), hw(5, 2, 4)]));
    expect(v.ok).toBe(true);
  });

  it('flags a leader that takes the same epoch again with a lower high watermark without having restarted', () => {
    const v = hwRegressions(run([role(0, 1, 'leader', 1), hw(1, 1, 9), role(2, 1, 'follower', 1), role(3, 1, 'leader', 1, 6)]));
    expect(v.count).toBe(1);
    expect(v.examples[0]).toContain('took the leader role with high watermark 6');
  });

  it('lets a restarted leader start over from its checkpointed high watermark', () => {
    const crash = ev(3, 'host.crash', 'broker-1', { processes: ['broker-1'] });
    const v = hwRegressions(run([role(0, 1, 'leader', 1), hw(1, 1, 9), crash, hw(3.5, 1, 2), role(4, 1, 'leader', 1, 6), hw(5, 1, 8)]));
    expect(v.ok).toBe(true);
    // ... but not a regression within the new incarnation.
    expect(hwRegressions(run([role(0, 1, 'leader', 1), hw(1, 1, 9), crash, role(4, 1, 'leader', 1, 6), hw(5, 1, 8), hw(6, 1, 7)])).count).toBe(1);
  });
});

describe('eventually-available', () => {
  const start = ev(0, 'scenario.start', 'cluster');
  const invoke = (tMs: number, value: string, partition = 0) => ev(tMs, 'send.invoke', 'p1', { topic: 't', partition, key: null, value });
  const ok = (tMs: number, values: string[], partition = 0) => ev(tMs, 'send.ok', 'p1', { topic: 't', partition, offset: 0, values, broker: 1, acks: 'all' });
  const faultStart = (tMs: number, index: number, fault = 'crash') => ev(tMs, 'fault.start', 'nemesis', { index, fault, hosts: ['broker-1'], detail: '' });
  const faultEnd = (tMs: number, index: number) => ev(tMs, 'fault.end', 'nemesis', { index, fault: 'crash', hosts: ['broker-1'] });

  it('finds the last heal: the latest fault end, or the quiet period for a fault still in force', () => {
    expect(lastHeal([start, faultStart(1000, 0), faultEnd(3000, 0), faultStart(2000, 1), faultEnd(5000, 1)])).toEqual({ healUs: 5_000_000, startUs: 0 });
    expect(lastHeal([start, faultStart(1000, 0), ev(20_000, 'scenario.quiet', 'scenario')])).toEqual({ healUs: 20_000_000, startUs: 0 });
    expect(lastHeal([start, faultStart(1000, 0)])).toBeNull();
    expect(lastHeal([start, faultStart(1000, 0), faultStart(4000, 1, 'restart')])?.healUs).toBe(4_000_000);
  });

  it('flags a partition where a record waited and nothing was acknowledged within the bound', () => {
    const trace = [start, faultStart(1000, 0), invoke(1500, 'a'), faultEnd(3000, 0), invoke(4000, 'b'), ev(60_000, 'scenario.end', 'scenario')];
    const v = unavailableAfterHeal(run(trace), { withinMs: 10_000 });
    expect(v.count).toBe(1);
    expect(v.examples[0]).toMatch(/^t-0: a record waiting since 1.500s/);
  });

  it('holds when a write is acknowledged within the bound, and does not judge a run that ends too soon', () => {
    const healed = [start, faultStart(1000, 0), invoke(1500, 'a'), faultEnd(3000, 0), ok(9000, ['a']), ev(60_000, 'scenario.end', 'scenario')];
    expect(unavailableAfterHeal(run(healed), { withinMs: 10_000 }).ok).toBe(true);
    const late = [start, faultStart(1000, 0), invoke(1500, 'a'), faultEnd(3000, 0), ok(20_000, ['a']), ev(60_000, 'scenario.end', 'scenario')];
    expect(unavailableAfterHeal(run(late), { withinMs: 10_000 }).ok).toBe(false);
    const short = [start, faultStart(1000, 0), invoke(1500, 'a'), faultEnd(3000, 0), ev(8000, 'scenario.end', 'scenario')];
    expect(unavailableAfterHeal(run(short), { withinMs: 10_000 }).ok).toBe(true);
  });

  it('makes the quiet period outlast the bound', () => {
    const spec: ScenarioSpec = { id: 'x', duration: '10s', quiet: '5s' };
    expect(eventuallyAvailable.tailor!(spec, { withinMs: 20_000 }).quiet).toBe(25_000);
    expect(eventuallyAvailable.tailor!({ ...spec, quiet: '2m' }, { withinMs: 20_000 }).quiet).toBe(120_000);
  });
});

describe('properties over the checkers', () => {
  const report = (name: string, count: number): CheckReport => ({ [name]: { count, examples: count ? [`${name} example`] : [] } });

  it('judge exactly their check and state it as the expectation a scenario file carries', () => {
    for (const [p, check] of [
      [noAckedLoss, 'lost-write'],
      [orderPerKey, 'nonmonotonic-send'],
      [noDuplicates, 'duplicate'],
      [groupExclusivity, 'group-overlap'],
    ] as const) {
      expect(p.evaluate(run([], report(check, 0)), {}).ok).toBe(true);
      const v = p.evaluate(run([], report(check, 3)), {});
      expect(v).toEqual({ ok: false, count: 3, examples: [`${check} example`] });
      expect(p.expectation({})).toMatchObject({ check, op: '=', value: 0 });
      expect(isKnownCheck(check)).toBe(true);
    }
  });

  it('give the trace-only properties an expectation only once the checkers report them', () => {
    for (const [name, check] of [
      ['single-leader-per-epoch', 'leader-epoch-conflict'],
      ['hw-monotonic', 'high-watermark-regression'],
      ['eventually-available', 'unavailable-after-heal'],
    ] as const) {
      const e = propertyByName(name).expectation({});
      if (isKnownCheck(check)) expect(e?.check).toBe(check);
      else expect(e).toBeNull();
    }
  });

  it('tailor drawn scenarios so the property can show, into documents the validator accepts', () => {
    const base: ScenarioSpec = {
      id: 'x',
      duration: '5s',
      topics: [{ name: 't', partitions: 2, replicationFactor: 3 }],
      producers: [{ id: 'p1', config: { acks: '1', retries: 0, 'max.in.flight.requests.per.connection': 10 }, workload: { topic: 't', rate: 10 } }],
    };
    const idem = noDuplicates.tailor!(base, {});
    expect(idem.producers![0]!.config).toEqual({ acks: 'all', 'max.in.flight.requests.per.connection': 5 });
    expect(validateScenario(idem).producers[0]!.config['enable.idempotence']).toBe(true);
    const grouped = groupExclusivity.tailor!(base, {});
    expect(grouped.consumers?.map((c) => c.group)).toEqual(['explore-group', 'explore-group']);
    const keyed = orderPerKey.tailor!(base, {});
    expect((keyed.producers![0]!.workload as unknown as { keys: unknown }[])[0]!.keys).toEqual({ kind: 'uniform', count: 10 });
    for (const s of [idem, grouped, keyed]) expect(() => validateScenario(s)).not.toThrow();
  });

  it('are listed by name, and an unknown name suggests the nearest', () => {
    expect(PROPERTY_NAMES).toEqual(['no-acked-loss', 'order-per-key', 'no-duplicates', 'single-leader-per-epoch', 'hw-monotonic', 'group-exclusivity', 'eventually-available', 'exactly-once']);
    expect(PROPERTIES.every((p) => p.description.length > 0)).toBe(true);
    expect(() => propertyByName('no-acked-los')).toThrow(/did you mean "no-acked-loss"/);
  });
});
