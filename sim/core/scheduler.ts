import { formatTime, type Micros } from './time';
import { widened } from './typedArrays';

/** A function the scheduler calls with the argument it was scheduled with. */
export type EventFn<A = any> = (arg: A) => void;

/**
 * Identifies a scheduled event so it can be cancelled. It encodes a slot and that slot's generation,
 * so cancelling an event that already ran (and whose slot was reused) is a harmless no-op.
 */
export type TimerId = number;

/** Returned by nothing; a TimerId that never refers to an event. Safe to pass to `cancel`. */
export const NO_TIMER: TimerId = -1;

const SLOT_BITS = 2 ** 24;

/** The heap is compacted when it holds more than this many cancelled entries and they outnumber the live ones. */
const COMPACT_MIN_CANCELLED = 1024;

export class SchedulingError extends Error {}

/**
 * How many events may run without the simulated clock moving on before the run is stopped: far more than any
 * instant of a healthy run holds (a burst of sends at one moment is thousands), and still only a few seconds
 * of wall time.
 */
export const DEFAULT_STALL_EVENTS = 2_000_000;

/**
 * The watchdog's verdict: the clock stood still for `events` events, because something re-arms itself at the
 * same instant for ever. `culprit` says which events were waiting at that instant (whose timer, and its code).
 */
export class ClockStalledError extends Error {
  constructor(
    readonly atUs: Micros,
    readonly events: number,
    readonly culprit: string,
  ) {
    super(`the simulated clock stopped at ${formatTime(atUs)}: more than ${events} events ran without it moving on; waiting there: ${culprit}`);
    this.name = 'ClockStalledError';
  }
}

