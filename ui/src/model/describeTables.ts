import type { ClusterState } from './clusterState';

/** One partition row of the operator panel's kafka-topics --describe table, from the UI's state at the cursor. */
export interface TopicRow {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly elr: readonly number[];
  /** The current leader's high watermark and log end offset (-1 without a leader). */
  readonly highWatermark: number;
  readonly logEndOffset: number;
}

/** One row of kafka-consumer-groups --describe: committed offset, the high watermark, lag, owner. */
export interface GroupRow {
  readonly group: string;
  readonly partition: string;
  readonly currentOffset: number | null;
  readonly logEndOffset: number;
  readonly lag: number | null;
  readonly consumerId: string;
}

/** The topics table at a state (the cursor), as the UI folded it. */
export function topicRows(s: ClusterState): TopicRow[] {
  return [...s.partitions.values()].map((p) => {
    const leader = p.leader >= 0 ? p.replicas.get(p.leader) : undefined;
    return {
      topic: p.topic,
      partition: p.partition,
      leader: p.leader,
      leaderEpoch: p.leaderEpoch,
      isr: p.isr,
      elr: p.elr,
      highWatermark: p.leader >= 0 ? p.hw : -1,
      logEndOffset: leader ? leader.leo : -1,
    };
  });
}

/** The groups table at a state: every partition a group committed or owns, in the partitions' order. */
export function groupRows(s: ClusterState): GroupRow[] {
  const owner = new Map<string, string>();
  for (const m of s.members.values()) if (m.group) for (const p of m.owned) owner.set(`${m.group}\u0000${p}`, m.consumer);
  const keys = new Set<string>([...s.committed.keys(), ...owner.keys()]);
  const rows: GroupRow[] = [];
  for (const group of [...new Set([...keys].map((k) => k.slice(0, k.indexOf('\u0000'))))].sort()) {
    for (const p of s.partitions.values()) {
      const k = `${group}\u0000${p.key}`;
      if (!keys.has(k)) continue;
      const c = s.committed.get(k) ?? null;
      const end = p.leader >= 0 ? p.hw : -1;
      rows.push({ group, partition: p.key, currentOffset: c, logEndOffset: end, lag: c === null || end < 0 ? null : Math.max(0, end - c), consumerId: owner.get(k) ?? '-' });
    }
  }
  return rows;
}
