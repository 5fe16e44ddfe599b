import { Scheduler } from '../../sim/core/scheduler';

/**
 * The engine workload: a "hold" model with about 10,000 timers in the heap, half of them cancelled.
 * Every dispatched event schedules its successor plus a decoy that it cancels at once, so the heap
 * always holds ~5,000 live and ~5,000 cancelled entries. The baseline is a bare (time, seq) binary heap
 * doing the same pushes and pops with no dispatch, no slots and no cancellation: the physical limit.
 */
const LIVE = 5_000;
const DELAYS = (() => {
  // Exponential delays (mean 1,000 us) from a fixed LCG: the same numbers in every run and process.
  const out = new Float64Array(1 << 16);
  let x = 12345;
  for (let i = 0; i < out.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = Math.max(1, Math.round(-1000 * Math.log(1 - x / 4294967296)));
  }
  return out;
})();

/** Wall and CPU seconds of `f` (CPU: this process's user + system time, what a loaded machine does not inflate). */
function timed(f: () => void): { seconds: number; cpuSeconds: number } {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  f();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  return { seconds, cpuSeconds: (c.user + c.system) / 1e6 };
}

export function runEngine(events: number): { events: number; seconds: number; cpuSeconds: number } {
  const s = new Scheduler(1 << 15);
  let k = 0;
  let fired = 0;
  const tick = (): void => {
    fired++;
    if (fired + LIVE > events) return;
    s.after(DELAYS[k++ & 0xffff]!, tick);
    const decoy = s.after(DELAYS[k++ & 0xffff]!, tick);
    s.cancel(decoy);
  };
  for (let i = 0; i < LIVE; i++) {
    s.after(DELAYS[k++ & 0xffff]!, tick);
    s.cancel(s.after(DELAYS[k++ & 0xffff]!, tick));
  }
  const t = timed(() => s.runUntilIdle());
  return { events: s.eventsRun, ...t };
}

/** The same pushes and pops on a bare heap: entries for live and decoy events alike. */
export function runBaseline(events: number): { events: number; seconds: number; cpuSeconds: number } {
  let cap = 1 << 15;
  let time = new Float64Array(cap);
  let seq = new Float64Array(cap);
  let size = 0;
  let nextSeq = 0;
  let now = 0;
  const push = (t: number): void => {
    if (size === cap) {
      cap *= 2;
      const nt = new Float64Array(cap);
      nt.set(time);
      time = nt;
      const ns = new Float64Array(cap);
      ns.set(seq);
      seq = ns;
    }
    const q = nextSeq++;
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (time[p]! < t || (time[p] === t && seq[p]! < q)) break;
      time[i] = time[p]!;
      seq[i] = seq[p]!;
      i = p;
    }
    time[i] = t;
    seq[i] = q;
  };
  const pop = (): number => {
    const top = time[0]!;
    const n = --size;
    if (n > 0) {
      const t = time[n]!;
      const q = seq[n]!;
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && (time[c + 1]! < time[c]! || (time[c + 1] === time[c] && seq[c + 1]! < seq[c]!))) c++;
        if (t < time[c]! || (t === time[c] && q < seq[c]!)) break;
        time[i] = time[c]!;
        seq[i] = seq[c]!;
        i = c;
      }
      time[i] = t;
      seq[i] = q;
    }
    return top;
  };
  let k = 0;
  for (let i = 0; i < LIVE; i++) {
    push(now + DELAYS[k++ & 0xffff]!);
    push(now + DELAYS[k++ & 0xffff]!);
  }
  // Half of the popped entries stand for cancelled decoys: they are popped but schedule nothing.
  let fired = 0;
  let live = 0;
  const t = timed(() => {
    while (size > 0) {
      now = pop();
      // Alternate: treat every other pop as a live event (the engine pops live and cancelled alike).
      if ((live++ & 1) === 0) {
        fired++;
        if (fired + LIVE <= events) {
          push(now + DELAYS[k++ & 0xffff]!);
          push(now + DELAYS[k++ & 0xffff]!);
        }
      }
    }
  });
  return { events: fired, ...t };
}
