import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { runCheckers } from '../../../sim/check/checkers';

// Hand-built traces; every expected figure below is worked out by hand in the comment next to it.

let seq = 0;
function ev(t: number, kind: string, node: string, fields: Record<string, unknown>): TraceEvent {
  return { t, seq: seq++, kind, node, ...fields } as TraceEvent;
}

const S = 1_000_000;

function figures(events: TraceEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  // The per-group figures are part of the whole report (the checkers fold replica.hw as the trace goes by).
  for (const [k, v] of Object.entries(runCheckers(events))) out[k] = v.count;
  return out;
}

const poll = (t: number, node: string, group: string, partition: number, offsets: number[]) =>
  ev(t, 'consumer.poll', node, { group, memberId: `${node}-m`, generation: 1, count: offsets.length, records: [{ topic: 't', partition, offsets, keys: offsets.map(() => null), values: offsets.map((o) => `v${partition}-${o}`) }] });
const hw = (t: number, partition: number, value: number) => ev(t, 'replica.hw', 'broker-1', { topic: 't', partition, broker: 1, hw: value, leo: value });
const commit = (t: number, node: string, group: string, offsets: [number, number][]) =>
  ev(t, 'consumer.commit', node, { group, memberId: `${node}-m`, generation: 1, source: 'sync', offsets: offsets.map(([partition, offset]) => ({ topic: 't', partition, offset })), ok: true, error: 'NONE', sentAt: t });
const assignment = (t: number, node: string, group: string, owned: string[], removed: string[] = []) =>
  ev(t, 'consumer.assignment', node, { group, memberId: `${node}-m`, generation: 1, protocol: 'EAGER', assigned: [], revoked: removed, lost: [], owned });

describe('lag per group over time', () => {
  it('sees a lag that builds up between two commits, not only the lag at each commit', () => {
    const events = [
      poll(0, 'c1', 'g', 0, [0]),
      hw(1 * S, 0, 10),
      commit(2 * S, 'c1', 'g', [[0, 5]]), // lag 10 - 5 = 5
      hw(3 * S, 0, 30), // lag 30 - 5 = 25: the largest, reached while nobody commits
      commit(4 * S, 'c1', 'g', [[0, 30]]), // lag 0
      hw(5 * S, 0, 40), // lag 10
    ];
    const f = figures(events);
    expect(f['lag.max.g']).toBe(25);
    // No final state: the last high watermark seen counts, 40 - 30.
    expect(f['lag.final.g']).toBe(10);
  });

  it('reads the leader\'s high watermark, not a follower\'s that trails it', () => {
    const events = [
      poll(0, 'c1', 'g', 0, [0]),
      hw(1 * S, 0, 30),
      commit(2 * S, 'c1', 'g', [[0, 10]]), // lag 20
      ev(3 * S, 'replica.hw', 'broker-2', { topic: 't', partition: 0, broker: 2, hw: 25, leo: 30, role: 'follower' }),
      commit(4 * S, 'c1', 'g', [[0, 12]]), // still against 30: lag 18, not 13
    ];
    const f = figures(events);
    expect(f['lag.max.g']).toBe(20);
    expect(f['lag.final.g']).toBe(18);
  });

  it('sums over partitions and counts only partitions the group has committed', () => {
    const events = [
      poll(0, 'c1', 'g', 0, [0]),
      hw(1 * S, 0, 100),
      hw(1 * S, 1, 50),
      commit(2 * S, 'c1', 'g', [[0, 90]]), // partition 0 only: lag 10 (partition 1 not committed yet)
      commit(3 * S, 'c1', 'g', [[1, 20]]), // 10 + 30 = 40
      hw(4 * S, 1, 60), // 10 + 40 = 50
      commit(5 * S, 'c1', 'g', [[0, 100], [1, 60]]), // 0
    ];
    expect(figures(events)['lag.max.g']).toBe(50);
  });
});

describe('rebalance pauses per partition', () => {
  it('eager: every partition pauses from its owner giving it up until an owner takes it on', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0', 't-1']),
      assignment(0, 'b', 'g', ['t-2', 't-3']),
      assignment(1 * S, 'a', 'g', [], ['t-0', 't-1']),
      assignment(2 * S, 'b', 'g', [], ['t-2', 't-3']),
      assignment(5 * S, 'a', 'g', ['t-0', 't-1']),
      assignment(5 * S, 'b', 'g', ['t-2', 't-3']),
    ];
    // a's partitions waited 4 s each, b's 3 s each: 14 s over 4 partitions.
    expect(figures(events)['rebalance.pause-ms.g']).toBe(3500);
  });

  it('cooperative: only the partition that moves pauses, between its revocation and its next owner', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0', 't-1']),
      assignment(0, 'b', 'g', ['t-2', 't-3']),
      assignment(1 * S, 'a', 'g', ['t-0'], ['t-1']),
      assignment(4 * S, 'c', 'g', ['t-1']),
      assignment(4 * S, 'b', 'g', ['t-2', 't-3']),
    ];
    // t-1 waited 3 s; the other three never stopped: 3 s over 4 partitions.
    expect(figures(events)['rebalance.pause-ms.g']).toBe(750);
  });

  it('a crashed member gives nothing up: the wait for its partitions is failure detection, not a rebalance pause', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0']),
      assignment(0, 'b', 'g', ['t-1']),
      ev(1 * S, 'host.crash', 'a', { processes: ['a'] }),
      assignment(7 * S, 'b', 'g', ['t-0', 't-1']),
    ];
    expect(figures(events)['rebalance.pause-ms.g']).toBe(0);
  });

  it('a pause still open at the end counts up to the end while the group has a member', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0', 't-1']),
      assignment(1 * S, 'a', 'g', ['t-0'], ['t-1']),
      ev(5 * S, 'scenario.end', 'scenario', { durationMs: 5000, quietMs: 0 }),
    ];
    // t-1 waited from 1 s to the end at 5 s: 4 s over 2 partitions.
    expect(figures(events)['rebalance.pause-ms.g']).toBe(2000);
  });
});
