import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { runCheckers } from '../../../sim/check/checkers';

// Per-partition figures and reports over a window, from hand-written traces whose answers are worked out in the
// comments.

let seq = 0;
const ev = (tMs: number, kind: string, node: string, fields: Record<string, unknown> = {}): TraceEvent =>
  ({ t: tMs * 1000, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;
const election = (tMs: number, partition: number, leader: number) =>
  ev(tMs, 'controller.election', 'controller-1', { topic: 't', partition, previousLeader: -1, leader, source: null, reason: 'test', leaderEpoch: 1, isr: [], clean: true });
const invoke = (tMs: number, partition: number, value: string, extra: Record<string, unknown> = {}) =>
  ev(tMs, 'send.invoke', 'p1', { topic: 't', partition, key: 'k', value, ...extra });
const ok = (tMs: number, partition: number, offset: number, values: string[]) =>
  ev(tMs, 'send.ok', 'p1', { topic: 't', partition, offset, values, broker: 1, acks: 'all' });

// Partition 0 loses its leader from 2 s to 7 s; partition 1 never does. A send to 0 at 3 s waits until 7 s.
const trace = [
  ev(100, 'scenario.start', 'cluster', { bootMs: 0 }),
  invoke(1100, 0, 'a'),
  ok(1105, 0, 0, ['a']),
  invoke(1100, 1, 'b'),
  ok(1103, 1, 0, ['b']),
  election(2100, 0, -1),
  invoke(3100, 0, 'c'),
  invoke(3100, 1, 'd'),
  ok(3102, 1, 1, ['d']),
  election(7100, 0, 2),
  ok(7100, 0, 1, ['c']),
  ev(10_100, 'scenario.end', 'scenario', { durationMs: 10_000, quietMs: 0 }),
];

describe('per-partition figures', () => {
  it('say which partition suffered, and are computed only when named', () => {
    const names = ['partition.offline-ms.t-0', 'partition.offline-ms.t-1', 'unavailability.longest-ms.t-0', 'unavailability.longest-ms.t-1', 'elections.t-0', 'elections.t-1', 'acked.t-1'];
    const r = runCheckers(trace, { figures: names });
    expect(r['partition.offline-ms.t-0']!.count).toBe(5000);
    expect(r['partition.offline-ms.t-1']!.count).toBe(0);
    expect(r['unavailability.longest-ms.t-0']!.count).toBe(4000);
    expect(r['unavailability.longest-ms.t-1']!.count).toBe(3);
    expect(r['elections.t-0']!.count).toBe(2);
    expect(r['elections.t-1']!.count).toBe(0);
    expect(r['acked.t-1']!.count).toBe(2);
    // The run's figures are the worst partition's.
    expect(r['unavailability.longest-ms']!.count).toBe(4000);
    expect(Object.keys(runCheckers(trace)).filter((k) => k.endsWith('.t-0'))).toEqual([]);
  });
});

describe('a report over a window', () => {
  it('leaves out what happened before it, and counts a state it opens in from its start', () => {
    // From 4 s to 9 s of scenario time (4.1 s to 9.1 s of the trace): partition 0 is leaderless from the window's
    // start until 7.1 s (3 s), one election happens in it, and the stall of "c" (sent before it) is not its own.
    const r = runCheckers(trace, { window: { fromUs: 4_000_000, toUs: 9_000_000 }, figures: ['elections.t-0', 'unavailability.longest-ms.t-0'] });
    expect(r['partition.offline-ms']!.count).toBe(3000);
    expect(r.elections!.count).toBe(1);
    expect(r['elections.t-0']!.count).toBe(1);
    expect(r.acked!.count).toBe(0);
    expect(r['unavailability.longest-ms.t-0']!.count).toBe(0);
    // A window that takes in the loss of the leader sees all of it, and the stall.
    const around = runCheckers(trace, { window: { fromUs: 1_500_000, toUs: 8_000_000 } });
    expect(around['partition.offline-ms']!.count).toBe(5000);
    expect(around['unavailability.longest-ms']!.count).toBe(4000);
    // Sends made in the window: c and d (a and b were made before it).
    expect(around.acked!.count).toBe(2);
    // A partition still leaderless when the window closes counts to its end.
    const cut = runCheckers(trace, { window: { fromUs: 1_000_000, toUs: 5_000_000 } });
    expect(cut['partition.offline-ms']!.count).toBe(3000);
  });
});
