/**
 * unavailability.longest-ms and unavailability.total-ms: per producer and partition, the stretches in which
 * records were outstanding and no acknowledgement arrived (healthy partitions answer within milliseconds). The
 * longest such stretch, and all stretches over a second added up, until the quiet period (or the end).
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const unavailability: CheckDefinition = {
  id: 'unavailability',
  source: FIGURE,
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      const end = h.quietUs >= 0 ? h.quietUs : h.endUs;
      // Streams by (producer, partition), in the order they first appear; each send adds its invocation as 2t+1
      // and its completion as 2t, so sorted as numbers a completion comes before an invocation at one instant.
      const streamOf = new Map<number, number>();
      const lengths: number[] = [];
      const names: number[] = [];
      const streamIds: number[] = [];
      s.forEach((v) => {
        const tp = s.tp(v);
        if (h.tps.partition(tp) < 0) return;
        const key = s.producer(v) * 0x100000 + tp;
        let i = streamOf.get(key);
        if (i === undefined) {
          i = lengths.length;
          streamOf.set(key, i);
          lengths.push(0);
          names.push(key);
        }
        lengths[i]! += s.status(v) !== 1 ? 2 : 1;
        streamIds.push(i);
      });
      const streams = lengths.map((n) => new Float64Array(n));
      const fill = new Array<number>(lengths.length).fill(0);
      let k = 0;
      s.forEach((v) => {
        if (h.tps.partition(s.tp(v)) < 0) return;
        const i = streamIds[k++]!;
        const list = streams[i]!;
        list[fill[i]!++] = s.invokeUs(v) * 2 + 1;
        if (s.status(v) !== 1) list[fill[i]!++] = s.doneUs(v) * 2;
      });
      let longest: { stream: number; start: number; end: number } | undefined;
      let total = 0;
      streams.forEach((list, stream) => {
        list.sort();
        let pending = 0;
        let since = 0;
        const close = (t: number) => {
          const gap = Math.min(t, end) - since;
          if (gap <= 0) return;
          if (!longest || gap > longest.end - longest.start) longest = { stream, start: since, end: Math.min(t, end) };
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
      const lw = longest as { stream: number; start: number; end: number } | undefined;
      const label = (stream: number) => {
        const key = names[stream]!;
        const tp = key % 0x100000;
        return `${h.nodes.name((key - tp) / 0x100000)} ${h.where(tp)}`;
      };
      out['unavailability.longest-ms'] = result(
        lw ? Math.round((lw.end - lw.start) / 1000) : 0,
        lw ? [`${label(lw.stream)}: no acknowledgement from ${h.at(lw.start)} to ${h.at(lw.end)} while records waited`] : [],
      );
      out['unavailability.total-ms'] = result(Math.round(total / 1000));
    },
  }),
};
