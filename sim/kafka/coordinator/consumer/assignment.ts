/**
 * A member's partitions in a consumer group (KIP-848): topic name -> partition ids, both sorted, as plain
 * immutable data. Kafka keys these by topic id (`Map<Uuid, Set<Integer>>`, [group-coordinator/.../modern/
 * Assignment.java]); inside the coordinator we key by name, because the simulator never deletes and re-creates a
 * topic under the same name, and turn names into ids only at the ConsumerGroupHeartbeat edge.
 */
import { compareStrings } from '../../topicPartition';
import { tpKey, type TopicPartition } from '../../protocol';

export type Assignment = ReadonlyMap<string, readonly number[]>;

export const EMPTY_ASSIGNMENT: Assignment = new Map();

/** Builds an assignment from any topic -> partitions listing: topics and partitions sorted, empty topics dropped. */
export function assignmentOf(entries: Iterable<readonly [string, Iterable<number>]> | Readonly<Record<string, readonly number[]>>): Assignment {
  const list: [string, Iterable<number>][] = Symbol.iterator in entries ? [...(entries as Iterable<[string, Iterable<number>]>)] : Object.entries(entries);
  const merged = new Map<string, Set<number>>();
  for (const [t, ps] of list) {
    let s = merged.get(t);
    if (!s) merged.set(t, (s = new Set()));
    for (const p of ps) s.add(p);
  }
  const out = new Map<string, readonly number[]>();
  for (const t of [...merged.keys()].sort(compareStrings)) {
    const ps = [...merged.get(t)!].sort((a, b) => a - b);
    if (ps.length > 0) out.set(t, ps);
  }
  return out;
}

export function assignmentFromPartitions(tps: Iterable<TopicPartition>): Assignment {
  const m = new Map<string, number[]>();
  for (const tp of tps) {
    let l = m.get(tp.topic);
    if (!l) m.set(tp.topic, (l = []));
    l.push(tp.partition);
  }
  return assignmentOf(m);
}

/** Every partition, sorted by (topic, partition). */
export function assignmentPartitions(a: Assignment): TopicPartition[] {
  const out: TopicPartition[] = [];
  for (const [topic, ps] of a) for (const partition of ps) out.push({ topic, partition });
  return out;
}

/** "topic-partition" keys, sorted by (topic, partition). */
export function assignmentKeys(a: Assignment): string[] {
  const out: string[] = [];
  for (const [topic, ps] of a) for (const p of ps) out.push(tpKey(topic, p));
  return out;
}

export function assignmentSize(a: Assignment): number {
  let n = 0;
  for (const ps of a.values()) n += ps.length;
  return n;
}

export function assignmentHas(a: Assignment, topic: string, partition: number): boolean {
  const ps = a.get(topic);
  return ps !== undefined && ps.includes(partition);
}

export function assignmentEquals(a: Assignment, b: Assignment): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [t, ps] of a) {
    const qs = b.get(t);
    if (!qs || qs.length !== ps.length) return false;
    for (let i = 0; i < ps.length; i++) if (ps[i] !== qs[i]) return false;
  }
  return true;
}

/** The partitions of `a` that are not in `b`. */
export function assignmentMinus(a: Assignment, b: Assignment): Assignment {
  const out = new Map<string, number[]>();
  for (const [t, ps] of a) {
    const rest = ps.filter((p) => !assignmentHas(b, t, p));
    if (rest.length > 0) out.set(t, rest);
  }
  return out;
}

/** A plain object for records and traces ({topic: [partitions]}), topics sorted. */
export function assignmentToRecord(a: Assignment): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [t, ps] of a) out[t] = [...ps];
  return out;
}
