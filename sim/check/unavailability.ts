/**
 * unavailability.longest-ms and unavailability.total-ms: per producer and partition, the stretches in which
 * records were outstanding and no acknowledgement arrived (healthy partitions answer within milliseconds). The
 * longest such stretch, and all stretches over a second added up, until the quiet period (or the end).
 *
 * Each answered send adds its invocation and its answer to its stream's lists as it is answered (answers come
 * in time order; invocations nearly so), so the report only adds the sends still open and sweeps the two lists
 * merged. A trace whose sends change after their answer, or a longest stretch that two streams share (the first
 * stream in send order names it), is judged from the final history.
 */
import { FIGURE, type CheckDefinition } from './check';
import { NumberList } from './history/columns';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result } from './report';

/** The sends of one (producer, partition): when each was invoked, and when each was answered. */
class Stream {
  readonly invoked = new NumberList();
  readonly answered = new NumberList();
  /** Whether `invoked` is in time order (`answered` always is: answers are folded in trace order). */
  invokedInOrder = true;

  constructor(readonly key: number) {}

  invoke(t: number): void {
    if (this.invoked.length > 0 && t < this.invoked.last()) this.invokedInOrder = false;
    this.invoked.push(t);
  }

  /** Both lists in time order. */
  sorted(): { invoked: Float64Array; answered: Float64Array } {
    const invoked = this.invoked.view();
    if (!this.invokedInOrder) invoked.sort();
    return { invoked, answered: this.answered.view() };
  }
}

interface Stretch {
  readonly stream: number;
  readonly start: number;
  readonly end: number;
}

interface Found {
  readonly longest: Stretch | undefined;
  readonly total: number;
  readonly keys: readonly number[];
}

export const unavailability: CheckDefinition = {
  id: 'unavailability',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    const streams = new Streams(h);
    s.onComplete((a) => {
      const stream = streams.of(a.producer, a.tp);
      if (stream === undefined) return;
      stream.invoke(a.invokeUs);
      stream.answered.push(a.doneUs);
    });
    return {
      report: (out) => {
        const end = h.quietUs >= 0 ? h.quietUs : h.endUs;
        let found: Found | undefined;
        if (!s.irregular) {
          s.forEachOpen((v) => streams.of(s.producer(v), s.tp(v))?.invoke(s.invokeUs(v)));
          const swept = sweep(streams.list, end);
          if (!swept.tied) found = { ...swept, keys: streams.list.map((x) => x.key) };
        }
        found ??= fromHistory(h, end);
        const lw = found.longest;
        const keys = found.keys;
        const label = (stream: number) => {
          const key = keys[stream]!;
          const tp = key % 0x100000;
          return `${h.nodes.name((key - tp) / 0x100000)} ${h.where(tp)}`;
        };
        out['unavailability.longest-ms'] = result(
          lw ? Math.round((lw.end - lw.start) / 1000) : 0,
          lw ? [`${label(lw.stream)}: no acknowledgement from ${h.at(lw.start)} to ${h.at(lw.end)} while records waited`] : [],
        );
        out['unavailability.total-ms'] = result(Math.round(found.total / 1000));
      },
    };
  },
};

/** Streams by (producer, partition), in the order they are first asked for; none for a send with no partition. */
class Streams {
  readonly list: Stream[] = [];
  private readonly byKey = new Map<number, Stream>();
  private lastKey = -1;
  private last: Stream | undefined;

  constructor(private readonly h: History) {}

  of(producer: number, tp: number): Stream | undefined {
    if (this.h.tps.partition(tp) < 0) return undefined;
    const key = producer * 0x100000 + tp;
    if (key === this.lastKey) return this.last;
    let stream = this.byKey.get(key);
    if (stream === undefined) {
      stream = new Stream(key);
      this.byKey.set(key, stream);
      this.list.push(stream);
    }
    this.lastKey = key;
    return (this.last = stream);
  }
}

/**
 * Sweeps each stream's invocations and answers in time order (at one instant, answers first): the longest
 * stretch (the first of the longest in stream order, and whether another stream has one as long), and the sum
 * of the stretches over a second.
 */
function sweep(streams: readonly Stream[], end: number): { longest: Stretch | undefined; total: number; tied: boolean } {
  let longest: Stretch | undefined;
  let tied = false;
  let total = 0;
  streams.forEach((x, stream) => {
    const { invoked, answered } = x.sorted();
    let pending = 0;
    let since = 0;
    const close = (t: number) => {
      const gap = Math.min(t, end) - since;
      if (gap <= 0) return;
      if (longest && gap === longest.end - longest.start && longest.stream !== stream) tied = true;
      if (!longest || gap > longest.end - longest.start) {
        tied = false;
        longest = { stream, start: since, end: Math.min(t, end) };
      }
      if (gap > 1_000_000) total += gap;
    };
    let i = 0;
    let j = 0;
    while (i < invoked.length || j < answered.length) {
      if (j < answered.length && (i >= invoked.length || answered[j]! <= invoked[i]!)) {
        const t = answered[j++]!;
        if (pending > 0) close(t);
        pending = Math.max(0, pending - 1);
        since = t;
      } else {
        const t = invoked[i++]!;
        if (pending === 0) since = t;
        pending++;
      }
    }
    if (pending > 0) close(end);
  });
  return { longest, total, tied };
}

/** The streams from the final history, in the order their first send was made: one pass over every send. */
function fromHistory(h: History, end: number): Found {
  const s = h.sends;
  const streams = new Streams(h);
  s.forEach((v) => {
    const stream = streams.of(s.producer(v), s.tp(v));
    if (stream === undefined) return;
    stream.invoke(s.invokeUs(v));
    if (s.status(v) !== Status.Unknown) stream.answered.push(s.doneUs(v));
  });
  for (const x of streams.list) {
    const answered = x.answered.view();
    answered.sort();
  }
  const { longest, total } = sweep(streams.list, end);
  return { longest, total, keys: streams.list.map((x) => x.key) };
}
