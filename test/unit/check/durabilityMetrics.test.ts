import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { runCheckers } from '../../../sim/check/checkers';

// The figures the durability scenarios set expectations on, computed from hand-written traces whose answers
// are worked out in the comments.

let seq = 0;
const ev = (tMs: number, kind: string, node: string, fields: Record<string, unknown> = {}): TraceEvent =>
  ({ t: tMs * 1000, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;

const start = ev(0, 'scenario.start', 'cluster', { bootMs: 0 });

function finalPartition(tMs: number, fields: Record<string, unknown>): TraceEvent {
  return ev(tMs, 'final.partition', 'scenario', {
    topic: 't',
    partition: 0,
    leader: 1,
    leaderEpoch: 0,
    replicas: [1, 2],
    isr: [1, 2],
    elr: [],
    highWatermark: 2,
    logEndOffset: 2,
    logStartOffset: 0,
    compacted: false,
    offline: false,
    offsets: [0, 1],
    keys: [null, null],
    values: ['a', 'b'],
    ...fields,
  });
}

describe('commit.max-wait-ms', () => {
  it('is the longest span from a leader append to the high watermark covering it', () => {
    const trace = [
      start,
      // Broker 1 appends offsets 0..1 at 10 ms and 2..4 at 20 ms; the HW reaches 2 at 15 ms and 5 at 4020 ms.
      ev(10, 'replica.append', 'broker-1', { topic: 't', partition: 0, broker: 1, base: 0, last: 1, epoch: 0, role: 'leader', values: ['a', 'b'] }),
      ev(15, 'replica.hw', 'broker-1', { topic: 't', partition: 0, broker: 1, hw: 2, leo: 2 }),
      ev(20, 'replica.append', 'broker-1', { topic: 't', partition: 0, broker: 1, base: 2, last: 4, epoch: 0, role: 'leader', values: ['c', 'd', 'e'] }),
      ev(4020, 'replica.hw', 'broker-1', { topic: 't', partition: 0, broker: 1, hw: 5, leo: 5 }),
      // A follower's append never counts.
      ev(30, 'replica.append', 'broker-2', { topic: 't', partition: 0, broker: 2, base: 5, last: 5, epoch: 0, role: 'follower' }),
      ev(5000, 'scenario.end', 'scenario', { durationMs: 5000, quietMs: 0 }),
    ];
    // 10 -> 15 ms waited 5 ms; 20 -> 4020 ms waited 4000 ms.
    expect(runCheckers(trace)['commit.max-wait-ms']!.count).toBe(4000);
  });

  it('leaves out what a leader appended before it lost leadership', () => {
    const trace = [
      start,
      ev(10, 'replica.append', 'broker-1', { topic: 't', partition: 0, broker: 1, base: 0, last: 0, epoch: 0, role: 'leader', values: ['a'] }),
      ev(50, 'replica.role', 'broker-1', { topic: 't', partition: 0, broker: 1, role: 'follower', leader: 2, leaderEpoch: 1, isr: [2], leo: 1, hw: 0 }),
      ev(9000, 'scenario.end', 'scenario', { durationMs: 9000, quietMs: 0 }),
    ];
    expect(runCheckers(trace)['commit.max-wait-ms']!.count).toBe(0);
  });
});

describe('partition.offline-ms', () => {
  it('is the longest leaderless span between elections, and a span still open counts to the end', () => {
    const election = (tMs: number, leader: number, partition = 0) =>
      ev(tMs, 'controller.election', 'controller-1', { topic: 't', partition, previousLeader: 1, leader, source: leader < 0 ? null : 'ISR', reason: 'x', leaderEpoch: 1, isr: [], elr: [] });
    const trace = [
      start,
      election(1000, -1),
      election(3500, 2), // 2.5 s offline
      election(6000, -1, 1),
      ev(10000, 'scenario.end', 'scenario', { durationMs: 10000, quietMs: 0 }), // partition 1 still offline: 4 s
    ];
    expect(runCheckers(trace)['partition.offline-ms']!.count).toBe(4000);
  });
});

describe('replicas.diverged and inconsistent-offsets', () => {
  it('count a replica that holds other records than the leader, and agree when none does', () => {
    const same = runCheckers([start, finalPartition(100, { diverged: [] })]);
    expect(same['replicas.diverged']!.count).toBe(0);
    expect(same['inconsistent-offsets']!.count).toBe(0);
    // Broker 2 holds 'x' at offset 1 where the leader has 'b': one replica diverged, one offset with two values.
    const diverged = runCheckers([start, finalPartition(100, { diverged: [{ broker: 2, offsets: [1], values: ['x'] }] })]);
    expect(diverged['replicas.diverged']!.count).toBe(1);
    expect(diverged['inconsistent-offsets']!.count).toBe(1);
  });
});
