/**
 * unavailability.longest-ms and unavailability.total-ms: per producer and partition, the stretches in which
 * records were outstanding and no acknowledgement arrived (healthy partitions answer within milliseconds). The
 * longest such stretch, and all stretches over a second added up, until the quiet period (or the end).
 *
 * Swept as the run goes: each answered send adds its invocation and its answer to its stream, and a stream
 * sweeps, in time order, the points no later send can come before (those before the oldest send still open),
 * keeping only the rest. The report adds the sends still open and sweeps what remains. A trace whose sends
 * change after their answer, or a longest stretch that two streams share (the first stream in send order
 * names it), is judged from the final history; so are the per-partition figures (partitionFigures.ts), for the
 * few partitions an expectation names.
 */
import { FIGURE, type CheckDefinition } from './check';
import { NumberList } from './history/columns';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result, type CheckResult } from './report';

/**
 * A stream sweeps once this many points wait in it (or twice as many as its last sweep left, when the oldest open
 * send holds them back): few, so the lists a record is added to stay in cache; the sweep's result is the same
 * whenever it runs.
 */
const SWEEP_AT = 64;

/** The sends of one (producer, partition), swept in time order: invocations open a stretch, answers close it. */
class Stream {
  /** Points not swept yet: invocation and answer times (answers come in time order; invocations nearly). */
  private readonly invoked = new NumberList();
  /** Answer times, each with how many answers came then (a batch's records are answered at one instant). */
  private readonly answered = new NumberList();
  private readonly answerCounts = new NumberList();
  private invokedInOrder = true;
  /** The last invocation added (kept here so adding one does not read the list's memory back). */
  private lastInvoked = -Infinity;
  private pending = 0;
  private since = 0;
  /** Sweep when this many points wait. */
  sweepAt = SWEEP_AT;
  /** The first of its longest stretches (length 0: none yet), and its stretches over a second added up. */
  longest = 0;
  longestStart = 0;
  longestEnd = 0;
  total = 0;

  constructor(readonly key: number) {}

  get waiting(): number {
    return this.invoked.length + this.answered.length;
  }

  invoke(t: number): void {
    if (t < this.lastInvoked) this.invokedInOrder = false;
    this.lastInvoked = t;
    this.invoked.push(t);
  }

  /** The invocations `times[0, n)`, in that order (a batch's). */
  invokeAll(times: Float64Array, n: number): void {
    let last = this.lastInvoked;
    for (let i = 0; i < n; i++) {
      const t = times[i]!;
      if (t < last) this.invokedInOrder = false;
      last = t;
    }
    this.lastInvoked = last;
    this.invoked.pushAll(times, n);
  }

  /** `n` answers at `t` (answers at one instant sweep as one: the first closes the stretch, all end a wait). */
  answer(t: number, n = 1): void {
    const a = this.answered;
    if (a.length > 0 && a.last() === t) {
      this.answerCounts.addToLast(n);
      return;
    }
    a.push(t);
    this.answerCounts.push(n);
  }

  /** Puts the answers in time order (needed when they were not added in it). */
  sortAnswers(): void {
    const times = this.answered.view();
    const counts = this.answerCounts.view();
    const order = Array.from(times.keys()).sort((x, y) => times[x]! - times[y]! || x - y);
    const t = order.map((i) => times[i]!);
    const n = order.map((i) => counts[i]!);
    this.answered.dropFirst(this.answered.length);
    this.answerCounts.dropFirst(this.answerCounts.length);
    for (let i = 0; i < t.length; i++) this.answer(t[i]!, n[i]!);
  }

  /**
   * Sweeps the points before `horizon` (at one instant, answers first), closing stretches at `end` at the
   * latest, and drops them.
   */
  sweep(horizon: number, end: number): void {
    const invoked = this.invoked.view();
    if (!this.invokedInOrder) {
      invoked.sort();
      this.invokedInOrder = true;
    }
    const answered = this.answered.view();
    const counts = this.answerCounts.view();
    let i = 0;
    let j = 0;
    for (;;) {
      const a = j < answered.length ? answered[j]! : Infinity;
      const b = i < invoked.length ? invoked[i]! : Infinity;
      if (a <= b) {
        if (a >= horizon) break;
        if (this.pending > 0) this.close(a, end);
        this.pending = Math.max(0, this.pending - counts[j]!);
        this.since = a;
        j++;
      } else {
        if (b >= horizon) break;
        i++;
        if (this.pending === 0) this.since = b;
        this.pending++;
      }
    }
    this.invoked.dropFirst(i);
    this.answered.dropFirst(j);
    this.answerCounts.dropFirst(j);
  }

  /** The end of the run: what is still outstanding waits until `end`. */
  finish(end: number): void {
    this.sweep(Infinity, end);
    if (this.pending > 0) this.close(end, end);
  }

  private close(t: number, end: number): void {
    const until = Math.min(t, end);
    const gap = until - this.since;
    if (gap <= 0) return;
    if (gap > this.longest) {
      this.longest = gap;
      this.longestStart = this.since;
      this.longestEnd = until;
    }
    if (gap > 1_000_000) this.total += gap;
  }
}

/** Streams by (producer, partition), in the order they are first asked for; none for a send with no partition. */
class Streams {
  readonly list: Stream[] = [];
  /** By producer (node id), then by partition (tp id): answers come for every partition in turn, so no last-one cache would hit. */
  private readonly byProducer: (Stream | undefined)[][] = [];

