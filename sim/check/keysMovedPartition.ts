/**
 * keys.moved-partition: keys whose acknowledged records, from one producer to one topic, landed on more than
 * one partition: murmur2 of the key modulo the partition count moved when the count changed, so a reader of the
 * topic no longer sees the key's records in one partition's order.
 *
 * As sends are answered, each key's first partition is kept per (producer, topic); only when a key lands
 * elsewhere (or the sends changed after their answers) does the report go through the sends for the stories.
 */
import { FIGURE, type CheckDefinition, type ReportOut } from './check';
import { IntColumn } from './history/columns';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result } from './report';

/** No record of the key acknowledged yet (a partition is >= -1). */
const NONE = -2;

export const keysMovedPartition: CheckDefinition = {
  id: 'keysMovedPartition',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    /** (producer, topic) -> key id -> the partition its first acknowledged record landed on. */
    const partitionOfKey = new Map<number, IntColumn>();
    let lastWhere = -1;
    let last: IntColumn | undefined;
    let moved = false;
    s.onComplete((a) => {
      const key = a.key;
      if (moved || key < 0 || a.status !== Status.Ok) return;
      const tp = a.tp;
      const where = a.producer * 0x100000 + h.tps.topic(tp);
      if (where !== lastWhere || last === undefined) {
        last = partitionOfKey.get(where);
        if (last === undefined) partitionOfKey.set(where, (last = new IntColumn(NONE)));
        lastWhere = where;
      }
      const p = h.tps.partition(tp);
      const first = last.get(key);
      if (first === NONE) last.set(key, p);
      else if (first !== p) moved = true;
    });
    return {
      report: (out) => {
        if (moved || s.irregular) movedKeys(h, out);
        else out['keys.moved-partition'] = result(0);
      },
    };
  },
};

/** The keys that moved, each with its partitions in send order: one pass over every send. */
function movedKeys(h: History, out: ReportOut): void {
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
}
