/**
 * nonmonotonic-send: a producer's acknowledged sends to one key landed out of the order it sent them in, within
 * a partition (retries with max.in.flight.requests.per.connection > 1 and no idempotence). A key that moved
 * partitions (the partition count grew) starts over: order is promised within a partition only.
 */
import type { CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const nonmonotonicSend: CheckDefinition = {
  id: 'nonmonotonicSend',
  source: 'Jepsen: nonmonotonic-send',
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      // (producer, partition) -> key -> the acknowledged send with the highest offset so far, in send order.
      const last = new Map<number, Map<number, number>>();
      let count = 0;
      const examples: string[] = [];
      s.forEach((v) => {
        const key = s.key(v);
        const o = s.offset(v);
        if (s.status(v) !== Status.Ok || o < 0 || key < 0) return;
        const where = s.producer(v) * 0x100000 + s.tp(v);
        let byKey = last.get(where);
        if (!byKey) last.set(where, (byKey = new Map()));
        const prev = byKey.get(key);
        if (prev !== undefined && o < s.offset(prev)) {
          count++;
          if (examples.length < 5) examples.push(`${s.producerName(v)} sent ${h.value(prev)} before ${h.value(v)} (key ${s.keyName(v)}) but they landed at offsets ${s.offset(prev)} and ${o}`);
        }
        if (prev === undefined || o > s.offset(prev)) byKey.set(key, v);
      });
      out['nonmonotonic-send'] = result(count, examples);
    },
  }),
};
