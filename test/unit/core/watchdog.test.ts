import { describe, expect, it } from 'vitest';
import { Actor, OPEN_GATE, type ActorContext } from '../../../sim/core/actor';
import { ClockStalledError, Scheduler } from '../../../sim/core/scheduler';

/** An actor whose timer re-arms itself after `delay` for ever (delay 0: the clock never moves on). */
class Spinner extends Actor {
  fired = 0;
  constructor(
    ctx: ActorContext,
    private readonly delay: number,
  ) {
    super('spinner-1', ctx);
  }
  tick = (): void => {
    this.fired++;
    this.setTimer(this.delay, this.tick);
  };
  onMessage(): void {}
}

function actorIn(s: Scheduler, delay: number): Spinner {
  const ctx = { scheduler: s, gate: OPEN_GATE } as unknown as ActorContext;
  const a = new Spinner(ctx, delay);
  a.setTimer(5, a.tick);
  return a;
}

describe('the scheduler\'s progress watchdog', () => {
  it('stops a timer that re-arms itself at the same instant, naming whose timer it is', () => {
    const s = new Scheduler(16, 1000);
    const a = actorIn(s, 0);
    let caught: unknown;
    try {
      s.runUntil(1_000_000);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ClockStalledError);
    const e = caught as ClockStalledError;
    expect(e.atUs).toBe(5);
    expect(e.events).toBe(1000);
    expect(e.message).toMatch(/^the simulated clock stopped at 5us: more than 1000 events ran without it moving on; waiting there: a timer of spinner-1 \(\(\) => \{ this\.fired\+\+; this\.setTimer\(this\.delay, this\.tick\); \}\) \(1 event waiting at this instant\)$/);
    // It looked twice: the first look started the count, the second saw the clock where it was.
    expect(a.fired).toBeGreaterThanOrEqual(1000);
    expect(a.fired).toBeLessThanOrEqual(2000);
  });

  it('names a plain function by its name', () => {
    const s = new Scheduler(16, 100);
    const again = (): void => void s.after(0, again);
    s.after(0, again);
    expect(() => s.runUntilIdle()).toThrow(/waiting there: again\(\) \(1 event waiting at this instant\)/);
  });

  it('lets a clock that moves, however slowly, run on; and many events at one instant below the limit', () => {
    const s = new Scheduler(16, 1000);
    const a = actorIn(s, 1);
    s.runUntil(10_000);
    expect(a.fired).toBe(9996);
    const burst = new Scheduler(16, 1000);
    let ran = 0;
    for (let i = 0; i < 1500; i++) burst.at(7, () => ran++);
    burst.runUntilIdle();
    expect(ran).toBe(1500);
  });
});
