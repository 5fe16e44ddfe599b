/**
 * Lag per partition as `kafka-consumer-groups --describe --group G` shows it: the committed offset
 * (CURRENT-OFFSET), the partition's log end as ListOffsets(latest) gives it (the high watermark for
 * read_uncommitted), LAG = LOG-END-OFFSET - CURRENT-OFFSET, and the member that owns the partition.
 * [tools/.../consumer/group/ConsumerGroupCommand.java `describeGroups`, `collectConsumerAssignment`]
 */
import { compareTopicPartitions } from '../topicPartition';
import type { GroupDescription } from './groupCoordinator';

export interface GroupOffsetRow {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  /** The committed offset (next to read), null when none ("-"). */
  readonly currentOffset: number | null;
  readonly logEndOffset: number;
  /** null when there is no committed offset ("-"). */
  readonly lag: number | null;
  /** "-" for a partition no member owns. */
  readonly consumerId: string;
  readonly clientId: string;
}

/** Rows for every partition that is assigned or has a committed offset, in (topic, partition) order. */
export function describeGroupOffsets(d: GroupDescription, logEndOffset: (topic: string, partition: number) => number): GroupOffsetRow[] {
  const owner = new Map<string, { memberId: string; clientId: string }>();
  const parts = new Map<string, { topic: string; partition: number }>();
  for (const m of d.members) {
    for (const tp of m.assignment) {
      const k = `${tp.topic}\u0000${tp.partition}`;
      owner.set(k, { memberId: m.memberId, clientId: m.clientId });
      parts.set(k, tp);
    }
  }
  const committed = new Map<string, number>();
  for (const o of d.offsets) {
    const k = `${o.topic}\u0000${o.partition}`;
    committed.set(k, o.offset);
    parts.set(k, { topic: o.topic, partition: o.partition });
  }
  return [...parts.entries()]
    .sort((a, b) => compareTopicPartitions(a[1], b[1]))
    .map(([k, tp]) => {
      const current = committed.get(k) ?? null;
      const leo = logEndOffset(tp.topic, tp.partition);
      const o = owner.get(k);
      return {
        group: d.groupId,
        topic: tp.topic,
        partition: tp.partition,
        currentOffset: current,
        logEndOffset: leo,
        lag: current === null ? null : Math.max(0, leo - current),
        consumerId: o?.memberId ?? '-',
        clientId: o?.clientId ?? '-',
      };
    });
}

/** The rows as the tool prints them (columns aligned, "-" for unknowns). */
export function formatGroupOffsets(rows: readonly GroupOffsetRow[]): string {
  const header = ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'CLIENT-ID'];
  const cells = rows.map((r) => [
    r.group,
    r.topic,
    String(r.partition),
    r.currentOffset === null ? '-' : String(r.currentOffset),
    String(r.logEndOffset),
    r.lag === null ? '-' : String(r.lag),
    r.consumerId,
    r.clientId,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string => c.map((x, i) => x.padEnd(widths[i]!)).join(' ').trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}
