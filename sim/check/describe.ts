import type { TraceEvent } from '../core/trace';
import type { GroupOffsetRow } from '../kafka/coordinator/consumerGroupLag';

/** One partition as `kafka-topics --describe` shows it, plus the high watermark and log end offset. */
export interface PartitionDescription {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly elr: readonly number[];
  readonly highWatermark: number;
  readonly logEndOffset: number;
  readonly logStartOffset: number;
  readonly offline: boolean;
}

/** One row of `kafka-consumer-groups --describe` (the trace does not carry client ids). */
export type GroupPartitionDescription = Omit<GroupOffsetRow, 'clientId'>;

/** The partitions at the end of a run, from its final-state events. */
export function describeTopics(events: readonly TraceEvent[]): PartitionDescription[] {
  return events
    .filter((e) => e.kind === 'final.partition')
    .map((e) => ({
      topic: e.topic as string,
      partition: e.partition as number,
      leader: e.leader as number,
      replicas: (e.replicas as number[] | undefined) ?? [],
      isr: e.isr as number[],
      elr: e.elr as number[],
      highWatermark: e.highWatermark as number,
      logEndOffset: e.logEndOffset as number,
      logStartOffset: e.logStartOffset as number,
      offline: e.offline as boolean,
    }));
}

/**
 * Each group's committed offsets and lag at the end (LOG-END-OFFSET is the high watermark a consumer can
 * read up to, as the tool shows it), with the member that owned the partition last.
 */
export function describeGroups(events: readonly TraceEvent[]): GroupPartitionDescription[] {
  const hw = new Map<string, number>();
  for (const e of events) if (e.kind === 'final.partition') hw.set(`${e.topic as string}-${e.partition as number}`, e.highWatermark as number);
  const committed = new Map<string, number>();
  const owner = new Map<string, string>();
  const groups = new Map<string, Set<string>>();
  for (const e of events) {
    if (e.kind === 'consumer.commit' && e.ok) {
      for (const o of e.offsets as { topic: string; partition: number; offset: number }[]) {
        const k = `${e.group as string}\u0000${o.topic}-${o.partition}`;
        committed.set(k, o.offset);
        add(groups, e.group as string, `${o.topic}-${o.partition}`);
      }
    } else if (e.kind === 'consumer.assignment' && e.group) {
      for (const p of e.owned as string[]) {
        owner.set(`${e.group as string}\u0000${p}`, e.node);
        add(groups, e.group as string, p);
      }
    }
  }
  const out: GroupPartitionDescription[] = [];
  for (const [group, parts] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const p of [...parts].sort(comparePartitionNames)) {
      const dash = p.lastIndexOf('-');
      const topic = p.slice(0, dash);
      const partition = Number(p.slice(dash + 1));
      const c = committed.get(`${group}\u0000${p}`) ?? null;
      const end = hw.get(p) ?? -1;
      out.push({ group, topic, partition, currentOffset: c, logEndOffset: end, lag: c === null || end < 0 ? null : Math.max(0, end - c), consumerId: owner.get(`${group}\u0000${p}`) ?? '-' });
    }
  }
  return out;
}

function add(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

/** Orders "topic-partition" names by topic, then by partition number (so t-2 comes before t-10). */
export function comparePartitionNames(a: string, b: string): number {
  const da = a.lastIndexOf('-');
  const db = b.lastIndexOf('-');
  const ta = a.slice(0, da);
  const tb = b.slice(0, db);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return Number(a.slice(da + 1)) - Number(b.slice(db + 1));
}
