import type { TraceEvent, TraceSink } from '../core/trace';
import type { GroupOffsetRow } from '../kafka/coordinator/consumerGroupLag';
import { tpKey } from '../kafka/topicPartition';

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
  const f = new FinalState();
  for (const e of events) f.event(e);
  return f.topics();
}

/**
 * Each group's committed offsets and lag at the end (LOG-END-OFFSET is the high watermark a consumer can
 * read up to, as the tool shows it), with the member that owned the partition last.
 */
export function describeGroups(events: readonly TraceEvent[]): GroupPartitionDescription[] {
  const f = new FinalState();
  for (const e of events) f.event(e);
  return f.groups();
}

/**
 * What the topic and group tables need, folded as the events go by (a TraceSink), so a run can print them
 * without keeping its trace: each partition's final state, and per group the last committed offset and the
 * last owner of each partition. Its memory is the number of partitions and groups, not of events.
 */
export class FinalState implements TraceSink {
  private readonly partitions: PartitionDescription[] = [];
  private readonly hw = new Map<string, number>();
  private readonly committed = new Map<string, number>();
  private readonly owner = new Map<string, string>();
  private readonly groupParts = new Map<string, Set<string>>();

  event(e: TraceEvent): void {
    if (e.kind === 'final.partition') {
      this.partitions.push({
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
      });
      this.hw.set(`${e.topic as string}-${e.partition as number}`, e.highWatermark as number);
    } else if ((e.kind === 'consumer.commit' && e.ok) || (e.kind === 'group.offset.txn' && e.result === 'commit')) {
      // Offsets committed in a transaction count once its COMMIT marker made them the group's.
      for (const o of e.offsets as { topic: string; partition: number; offset: number }[]) {
        this.committed.set(`${e.group as string}\u0000${o.topic}-${o.partition}`, o.offset);
        add(this.groupParts, e.group as string, tpKey(o.topic, o.partition));
      }
    } else if (e.kind === 'consumer.assignment' && e.group) {
      for (const p of e.owned as string[]) {
        this.owner.set(`${e.group as string}\u0000${p}`, e.node);
        add(this.groupParts, e.group as string, p);
      }
    }
  }

  topics(): PartitionDescription[] {
    return [...this.partitions];
  }

  groups(): GroupPartitionDescription[] {
    return groupRowsOf(this.groupParts, this.committed, this.owner, this.hw);
  }
}

/**
 * kafka-consumer-groups --describe's rows: per group, each partition it committed or owns, with the committed
 * offset, the high watermark (LOG-END-OFFSET, -1 unknown), the lag and the owner ("-": none).
 * Keys: `group\u0000topic-partition` for offsets and owners, `topic-partition` for high watermarks.
 */
export function groupRowsOf(
  groupParts: ReadonlyMap<string, ReadonlySet<string>>,
  committed: ReadonlyMap<string, number>,
  owner: ReadonlyMap<string, string>,
  hw: ReadonlyMap<string, number>,
): GroupPartitionDescription[] {
  const out: GroupPartitionDescription[] = [];
  for (const [group, parts] of [...groupParts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const p of [...parts].sort(comparePartitionNames)) {
      const dash = p.lastIndexOf('-');
      const c = committed.get(`${group}\u0000${p}`) ?? null;
      const end = hw.get(p) ?? -1;
      out.push({ group, topic: p.slice(0, dash), partition: Number(p.slice(dash + 1)), currentOffset: c, logEndOffset: end, lag: c === null || end < 0 ? null : Math.max(0, end - c), consumerId: owner.get(`${group}\u0000${p}`) ?? '-' });
    }
  }
  return out;
}

export function add(m: Map<string, Set<string>>, k: string, v: string): void {
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
