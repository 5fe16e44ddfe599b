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

describe('rebalance figures alike for both protocols', () => {
  it('a member that gives up a partition another member already owns (a zombie catching up) pauses nothing', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0']),
      assignment(0, 'b', 'g', ['t-1']),
      // a fell out of the group; b took t-0 at 2 s; a learns it lost t-0 only at 6 s.
      assignment(2 * S, 'b', 'g', ['t-0', 't-1']),
      assignment(6 * S, 'a', 'g', [], ['t-0']),
      ev(10 * S, 'scenario.end', 'scenario', { durationMs: 10000, quietMs: 0 }),
    ];
    const f = figures(events);
    expect(f['rebalance.pause-ms.g']).toBe(0);
    // t-0 moved once, from a to b; a's own pause runs from 6 s to the end at 10 s.
    expect(f['partitions.moved.g']).toBe(1);
    expect(f['member.pause-ms.a']).toBe(4000);
    expect(f['member.pause-ms.b']).toBe(0);
  });

  it('partitions moved count hand-overs between members, not first assignments nor a partition back to its last owner', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0', 't-1']), // first assignments: nothing moved
      assignment(0, 'b', 'g', ['t-2', 't-3']),
      // eager: everyone gives everything up; range hands a t-0, t-1, t-2 and b only t-3.
      assignment(1 * S, 'a', 'g', [], ['t-0', 't-1']),
      assignment(1 * S, 'b', 'g', [], ['t-2', 't-3']),
      assignment(2 * S, 'a', 'g', ['t-0', 't-1', 't-2']), // t-2 moved b -> a; t-0, t-1 came back to a
      assignment(2 * S, 'b', 'g', ['t-3']),
    ];
    const f = figures(events);
    expect(f['partitions.moved.g']).toBe(1);
    // Both members owned nothing from 1 s to 2 s.
    expect(f['member.pause-ms.a']).toBe(1000);
    expect(f['member.pause-ms.b']).toBe(1000);
  });

  it('a member that keeps some partitions through a rebalance does not pause; a crash ends a pause uncounted', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      assignment(0, 'a', 'g', ['t-0', 't-1']),
      assignment(1 * S, 'a', 'g', ['t-0'], ['t-1']),
      assignment(2 * S, 'c', 'g', ['t-1']),
      assignment(3 * S, 'c', 'g', [], ['t-1']),
      ev(4 * S, 'host.crash', 'c', { processes: ['c'] }),
      ev(9 * S, 'scenario.end', 'scenario', { durationMs: 9000, quietMs: 0 }),
    ];
    const f = figures(events);
    expect(f['member.pause-ms.a']).toBe(0);
    expect(f['member.pause-ms.c']).toBe(0);
  });

  it('a consumer-protocol group rebalances at each group epoch it moves to with members in it', () => {
    const epoch = (t: number, epochN: number, members: number) => ev(t, 'group.consumer.epoch', 'broker-1', { group: 'k', epoch: epochN, reason: 'x', members });
    const events = [
      poll(0, 'a', 'k', 0, [0]),
      epoch(1 * S, 1, 1),
      epoch(2 * S, 2, 2),
      epoch(3 * S, 3, 1),
      // The last member left: the epoch moves, but nobody is left to rebalance.
      epoch(4 * S, 4, 0),
    ];
    expect(figures(events)['rebalances.k']).toBe(3);
  });
});

describe('a static member restarted under the same group.instance.id', () => {
  const join = (t: number, node: string, instance: string | null) => ev(t, 'group.member.join', 'broker-1', { group: 'g', memberId: `${node}-m`, groupInstanceId: instance, clientId: node, replaced: null });
  it('is the same member: its partitions coming back to the new incarnation neither moved nor paused for a rebalance', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      join(0, 'a', 'app-1'),
      assignment(0, 'a', 'g', ['t-0']),
      assignment(1 * S, 'a', 'g', [], ['t-0']), // closes (a static member sends no LeaveGroup)
      join(3 * S, 'a-v2', 'app-1'),
      assignment(3 * S, 'a-v2', 'g', ['t-0']),
    ];
    const f = figures(events);
    expect(f['partitions.moved.g']).toBe(0);
    expect(f['rebalance.pause-ms.g']).toBe(0);
  });

  it('a dynamic member\'s successor is another member: the hand-over counts, and so does the wait', () => {
    const events = [
      poll(0, 'a', 'g', 0, [0]),
      join(0, 'a', null),
      assignment(0, 'a', 'g', ['t-0']),
      assignment(1 * S, 'a', 'g', [], ['t-0']),
      join(3 * S, 'a-v2', null),
      assignment(3 * S, 'a-v2', 'g', ['t-0']),
    ];
    const f = figures(events);
    expect(f['partitions.moved.g']).toBe(1);
    // t-0 waited 2 s, the group's only partition.
    expect(f['rebalance.pause-ms.g']).toBe(2000);
  });
});