/** Plain words for a pending event: an actor's timer names its actor (see Actor.setTimer), any other its function. */
function describeEvent(fn: EventFn, arg: unknown): string {
  const code = (f: unknown) => {
    const text = String(f).replace(/\s+/g, ' ');
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  const timer = arg as { actor?: { id?: unknown }; fn?: unknown } | null;
  if (typeof timer === 'object' && timer !== null && typeof timer.actor?.id === 'string' && typeof timer.fn === 'function') {
    return `a timer of ${timer.actor.id} (${code(timer.fn)})`;
  }
  return fn.name ? `${fn.name}()` : code(fn);
}

/**
 * The discrete-event engine: a binary heap ordered by (time, insertion sequence), so events at equal
 * times run first-in first-out. Keys live in typed arrays (struct of arrays) and payloads in a slot
 * table: a comparison never dereferences an object, which keeps the heap fast with many pending events.
 *
 * Cancellation is lazy and O(1): the slot is marked and the heap entry is skipped when it surfaces. Timers that
 * are re-armed again and again (request timeouts, session deadlines) leave cancelled entries far in the future
 * that would surface only much later, so once they are the larger part of a big heap it is rebuilt from the
 * live entries alone (amortised O(1) per cancel; the (time, seq) keys keep the order).
 */
export class Scheduler {
  private _now: Micros = 0;
  private nextSeq = 0;
  private _eventsRun = 0;

  // The heap: parallel arrays of (time, slot); an entry's insertion sequence lives with its slot (sSeq), read
  // only when two times tie, so sifting moves two words per entry, not three.
  private hTime: Float64Array;
  private hSlot: Int32Array;
  private size = 0;

  // The slot table: what to run, with what, its sequence number, and whether it was cancelled.
  private sFn: (EventFn | null)[] = [];
  private sArg: unknown[] = [];
  private sSeq: Float64Array;
  private sGen: Int32Array;
  private sLive: Uint8Array;
  // Free slots as a stack (most recently freed first, so the tables stay small and warm).
  private free: Int32Array;
  private freeTop = 0;
  private slotCount = 0;
  private cancelledPending = 0;

  // The watchdog: every `stallEvents` events it looks whether the clock moved since it last looked.
  private readonly stallEvents: number;
  private watchLeft: number;
  private watchedAt: Micros = -1;

  constructor(initialCapacity = 1024, stallEvents = DEFAULT_STALL_EVENTS) {
    this.stallEvents = stallEvents;
    this.watchLeft = stallEvents;
    this.hTime = new Float64Array(initialCapacity);
    this.hSlot = new Int32Array(initialCapacity);
    this.sSeq = new Float64Array(initialCapacity);
    this.sGen = new Int32Array(initialCapacity);
    this.sLive = new Uint8Array(initialCapacity);
    this.free = new Int32Array(initialCapacity);
  }

  /** The current simulated time. */
  get now(): Micros {
    return this._now;
  }

  /** How many events have been dispatched (cancelled ones are not counted). */
  get eventsRun(): number {
    return this._eventsRun;
  }

  /** Scheduled events not yet run and not cancelled. */
  get pending(): number {
    return this.size - this.cancelledPending;
  }

  /** Entries in the heap, cancelled ones included (what it costs in memory). */
  get heapEntries(): number {
    return this.size;
  }

  /** True when no live event is waiting. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** Time of the next live event, or null when idle. Drops cancelled entries on the way. */
  peekTime(): Micros | null {
    this.dropCancelledHead();
    return this.size === 0 ? null : this.hTime[0]!;
  }

  /**
   * Schedules `fn(arg)` at absolute time `time`. `who` names the scheduler's caller in the error raised
   * when the time is in the past (defaults to the function's name).
   */
  at<A>(time: Micros, fn: EventFn<A>, arg?: A, who?: string): TimerId {
    if (!(time >= this._now) || !Number.isFinite(time)) {
      throw new SchedulingError(
        `cannot schedule ${who ?? (fn.name || 'an anonymous event')} at ${Number.isFinite(time) ? formatTime(time) : String(time)}: ` +
          `that is before the current time ${formatTime(this._now)}`,
      );
    }
    const slot = this.allocSlot(fn as EventFn, arg);
    this.push(time, slot);
    return this.sGen[slot]! * SLOT_BITS + slot;
  }

  /** Schedules `fn(arg)` after `delay` microseconds from now. */
  after<A>(delay: Micros, fn: EventFn<A>, arg?: A, who?: string): TimerId {
    if (!(delay >= 0)) {
      throw new SchedulingError(
        `cannot schedule ${who ?? (fn.name || 'an anonymous event')} after a negative delay (${delay}us)`,
      );
    }
    return this.at(this._now + delay, fn, arg, who);
  }

  /** Cancels a scheduled event. Returns false if it already ran, was cancelled, or never existed. */
  cancel(id: TimerId): boolean {
    if (id < 0) return false;
    // Ids pass 2^31, so no integer bit operations; a division by a power of two and a floor are exact and
    // cheaper than the floating-point remainder.
    const gen = Math.floor(id / SLOT_BITS);
    const slot = id - gen * SLOT_BITS;
    if (slot >= this.slotCount || this.sGen[slot] !== gen || this.sLive[slot] !== 1) return false;
    this.sLive[slot] = 0;
    this.sFn[slot] = null;
    this.sArg[slot] = undefined;
    this.cancelledPending++;
    if (this.cancelledPending > COMPACT_MIN_CANCELLED && this.cancelledPending * 2 > this.size) this.compact();
    return true;
  }

  /** Drops every cancelled entry and rebuilds the heap from the live ones (Floyd's heapify, O(n)). */
  private compact(): void {
    const hTime = this.hTime;
    const hSlot = this.hSlot;
    let n = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = hSlot[i]!;
      if (this.sLive[slot] !== 1) {
        this.releaseCancelled(slot);
        continue;
      }
      hTime[n] = hTime[i]!;
      hSlot[n] = slot;
      n++;
    }
    this.size = n;
    this.cancelledPending = 0;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** Moves entry i down to its place below (a hole moves, not a swap). */
  private siftDown(i: number): void {
    const hTime = this.hTime;
    const hSlot = this.hSlot;
    const sSeq = this.sSeq;
    const n = this.size;
    const t = hTime[i]!;
    const sl = hSlot[i]!;
    const s = sSeq[sl]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let ct = hTime[c]!;
      const r = c + 1;
      if (r < n) {
        const rt = hTime[r]!;
        if (rt < ct || (rt === ct && sSeq[hSlot[r]!]! < sSeq[hSlot[c]!]!)) {
          c = r;
          ct = rt;
        }
      }
      if (t < ct || (t === ct && s < sSeq[hSlot[c]!]!)) break;
      hTime[i] = ct;
      hSlot[i] = hSlot[c]!;
      i = c;
    }
    hTime[i] = t;
    hSlot[i] = sl;
  }

  /** Runs the next live event. Returns false when there is none. */
  step(): boolean {
    while (this.size > 0) {
      const time = this.hTime[0]!;
      const slot = this.popSlot();
      if (this.sLive[slot] === 1) {
        const fn = this.sFn[slot]!;
        const arg = this.sArg[slot];
        this.releaseSlot(slot);
        this._now = time;
        this._eventsRun++;
        fn(arg);
        if (--this.watchLeft === 0) this.watch();
        return true;
      }
      this.cancelledPending--;
      this.releaseCancelled(slot);
    }
    return false;
  }

  /**
   * Runs every event whose time is at or before `time`, then advances the clock to `time`.
   * `maxEvents` bounds the work (a runaway model stops instead of hanging); returns how many ran.
   */
  runUntil(time: Micros, maxEvents = Number.POSITIVE_INFINITY): number {
    let ran = 0;
    while (ran < maxEvents) {
      this.dropCancelledHead();
      if (this.size === 0 || this.hTime[0]! > time) break;
      this.step();
      ran++;
    }
    if (ran < maxEvents && time > this._now) this._now = time;
    return ran;
  }

  /** Runs until no live event is left (or `maxEvents` ran). Returns how many ran. */
  runUntilIdle(maxEvents = Number.POSITIVE_INFINITY): number {
    let ran = 0;
    while (ran < maxEvents && this.step()) ran++;
    return ran;
  }

  /**
   * The watchdog's look (once per `stallEvents` events, so it costs nothing per event but a decrement): the
   * clock must have moved since the last look, else the run is stuck at one instant and stops with a
   * ClockStalledError naming what was waiting there.
   */
  private watch(): void {
    this.watchLeft = this.stallEvents;
    if (this._now !== this.watchedAt) {
      this.watchedAt = this._now;
      return;
    }
    const counts = new Map<string, number>();
    let waiting = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = this.hSlot[i]!;
      if (this.hTime[i] !== this._now || this.sLive[slot] !== 1) continue;
      waiting++;
      const d = describeEvent(this.sFn[slot]!, this.sArg[slot]);
      counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
    const culprit = top.length === 0 ? 'nothing is waiting at this instant (the event that ran last re-arms itself)' : `${top.map(([d, n]) => `${d}${n > 1 ? ` ×${n}` : ''}`).join('; ')} (${waiting} event${waiting === 1 ? '' : 's'} waiting at this instant)`;
    throw new ClockStalledError(this._now, this.stallEvents, culprit);
  }

  // ---- slots ----

  private allocSlot(fn: EventFn, arg: unknown): number {
    let slot: number;
    if (this.freeTop > 0) {
      slot = this.free[--this.freeTop]!;
      this.sFn[slot] = fn;
      this.sArg[slot] = arg;
    } else {
      slot = this.slotCount++;
      if (slot >= SLOT_BITS) throw new SchedulingError(`more than ${SLOT_BITS} events pending`);
      if (slot >= this.sGen.length) this.growSlots();
      this.sFn.push(fn);
      this.sArg.push(arg);
    }
    this.sLive[slot] = 1;
    return slot;
  }

  private growSlots(): void {
    const cap = this.sGen.length * 2;
    this.sGen = widened(this.sGen, cap);
    this.sLive = widened(this.sLive, cap);
    this.sSeq = widened(this.sSeq, cap);
    this.free = widened(this.free, cap);
  }

  /** A cancelled slot's function and argument were dropped when it was cancelled. */
  private releaseCancelled(slot: number): void {
    this.sGen[slot] = (this.sGen[slot]! + 1) & 0x1fffffff;
    this.free[this.freeTop++] = slot;
  }

  private releaseSlot(slot: number): void {
    this.sLive[slot] = 0;
    this.sFn[slot] = null;
    this.sArg[slot] = undefined;
    this.sGen[slot] = (this.sGen[slot]! + 1) & 0x1fffffff;
    this.free[this.freeTop++] = slot;
  }

  private dropCancelledHead(): void {
    while (this.size > 0 && this.sLive[this.hSlot[0]!] !== 1) {
      const slot = this.popSlot();
      this.cancelledPending--;
      this.releaseCancelled(slot);
    }
  }

  // ---- heap ----

  private push(time: Micros, slot: number): void {
    if (this.size === this.hTime.length) this.grow();
    const seq = this.nextSeq++;
    this.sSeq[slot] = seq;
    const hTime = this.hTime;
    const hSlot = this.hSlot;
    // Sift up by moving a hole, not by swapping. A new entry's sequence is the largest, so on a tie it stays below.
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = hTime[p]!;
      if (pt <= time) break;
      hTime[i] = pt;
      hSlot[i] = hSlot[p]!;
      i = p;
    }
    hTime[i] = time;
    hSlot[i] = slot;
  }

  /**
   * Removes the minimum and returns its slot. The caller checks size > 0. Bottom-up: the hole at the root moves
   * down to a leaf along the smaller children (one comparison a level), then the last entry, which belongs near
   * the bottom, moves up from there (usually not at all): about half the comparisons of a plain sift-down.
   */
  private popSlot(): number {
    const hTime = this.hTime;
    const hSlot = this.hSlot;
    const sSeq = this.sSeq;
    const top = hSlot[0]!;
    const n = --this.size;
    if (n === 0) return top;
    const t = hTime[n]!;
    const sl = hSlot[n]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      const r = c + 1;
      if (r < n) {
        const ct = hTime[c]!;
        const rt = hTime[r]!;
        if (rt < ct || (rt === ct && sSeq[hSlot[r]!]! < sSeq[hSlot[c]!]!)) c = r;
      }
      hTime[i] = hTime[c]!;
      hSlot[i] = hSlot[c]!;
      i = c;
    }
    const s = sSeq[sl]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = hTime[p]!;
      if (pt < t || (pt === t && sSeq[hSlot[p]!]! < s)) break;
      hTime[i] = pt;
      hSlot[i] = hSlot[p]!;
      i = p;
    }
    hTime[i] = t;
    hSlot[i] = sl;
    return top;
  }

  private grow(): void {
    const cap = this.hTime.length * 2;
    this.hTime = widened(this.hTime, cap);
    this.hSlot = widened(this.hSlot, cap);
  }
}
