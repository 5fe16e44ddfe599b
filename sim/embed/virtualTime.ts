import { install, type Clock as InstalledClock } from '@sinonjs/fake-timers';
import type { Random } from '../core/random';
import type { Micros } from '../core/time';
import type { World } from '../world/world';

/**
 * The edge between the simulation (synchronous, deterministic, on its own clock) and an application's async code
 * (real promises, kafkajs's timers). While `run` is going, setTimeout, setInterval, setImmediate and Date belong to (determinism-ok: faked)
 * one fake clock that reads `epochMs` plus the simulated time, and the simulation advances only when the
 * application is idle: after every step, one real macrotask turn lets every promise and nextTick the step set off
 * run to completion; then the next step goes to whichever comes first, the simulation's next event or the
 * application's next timer. What the simulated network delivers to the application is queued by the step and
 * handed over between steps, so application code never runs inside a simulation event.
 *
 * Nothing here reads real time: the only real primitive is the macrotask turn that drains the microtasks, and the
 * order of what runs in it is fixed by the order of the queue. The same seed and the same application code give
 * the same run.
 */
export class VirtualTime {
  private clock: InstalledClock | null = null;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly world: World,
    /** Wall-clock milliseconds at simulated time 0. */
    readonly epochMs: number,
    /** The application's randomness while it runs (kafkajs draws retry jitter and broker choices from it). */
    private readonly random: Random,
  ) {}

  /** The application's clock now, in wall-clock milliseconds. */
  nowMs(): number {
    return this.epochMs + Math.floor(this.world.now / 1000);
  }

  /** Work for the application side (socket events), run after the current simulation step, in order. */
  deliver(fn: () => void): void {
    this.queue.push(fn);
  }

  /**
   * Runs `body` on simulated time until `endUs`: its timers are virtual and the simulation moves while it waits.
   * Resolves with its value once both it has settled and the simulation reached `endUs`; rejects at once if it
   * rejects, and if it has not settled by `endUs`.
   */
  async run<T>(body: () => Promise<T>, endUs: Micros): Promise<T> {
    if (this.clock) throw new Error('the simulated cluster is already running application code');
    // The real macrotask turn, taken before the fake timers replace it.
    const realSetImmediate = globalThis.setImmediate; // determinism-ok: the one real primitive, used only to drain microtasks
    const turn = () => new Promise<void>((resolve) => realSetImmediate(resolve));
    const restoreRandomness = seedRandomness(this.random);
    this.clock = install({
      now: this.nowMs(),
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'Date', 'hrtime'], // determinism-ok: what becomes virtual
      loopLimit: 1_000_000,
    });
    let settled = false;
    let failed = false;
    let value: T | undefined;
    let error: unknown;
    try {
      body().then(
        (v) => {
          settled = true;
          value = v;
        },
        (e: unknown) => {
          settled = true;
          failed = true;
          error = e;
        },
      );
      for (;;) {
        await turn(); // determinism-ok: lets the application run until it waits again
        if (failed) throw error;
        if (this.world.now >= endUs && this.queue.length === 0) break;
        this.step(endUs);
      }
      if (!settled) {
        throw new Error(
          `the application was still running at the end of the scenario (${(endUs / 1e6).toFixed(3)} s of simulated time): ` +
            'let it finish its work and disconnect its clients inside run(), or give the scenario a longer duration',
        );
      }
      return value as T;
    } finally {
      this.clock.uninstall();
      this.clock = null;
      this.queue.length = 0;
      restoreRandomness();
    }
  }

  /** Runs the application's clock to the simulated time, firing its timers that fell due. */
  private syncClock(): void {
    const clock = this.clock!;
    // A tick of 0 still fires what is due now (a setTimeout of 0 ms on the fake clock; determinism-ok).
    clock.tick(Math.max(0, this.nowMs() - clock.now));
  }

  /** The simulation's next step: to the first event or application timer, stopping early when the application has mail. */
  private step(endUs: Micros): void {
    const w = this.world;
    const nextTimer = nextTimerMs(this.clock!);
    const timerUs = nextTimer === null ? Number.POSITIVE_INFINITY : Math.max(w.now, (nextTimer - this.epochMs) * 1000);
    const limit = Math.min(timerUs, endUs);
    while (this.queue.length === 0) {
      const t = w.scheduler.peekTime();
      if (t === null || t > limit) break;
      w.runUntil(t);
    }
    if (this.queue.length === 0 && w.now < limit) w.runUntil(limit);
    this.syncClock();
    const work = this.queue.splice(0);
    for (const fn of work) fn();
  }
}

/**
 * Math.random and crypto.getRandomValues draw from a seeded stream until the returned function restores them: (determinism-ok)
 * kafkajs picks brokers and retry delays with Math.random, and the first partition of unkeyed records with (determinism-ok)
 * getRandomValues, and a run must not depend on real randomness.
 */
function seedRandomness(random: Random): () => void {
  const realRandom = Math.random; // determinism-ok: saved to be restored after the run
  Math.random = () => random.next(); // determinism-ok: the application's randomness, from the run's seed
  const crypto = globalThis.crypto as (Crypto & { getRandomValues: Crypto['getRandomValues'] }) | undefined;
  const own = crypto === undefined ? undefined : Object.getOwnPropertyDescriptor(crypto, 'getRandomValues');
  if (crypto) {
    Object.defineProperty(crypto, 'getRandomValues', {
      configurable: true,
      writable: true,
      value: <T extends ArrayBufferView | null>(array: T): T => {
        if (array) {
          const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
          for (let i = 0; i < bytes.length; i++) bytes[i] = random.int(0, 256);
        }
        return array;
      },
    });
  }
  return () => {
    Math.random = realRandom; // determinism-ok: restoring the real one after the run
    if (crypto && own) Object.defineProperty(crypto, 'getRandomValues', own);
    else if (crypto) delete (crypto as { getRandomValues?: unknown }).getRandomValues;
  };
}

/**
 * When the application's next timer is due (wall-clock ms), or null. fake-timers has no public way to ask without
 * firing it; its timer heap (of the pinned 15.5.0) keeps the earliest first.
 */
function nextTimerMs(clock: InstalledClock): number | null {
  const heap = (clock as unknown as { timerHeap?: { peek(): { callAt: number } | undefined } }).timerHeap;
  if (heap === undefined) return clock.countTimers() === 0 ? null : clock.now;
  const first = heap.peek();
  return first === undefined ? null : first.callAt;
}
