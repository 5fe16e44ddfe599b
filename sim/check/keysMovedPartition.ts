/**
 * keys.moved-partition: keys whose acknowledged records, from one producer to one topic, landed on more than
 * one partition: murmur2 of the key modulo the partition count moved when the count changed, so a reader of the
 * topic no longer sees the key's records in one partition's order.
 *
 * The report goes through the acknowledged sends once, keeping each key's first partition per (producer, topic);
 * only when a key landed elsewhere (or the sends changed after their answers) does it go through them again for
 * the stories.
 */
import { FIGURE, type CheckDefinition, type ReportOut } from './check';
import { SmallColumn } from './history/columns';
import type { History } from './history/history';
import { Status } from './history/sends';
import { result } from './report';

/**
 * Per key id, the partition its first acknowledged record landed on, as partition + 2 (0: none yet) in 16 bits:
 * a run's keys are looked up in random order as their records are answered, so the table is kept small enough to
 * stay in cache (2 bytes a key). A partition past 65,532 is kept aside.
 */
class FirstPartitions {
  private readonly column = new SmallColumn(16);
  private readonly side = new Map<number, number>();

  /** The partition, or NONE. */
  get(key: number): number {
    const x = this.column.get(key);
    return x === 0 ? NONE : x !== SIDE ? x - 2 : this.side.get(key)!;
  }

  set(key: number, partition: number): void {
    if (partition + 2 < SIDE) this.column.set(key, partition + 2);
    else {
      this.column.set(key, SIDE);
      this.side.set(key, partition);
    }
  }
}

/** No record of the key acknowledged yet (a partition is >= -1). */
const NONE = -2;
/** In FirstPartitions' column: the partition is in the side table. */
const SIDE = 0xffff;

export const keysMovedPartition: CheckDefinition = {
  id: 'keysMovedPartition',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    return {
      report: (out) => {
        if (s.irregular || anyMoved(h)) movedKeys(h, out);
        else out['keys.moved-partition'] = result(0);
      },
    };
  },
};

/**
 * Whether some key's acknowledged records from one producer to one topic landed on two partitions: one pass over
 * the sends at the end, a plain loop over their columns (cheaper than a fold of every answer as it comes), each
 * key's first partition kept per (producer, topic).
 */
function anyMoved(h: History): boolean {
  const s = h.sends;
  /** (producer, topic) -> key id -> the partition its first acknowledged record landed on. */
  const partitionOfKey = new Map<number, FirstPartitions>();
  let lastWhere = -1;
  let last: FirstPartitions | undefined;
  for (let i = 0, n = s.orderSpan; i < n; i++) {
    const v = s.sentAt(i);
    if (v < 0) continue;
    const key = s.key(v);
    if (key < 0 || s.status(v) !== Status.Ok) continue;
    const tp = s.tp(v);
    const where = s.producer(v) * 0x100000 + h.tps.topic(tp);
    if (where !== lastWhere || last === undefined) {
      last = partitionOfKey.get(where);
      if (last === undefined) partitionOfKey.set(where, (last = new FirstPartitions()));
      lastWhere = where;
    }
    const p = h.tps.partition(tp);
    const first = last.get(key);
    if (first === NONE) last.set(key, p);
    else if (first !== p) return true;
  }
  return false;
}

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
