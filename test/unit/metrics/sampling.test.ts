import { describe, expect, it } from 'vitest';
import { ofKind } from '../../../sim/core/trace';
import { runScenario, type RunResult } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

const S = 1_000_000;

const spec = (extra: Partial<ScenarioSpec> = {}): ScenarioSpec => ({
  id: 'metrics',
  duration: '24s',
  quiet: '4s',
  cluster: { broker: { 'replica.lag.time.max.ms': 2000 } },
  topics: [
    { name: 't', partitions: 3, replicationFactor: 3, config: { 'min.insync.replicas': 2 } },
    { name: 'solo', assignment: [[1]] },
  ],
  producers: [{ id: 'p1', config: { acks: 'all' }, workload: { topic: 't', rate: 100 } }],
  consumers: [{ id: 'c1', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest' } }],
  faults: [
    { at: '3s', fault: 'crash', targets: ['broker-1'], duration: '15s' },
    { at: '8s', fault: 'crash', targets: ['broker-2'], duration: '4s' },
  ],
  ...extra,
});

/** Each sample moment (scenario seconds) -> actor -> values. */
function moments(r: RunResult): Map<number, Map<string, Record<string, number>>> {
  const out = new Map<number, Map<string, Record<string, number>>>();
  for (const e of ofKind(r.trace, 'metrics.sample')) {
    const at = (e.t - r.startUs) / S;
    let m = out.get(at);
    if (!m) out.set(at, (m = new Map()));
    m.set(e.node, e.values);
  }
  return out;
}
const sum = (m: Map<string, Record<string, number>>, key: string) => [...m.values()].reduce((a, v) => a + (v[key] ?? 0), 0);

describe('metrics sampled on simulated time', () => {
  const r = runScenario(validateScenario(spec()));
  const ms = moments(r);

  it('every second, from each running actor; a crashed broker answers no scrape', () => {
    expect([...ms.keys()]).toEqual(Array.from({ length: 28 }, (_, i) => i + 1));
    const reporters = (at: number) => [...ms.get(at)!.keys()].sort();
    expect(reporters(2)).toEqual(['broker-1', 'broker-2', 'broker-3', 'c1', 'controller-1', 'controller-2', 'controller-3', 'p1']);
    expect(reporters(10)).toEqual(['broker-3', 'c1', 'controller-1', 'controller-2', 'controller-3', 'p1']);
    // Exactly one active controller at every moment.
    for (const m of ms.values()) expect(sum(m, 'ActiveControllerCount')).toBe(1);
  });

  it('follows the cluster: under-replicated after the ISR shrinks, under min ISR with two brokers down, offline without a leader', () => {
    const at = (s: number, key: string) => sum(ms.get(s)!, key);
    expect(at(2, 'UnderReplicatedPartitions')).toBe(0);
    expect(at(7, 'UnderReplicatedPartitions')).toBeGreaterThan(0); // broker-1 left the ISRs after replica.lag.time.max.ms
    expect(at(2, 'UnderMinIsrPartitionCount')).toBe(0);
    expect(at(11, 'UnderMinIsrPartitionCount')).toBeGreaterThan(0); // only broker-3 left in the ISRs of t
    expect(at(27, 'UnderReplicatedPartitions')).toBe(0); // healed
    // "solo" lives on broker-1 only: offline once the controller fences broker-1, on every controller's view.
    for (const c of ['controller-1', 'controller-2', 'controller-3']) {
      expect(ms.get(2)!.get(c)!['OfflinePartitionsCount']).toBe(0);
      expect(ms.get(15)!.get(c)!['OfflinePartitionsCount']).toBeGreaterThan(0);
      expect(ms.get(27)!.get(c)!['OfflinePartitionsCount']).toBe(0);
    }
    expect(ms.get(15)!.get('controller-1')!['FencedBrokerCount']).toBeGreaterThan(0);
    // Writes flow before the crash; the producer and the brokers agree roughly on the rate.
    expect(ms.get(2)!.get('p1')!['record-send-rate']).toBeGreaterThan(50);
    expect(at(2, 'MessagesInPerSec')).toBeGreaterThan(50);
    expect(at(2, 'RequestsPerSec.Produce')).toBeGreaterThan(0);
    expect(Math.max(...[1, 2, 3].map((b) => ms.get(2)!.get(`broker-${b}`)!['TotalTimeMs.p99.Produce'] ?? 0))).toBeGreaterThan(0);
    expect(ms.get(27)!.get('c1')!['records-lag-max']).toBe(0); // caught up once healed (the group formed after group.initial.rebalance.delay.ms)
    expect(ms.get(27)!.get('c1')!['assigned-partitions']).toBe(3);
  });

  it('changes nothing the cluster does: the same run without sampling has every other event, in order', () => {
    const off = runScenario(validateScenario(spec({ metrics: false })));
    // Every event but the samples, without the trace's sequence numbers (the samples take some).
    const strip = (x: RunResult) => x.trace.filter((e) => e.kind !== 'metrics.sample').map(({ seq: _seq, ...e }) => JSON.stringify(e));
    expect(ofKind(off.trace, 'metrics.sample')).toEqual([]);
    const [a, b] = [strip(off), strip(r)];
    const firstDifference = a.findIndex((e, i) => e !== b[i]);
    expect(firstDifference === -1 ? null : [a[firstDifference]!.slice(0, 300), b[firstDifference]?.slice(0, 300)]).toBeNull();
    expect(a.length).toBe(b.length);
  });

  it('an interval of its own; none in a minimal trace unless asked for', () => {
    const fast = runScenario(validateScenario(spec({ duration: '3s', quiet: '0s', faults: [], metrics: { interval: '250ms' } })));
    expect([...moments(fast).keys()]).toEqual([0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3]);
    const minimal = runScenario(validateScenario(spec({ duration: '3s', quiet: '0s', faults: [], trace: 'minimal' })));
    expect(ofKind(minimal.trace, 'metrics.sample')).toEqual([]);
  });
});

describe('alert rules of a scenario', () => {
  const r = runScenario(
    validateScenario(
      spec({
        alerts: [
          { name: 'under-min-isr', rule: 'UnderMinIsrPartitionCount > 0 for 2s' },
          'OfflinePartitionsCount > 0',
          { name: 'never', rule: 'sum(ActiveControllerCount) != 1' },
        ],
        expect: [{ check: 'alert.under-min-isr', op: '=', value: 1 }],
      }),
    ),
  );
  const ms = moments(r);

  it('fire after holding for their `for`, resolve at the first sample that does not hold, and are checks of the report', () => {
    // The samples say when the series held; the alert fires `for` later and resolves at the first moment it fails.
    const held = [...ms.keys()].filter((t) => sum(ms.get(t)!, 'UnderMinIsrPartitionCount') > 0);
    const firstRunEnd = held.findIndex((t, i) => held[i + 1] !== t + 1);
    expect(held[firstRunEnd]! - held[0]!).toBeGreaterThanOrEqual(2); // long enough to fire
    const fire = ofKind(r.trace, 'alert.fire').filter((e) => e.name === 'under-min-isr');
    const resolve = ofKind(r.trace, 'alert.resolve').filter((e) => e.name === 'under-min-isr');
    const start = r.startUs;
    expect(fire.map((e) => (e.t - start) / S)).toEqual([held[0]! + 2]);
    expect(fire[0]!.pendingAtUs - start).toBe(held[0]! * S);
    expect(resolve.map((e) => (e.t - start) / S)[0]).toBe(held[firstRunEnd]! + 1);
    expect(r.checks['alert.under-min-isr']).toMatchObject({ count: 1, values: ['UnderMinIsrPartitionCount > 0 for 2s'] });
    expect(r.checks['alert.under-min-isr']!.examples[0]).toMatch(/^fired at \d+\.000s \(held since \d+\.000s\), resolved at \d+\.000s, peak [1-3]$/);
    expect(r.checks['alert.OfflinePartitionsCount > 0']!.count).toBe(1);
    expect(r.checks['alert.never']).toMatchObject({ count: 0, examples: [] });
    expect(r.expectations).toMatchObject([{ check: 'alert.under-min-isr', ok: true }]);
  });

  it('are refused in one line when they cannot be evaluated', () => {
    const error = (extra: Partial<ScenarioSpec>) => {
      try {
        validateScenario({ id: 'm', duration: '1s', ...extra } as ScenarioSpec);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(error({ alerts: ['UnderMinIsr > 0'] })).toMatch(/^alerts\[0\]: "UnderMinIsr > 0" is not allowed; expected a series of the metrics catalog/);
    expect(error({ alerts: ['LeaderCount > 0'], metrics: false })).toMatch(/^metrics: false is not allowed; expected sampling on/);
    expect(error({ alerts: ['LeaderCount > 0', { rule: 'LeaderCount > 0' }] })).toMatch(/^alerts\[1\]: .*"LeaderCount > 0" is taken/);
    expect(error({ alerts: [{ name: 'a b', rule: 'LeaderCount > 0' }] })).toMatch(/^alerts\[0\]\.name: "a b" is not allowed/);
    expect(error({ expect: [{ check: 'alert.x', op: '=', value: 0 }] })).toMatch(/^expect\[0\]\.check: "alert\.x"/);
    // A minimal trace samples when the scenario has alerts: they need the samples.
    expect(validateScenario({ id: 'm', duration: '1s', trace: 'minimal', alerts: ['LeaderCount > 0'] }).metricsIntervalUs).toBe(S);
  });
});

describe('the metrics field of a scenario', () => {
  const error = (metrics: unknown) => {
    try {
      validateScenario({ id: 'm', duration: '1s', metrics } as ScenarioSpec);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };
  it('is false or an interval of at least 10ms', () => {
    expect(validateScenario({ id: 'm', duration: '1s' }).metricsIntervalUs).toBe(S);
    expect(validateScenario({ id: 'm', duration: '1s', metrics: false }).metricsIntervalUs).toBeNull();
    expect(validateScenario({ id: 'm', duration: '1s', trace: 'minimal', metrics: { interval: '5s' } }).metricsIntervalUs).toBe(5 * S);
    expect(error({ interval: '1ms' })).toMatch(/^metrics\.interval: "1ms" is not allowed; expected an interval of at least 10ms/);
    expect(error({ every: '1s' })).toMatch(/^metrics\.every/);
    expect(error(true)).toMatch(/^metrics: true is not allowed/);
  });
});
