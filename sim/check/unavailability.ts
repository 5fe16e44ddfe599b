/**
 * unavailability.longest-ms and unavailability.total-ms: per producer and partition, the stretches in which
 * records were outstanding and no acknowledgement arrived (healthy partitions answer within milliseconds). The
 * longest such stretch, and all stretches over a second added up, until the quiet period (or the end).
 *
 * Each send adds two points to its stream when it is answered (its invocation and its answer), so the report
 * only adds the sends still open, sorts and sweeps. A trace whose sends change after their answer, or a longest
 * stretch that two streams share (the first stream in send order names it), is judged from the final history.
 */
import { FIGURE, type CheckDefinition } from './check';
import { NumberList } from './history/columns';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result } from './report';

/** The points of one (producer, partition): an invocation at t is 2t+1, an answer 2t, so at one instant answers sort first. */
interface Stream {
  readonly key: number;
  readonly points: NumberList;
}

interface Stretch {
  readonly stream: number;
  readonly start: number;
  readonly end: number;
}

export const unavailability: CheckDefinition = {
  id: 'unavailability',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    const streams: Stream[] = [];
    const streamOf = new Map<number, number>();
    let lastKey = -1;
    let last: Stream | undefined;
    const streamFor = (v: number): Stream | undefined => {
      const tp = s.tp(v);
      if (h.tps.partition(tp) < 0) return undefined;
      const key = s.producer(v) * 0x100000 + tp;
      if (key === lastKey) return last;
      let i = streamOf.get(key);
      if (i === undefined) {
        i = streams.length;
        streamOf.set(key, i);
        streams.push({ key, points: new NumberList() });
      }
      lastKey = key;
      return (last = streams[i]!);
    };
    s.onComplete((v) => {
      const stream = streamFor(v);
      if (stream === undefined) return;
      stream.points.push(s.invokeUs(v) * 2 + 1);
      stream.points.push(s.doneUs(v) * 2);
    });
    return {
      report: (out) => {
        const end = h.quietUs >= 0 ? h.quietUs : h.endUs;
        let found: { longest: Stretch | undefined; total: number; keys: readonly number[] } | undefined;
        if (!s.irregular) {
          s.forEachOpen((v) => streamFor(v)?.points.push(s.invokeUs(v) * 2 + 1));
          const swept = sweep(
            streams.map((x) => x.points.view()),
            end,
          );
          if (!swept.tied) found = { ...swept, keys: streams.map((x) => x.key) };
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

/**
 * Sweeps each stream's points in time order: the longest stretch (the first of the longest in stream order, and
 * whether another stream has one as long), and the sum of stretches over a second.
 */
function sweep(streams: readonly Float64Array[], end: number): { longest: Stretch | undefined; total: number; tied: boolean } {
  let longest: Stretch | undefined;
  let tied = false;
  let total = 0;
  streams.forEach((list, stream) => {
    list.sort();
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
    for (const x of list) {
      const t = Math.floor(x / 2);
      if (x % 2 === 1) {
        if (pending === 0) since = t;
        pending++;
      } else {
        if (pending > 0) close(t);
        pending = Math.max(0, pending - 1);
        since = t;
      }
    }
    if (pending > 0) close(end);
  });
  return { longest, total, tied };
}

/** The streams from the final history, in the order their first send was made: one pass over every send. */
function fromHistory(h: History, end: number): { longest: Stretch | undefined; total: number; keys: readonly number[] } {
  const s = h.sends;
  const streamOf = new Map<number, number>();
  const lists: NumberList[] = [];
  const keys: number[] = [];
  s.forEach((v) => {
    const tp = s.tp(v);
    if (h.tps.partition(tp) < 0) return;
    const key = s.producer(v) * 0x100000 + tp;
    let i = streamOf.get(key);
    if (i === undefined) {
      i = lists.length;
      streamOf.set(key, i);
      lists.push(new NumberList());
      keys.push(key);
    }
    lists[i]!.push(s.invokeUs(v) * 2 + 1);
    if (s.status(v) !== Status.Unknown) lists[i]!.push(s.doneUs(v) * 2);
  });
  const { longest, total } = sweep(
    lists.map((l) => l.view()),
    end,
  );
  return { longest, total, keys };
}
