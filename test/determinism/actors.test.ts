import { describe, expect, it } from 'vitest';
import { Actor, OPEN_GATE, type ActorContext, type Transport } from '../../sim/core/actor';
import { Random } from '../../sim/core/random';
import { Scheduler } from '../../sim/core/scheduler';
import { ms, seconds } from '../../sim/core/time';
import { Trace, makeHeader } from '../../sim/core/trace';

/** This test's own trace kinds (kept out of the simulator's registry). */
interface GossipKinds {
  'gossip.recv': { from: string; n: number };
}

/** Actors that gossip numbers to random peers after random delays: a small workload that uses every core piece. */
class Gossiper extends Actor {
  constructor(
    id: string,
    ctx: ActorContext,
    private readonly peers: string[],
  ) {
    super(id, ctx);
  }
  override onStart(): void {
    this.setTimer(ms(this.random.exponential(5)), () => this.tick(0));
  }
  private tick(n: number): void {
    this.send(this.random.choice(this.peers), { type: 'gossip', n });
    if (n < 200) this.setTimer(ms(this.random.exponential(5)), () => this.tick(n + 1));
  }
  onMessage(from: string, msg: unknown): void {
    (this.trace as unknown as Trace<GossipKinds>).emit('gossip.recv', this.id, { from, n: (msg as { n: number }).n });
  }
}

function runWorkload(seed: number): { hash: string; events: number } {
  const scheduler = new Scheduler();
  const trace = new Trace(scheduler, makeHeader('gossip', seed, {}), []);
  const root = Random.root(seed);
  const actors = new Map<string, Actor>();
  const netRandom = root.fork('net');
  const transport: Transport = {
    send(from, to, msg) {
      scheduler.after(ms(0.2 + netRandom.exponential(0.1)), () => actors.get(to)?.onMessage(from.id, msg));
    },
  };
  const ids = ['a', 'b', 'c', 'd'];
  for (const id of ids) {
    const ctx = { scheduler, trace, random: root.fork(id), transport, gate: OPEN_GATE };
    actors.set(id, new Gossiper(id, ctx, ids.filter((x) => x !== id)));
  }
  for (const a of actors.values()) a.onStart();
  scheduler.runUntil(seconds(10));
  return { hash: trace.hash(), events: trace.count };
}

describe('determinism of a small actor workload', () => {
  it('gives one trace hash for one seed, and different hashes for different seeds', () => {
    const a = runWorkload(1);
    const b = runWorkload(1);
    const c = runWorkload(2);
    expect(a.events).toBeGreaterThan(500);
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
  });

  it('a killed actor runs none of its timers', () => {
    const scheduler = new Scheduler();
    const trace = new Trace(scheduler, makeHeader('kill', 1, {}), []);
    let fired = 0;
    class T extends Actor {
      onMessage() {}
    }
    const t = new T('t', { scheduler, trace, random: Random.root(1), transport: { send() {} }, gate: OPEN_GATE });
    t.setTimer(10, () => fired++);
    t.setTimer(20, () => fired++);
    scheduler.runUntil(15);
    t.kill();
    scheduler.runUntilIdle();
    expect(fired).toBe(1);
    expect(t.setTimer(5, () => fired++)).toBe(-1);
  });
});
