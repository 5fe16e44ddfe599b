import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Scheduler, type TimerId } from '../../../sim/core/scheduler';

// A model: the list of (time, seq) of live events; the next to run is the smallest.
interface Model {
  now: number;
  live: { time: number; seq: number; id: TimerId }[];
  seq: number;
  ran: number[];
}
interface Real {
  s: Scheduler;
  ran: number[];
}

class Schedule implements fc.Command<Model, Real> {
  constructor(readonly delay: number) {}
  check() {
    return true;
  }
  run(m: Model, r: Real) {
    const seq = m.seq++;
    const id = r.s.after(this.delay, (x: number) => r.ran.push(x), seq);
    m.live.push({ time: m.now + this.delay, seq, id });
  }
  toString() {
    return `after(${this.delay})`;
  }
}
class Cancel implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check(m: Model) {
    return m.live.length > 0;
  }
  run(m: Model, r: Real) {
    const i = this.pick % m.live.length;
    const [e] = m.live.splice(i, 1);
    expect(r.s.cancel(e!.id)).toBe(true);
    expect(r.s.cancel(e!.id)).toBe(false);
  }
  toString() {
    return `cancel(#${this.pick})`;
  }
}
class Step implements fc.Command<Model, Real> {
  check() {
    return true;
  }
  run(m: Model, r: Real) {
    m.live.sort((a, b) => a.time - b.time || a.seq - b.seq);
    const next = m.live.shift();
    expect(r.s.step()).toBe(next !== undefined);
    if (next) {
      m.now = next.time;
      m.ran.push(next.seq);
      expect(r.s.now).toBe(next.time);
    }
    expect(r.ran).toEqual(m.ran);
    expect(r.s.pending).toBe(m.live.length);
  }
  toString() {
    return 'step';
  }
}

describe('Scheduler against a sorted-list model', () => {
  it('runs exactly the live events, in (time, seq) order', () => {
    const cmds = [
      fc.integer({ min: 0, max: 20 }).map((d) => new Schedule(d)),
      fc.nat().map((p) => new Cancel(p)),
      fc.constant(new Step()),
    ];
    fc.assert(
      fc.property(fc.commands(cmds, { maxCommands: 300, size: 'large' }), (c) => {
        fc.modelRun(() => ({ model: { now: 0, live: [], seq: 0, ran: [] }, real: { s: new Scheduler(1), ran: [] } }), c);
      }),
      { numRuns: 200 },
    );
  });
});
