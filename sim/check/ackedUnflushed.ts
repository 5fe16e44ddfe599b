/**
 * acked-unflushed: records acknowledged while no replica had them on disk — only in page cache, so a
 * correlated power loss can take them although every replica acknowledged (Kafka leaves fsync to the OS by
 * default: flush.messages and flush.ms are off). A record counts when no log.flush of its partition that had
 * completed by the acknowledgement covered its offset. Only a simulator can see this.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { recordOffset } from './lostWrite';
import { Status } from './history/sends';
import { result } from './report';

export const ackedUnflushed: CheckDefinition = {
  id: 'ackedUnflushed',
  source: SIMULATOR_ONLY,
  make: (h) => ({
    report: (out) => {
      // Per partition: its flushes by completion time, each with the highest offset durable by then.
      const durable = new Map<number, { at: Float64Array; upTo: Float64Array }>();
      const byTp = new Map<number, number[]>();
      for (let i = 0; i < h.flushes.count; i++) {
        const tp = h.flushes.tp(i);
        let list = byTp.get(tp);
        if (!list) byTp.set(tp, (list = []));
        list.push(i);
      }
      for (const [tp, list] of byTp) {
        list.sort((a, b) => h.flushes.completesAt(a) - h.flushes.completesAt(b));
        const at = new Float64Array(list.length);
        const upTo = new Float64Array(list.length);
        let max = -Infinity;
        list.forEach((f, k) => {
          at[k] = h.flushes.completesAt(f);
          max = Math.max(max, h.flushes.upTo(f));
          upTo[k] = max;
        });
        durable.set(tp, { at, upTo });
      }
      const s = h.sends;
      let count = 0;
      let first = -1;
      for (let i = 0, n = s.orderSpan; i < n; i++) {
        const v = s.sentAt(i);
        if (v < 0 || s.status(v) !== Status.Ok) continue;
        const offset = recordOffset(h, v);
        if (offset < 0) continue;
        const d = durable.get(s.tp(v));
        let ok = false;
        if (d) {
          // The last flush completed by the acknowledgement, and the most any such flush covered.
          const ack = s.doneUs(v);
          let lo = 0;
          let hi = d.at.length;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (d.at[mid]! <= ack) lo = mid + 1;
            else hi = mid;
          }
          ok = lo > 0 && d.upTo[lo - 1]! > offset;
        }
        if (!ok) {
          count++;
          if (first < 0) first = v;
        }
      }
      out['acked-unflushed'] = result(count, first < 0 ? [] : [`${h.value(first)} was acknowledged at ${h.at(s.doneUs(first))} while only in page cache`]);
    },
  }),
};
