/**
 * keys.moved-partition: keys whose acknowledged records, from one producer to one topic, landed on more than
 * one partition: murmur2 of the key modulo the partition count moved when the count changed, so a reader of the
 * topic no longer sees the key's records in one partition's order.
 */
import { FIGURE, type CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const keysMovedPartition: CheckDefinition = {
  id: 'keysMovedPartition',
  source: FIGURE,
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      // (producer, topic) -> key -> the partitions its records landed on, in send order.
      const seen = new Map<number, Map<number, { v: number; partitions: number[] }>>();
      const ordered: { v: number; partitions: number[] }[] = [];
      s.forEach((v) => {
        const key = s.key(v);
        if (s.status(v) !== Status.Ok || key < 0) return;
        const tp = s.tp(v);
        const where = s.producer(v) * 0x100000 + h.tps.topic(tp);
        let byKey = seen.get(where);
        if (!byKey) seen.set(where, (byKey = new Map()));
        let e = byKey.get(key);
        if (!e) {
          byKey.set(key, (e = { v, partitions: [] }));
          ordered.push(e);
        }
        const p = h.tps.partition(tp);
        if (e.partitions[e.partitions.length - 1] !== p) e.partitions.push(p);
      });
      const moved: string[] = [];
      for (const e of ordered) {
        if (e.partitions.length > 1 && new Set(e.partitions).size > 1) {
          moved.push(`key ${s.keyName(e.v)} from ${s.producerName(e.v)} landed on ${h.tps.topicName(s.tp(e.v))} partitions ${e.partitions.join(' then ')}`);
        }
      }
      out['keys.moved-partition'] = result(moved.length, moved);
    },
  }),
};