  constructor(private readonly h: History) {}

  of(producer: number, tp: number): Stream | undefined {
    const mine = (this.byProducer[producer] ??= []);
    const known = mine[tp];
    if (known !== undefined) return known;
    if (this.h.tps.partition(tp) < 0) return undefined;
    const stream = new Stream(producer * 0x100000 + tp);
    mine[tp] = stream;
    this.list.push(stream);
    return stream;
  }
}

export const unavailability: CheckDefinition = {
  id: 'unavailability',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    const streams = new Streams(h);
    // No send to come can be invoked before the oldest one open, nor answered before now.
    const sweep = (stream: Stream, now: number) => {
      if (stream.waiting < stream.sweepAt) return;
      stream.sweep(s.oldestOpenUs(now), h.quietUs >= 0 ? h.quietUs : Infinity);
      stream.sweepAt = Math.max(SWEEP_AT, 2 * stream.waiting);
    };
    s.onComplete((a) => {
      if (a.length === 0) return;
      // The usual event: a batch of one producer to one partition, one stream.
      const p0 = a.producer[0]!;
      const tp0 = a.tp[0]!;
      let one = true;
      for (let k = 1; k < a.length && one; k++) one = a.producer[k] === p0 && a.tp[k] === tp0;
      if (one) {
        const stream = streams.of(p0, tp0);
        if (stream === undefined) return;
        stream.invokeAll(a.invokeUs, a.length);
        stream.answer(a.doneUs, a.length);
        sweep(stream, a.doneUs);
        return;
      }
      // Every answer of the event first: a sweep may only look at points no later send can come before.
      let last: Stream | undefined;
      let several = false;
      let answers = 0;
      for (let k = 0; k < a.length; k++) {
        const stream = streams.of(a.producer[k]!, a.tp[k]!);
        if (stream === undefined) continue;
        if (stream !== last) {
          if (last !== undefined) {
            several = true;
            last.answer(a.doneUs, answers);
          }
          last = stream;
          answers = 0;
        }
        stream.invoke(a.invokeUs[k]!);
        answers++;
      }
      if (last === undefined) return;
      last.answer(a.doneUs, answers);
      if (!several) sweep(last, a.doneUs);
      else {
        for (let k = 0; k < a.length; k++) {
          const stream = streams.of(a.producer[k]!, a.tp[k]!);
          if (stream !== undefined) sweep(stream, a.doneUs);
        }
      }
    });
    return {
      report: (out) => {
        const end = h.quietUs >= 0 ? h.quietUs : h.endUs;
        let found: Found | undefined;
        if (!s.irregular) {
          s.forEachOpen((v) => streams.of(s.producer(v), s.tp(v))?.invoke(s.invokeUs(v)));
          for (const x of streams.list) x.finish(end);
          found = longestOf(streams.list);
        }
        found ??= fromHistory(h, end);
        const r = figuresOf(h, found);
        out['unavailability.longest-ms'] = r.longest;
        out['unavailability.total-ms'] = r.total;
      },
    };
  },
};

/** The two figures of what was found: the longest stretch, named, and the total. */
function figuresOf(h: History, found: Found): { longest: CheckResult; total: CheckResult } {
  const lw = found.longest;
  const label = (key: number) => {
    const tp = key % 0x100000;
    return `${h.nodes.name((key - tp) / 0x100000)} ${h.where(tp)}`;
  };
  return {
    longest: result(
      lw ? Math.round(lw.longest / 1000) : 0,
      lw ? [`${label(lw.key)}: no acknowledgement from ${h.at(lw.longestStart)} to ${h.at(lw.longestEnd)} while records waited`] : [],
    ),
    total: result(Math.round(found.total / 1000)),
  };
}

/** The two figures over the partitions `keep` accepts, from the final history (one pass over every send). */
export function unavailabilityOf(h: History, keep: (tp: number) => boolean): { longest: CheckResult; total: CheckResult } {
  return figuresOf(h, fromHistory(h, h.quietUs >= 0 ? h.quietUs : h.endUs, keep));
}

interface Found {
  /** The stream with the longest stretch, if any. */
  readonly longest: Stream | undefined;
  readonly total: number;
}

/** The stream with the longest stretch (the first in `streams`' order among equals), and the total; undefined when two share it, unless `tiesAllowed`. */
function longestOf(streams: readonly Stream[], tiesAllowed = false): Found | undefined {
  let longest: Stream | undefined;
  let total = 0;
  let tied = false;
  for (const x of streams) {
    total += x.total;
    if (x.longest <= 0) continue;
    if (longest !== undefined && x.longest === longest.longest) tied = true;
    if (longest === undefined || x.longest > longest.longest) {
      longest = x;
      tied = false;
    }
  }
  return tied && !tiesAllowed ? undefined : { longest, total };
}

/** The streams from the final history, in the order their first send was made: one pass over every send. */
function fromHistory(h: History, end: number, keep: (tp: number) => boolean = () => true): Found {
  const s = h.sends;
  const streams = new Streams(h);
  s.forEach((v) => {
    if (!keep(s.tp(v))) return;
    const stream = streams.of(s.producer(v), s.tp(v));
    if (stream === undefined) return;
    stream.invoke(s.invokeUs(v));
    if (s.status(v) !== Status.Unknown) stream.answer(s.doneUs(v));
  });
  for (const x of streams.list) {
    x.sortAnswers();
    x.finish(end);
  }
  return longestOf(streams.list, true)!;
}
