import { describe, expect, it } from 'vitest';
import { NetworkClient, type Outcome } from '../../../sim/kafka/net/networkClient';
import type { Process } from '../../../sim/world/process';
import { Admin } from '../../../sim/kafka/admin';
import { seconds } from '../../../sim/core/time';
import { addTestProcess, makeWorld } from '../world/harness';

/** A process that records what it sends and runs its timers when told. */
function owner() {
  const sent: { to: string; msg: { correlationId: number } & Record<string, unknown> }[] = [];
  const timers = new Map<number, () => void>();
  const disconnects: string[] = [];
  let next = 1;
  const p = {
    send: (to: string, msg: never) => sent.push({ to, msg }),
    setTimer: (_d: number, fn: () => void) => {
      timers.set(next, fn);
      return next++;
    },
    cancelTimer: (id: number) => timers.delete(id),
    disconnect: (to: string) => disconnects.push(to),
  } as unknown as Process;
  return { p, sent, timers, disconnects };
}

describe('NetworkClient', () => {
  it('stamps the correlation id on the body it is handed (the body is the message), one id per request', () => {
    const o = owner();
    const net = new NetworkClient(o.p);
    const a = { type: 'Metadata', topics: null };
    const b = { type: 'Metadata', topics: null };
    const ids = [net.send('broker-1', a, { timeoutMs: 100 }, () => {}), net.send('broker-2', b, { timeoutMs: 100 }, () => {})];
    expect(ids).toEqual([1, 2]);
    expect(o.sent[0]!.msg).toBe(a);
    expect(o.sent[1]!.msg).toBe(b);
    // The same fields in the same order as a copy with the id appended (what traces and the wire encode).
    expect(Object.keys(a)).toEqual(['type', 'topics', 'correlationId']);
    expect(a).toEqual({ type: 'Metadata', topics: null, correlationId: 1 });
    expect(net.inFlight('broker-1')).toBe(1);
  });

  it('routes a response to its request once; a timeout closes the connection and fails every request on it, oldest first', () => {
    const o = owner();
    const net = new NetworkClient(o.p);
    const outcomes: [number, Outcome<unknown>][] = [];
    for (let i = 0; i < 3; i++) net.send('broker-1', { type: 'Heartbeat' }, { timeoutMs: 100 }, (r) => outcomes.push([i, r]));
    expect(net.handleResponse('broker-1', { correlationId: 2 })).toBe(true);
    expect(net.handleResponse('broker-1', { correlationId: 2 })).toBe(false); // answered already
    expect(net.handleResponse('broker-2', { correlationId: 1 })).toBe(false); // not from the node asked
    o.timers.get(1)!(); // request 1's timeout
    expect(o.disconnects).toEqual(['broker-1']);
    expect(outcomes).toEqual([
      [1, { ok: true, response: { correlationId: 2 } }],
      [0, { ok: false, error: 'REQUEST_TIMED_OUT' }],
      [2, { ok: false, error: 'REQUEST_TIMED_OUT' }],
    ]);
    expect(net.inFlight('broker-1')).toBe(0);
  });

  it('a body sent again (the admin client retrying a controller request) goes out as a copy each time: the message in flight keeps its id', () => {
    const world = makeWorld({ hosts: ['h1', 'h2'] });
    const heard: { correlationId: number }[] = [];
    // A controller that is not the active one: NOT_CONTROLLER to the first ask, the answer to the second.
    addTestProcess(world, 'h2', 'controller-1', {
      message: (p, from, msg) => {
        const m = msg as { correlationId: number };
        heard.push(m);
        p.send(from, heard.length === 1 ? { correlationId: m.correlationId, error: 'NOT_CONTROLLER', leaderHint: 'controller-1' } : { correlationId: m.correlationId, partitions: [] });
      },
    });
    let admin!: Admin;
    world.host('h1').addProcess({ id: 'admin', create: (ctx) => (admin = new Admin(ctx, 'admin', ['controller-1'], [])) });
    world.start();
    let answered = 0;
    world.scheduler.at(1000, () => admin.listPartitionReassignments(() => answered++));
    world.runUntil(seconds(2));
    expect(answered).toBe(1);
    expect(heard).toHaveLength(2);
    expect(heard[0]).not.toBe(heard[1]);
    expect(heard.map((m) => m.correlationId)).toEqual([1, 2]);
  });
});
