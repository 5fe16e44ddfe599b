import type { TraceEvent } from '../core/trace';
import type { CheckResult } from './checkers';
import { History, tp } from './history';

/**
 * Figures per consumer group, named `<figure>.<group>` (e.g. `lag.final.billing`), so one scenario can
 * compare groups: an eager group beside a cooperative one, an under-provisioned group beside a sized one.
 */
export const GROUP_FIGURES = {
  'lag.final': 'the group\'s lag at the end: high watermark minus committed offset, summed over partitions',
  'lag.max': 'the largest lag the group reached (summed over partitions, sampled at each of its commits)',
  'rebalance.pause-ms': 'processing paused by rebalances, per member of the group on average (ms)',
  rebalances: 'rebalances of the group',
  'records-read': 'records the group\'s members polled (with re-reads)',
  're-reads': 'records the group read more than once',
  unseen: 'acknowledged records of the group\'s topics its members never read',
  unprocessed: 'acknowledged records of the group\'s topics it never finished processing',
} as const;

export type GroupFigure = keyof typeof GROUP_FIGURES;

/** Also, over all groups: acknowledged records of consumed topics that some group never processed. */
export const UNPROCESSED = 'unprocessed';

const r = (count: number, examples: string[] = []): CheckResult => ({ count, examples: examples.slice(0, 5) });

export function groupFigureName(name: string): { figure: GroupFigure; group: string } | null {
  for (const f of Object.keys(GROUP_FIGURES) as GroupFigure[]) {
    if (name.startsWith(`${f}.`) && name.length > f.length + 1) return { figure: f, group: name.slice(f.length + 1) };
  }
  return null;
}

export function groupMetrics(events: readonly TraceEvent[], h: History): Record<string, CheckResult> {
  const out: Record<string, CheckResult> = {};
  // Which consumer belongs to which group, and which topics each group reads.
  const groupOf = new Map<string, string>();
  const topicsOf = new Map<string, Set<string>>();
  for (const p of h.polls) {
    const g = p.group ?? p.consumer;
    groupOf.set(p.consumer, g);
    let s = topicsOf.get(g);
    if (!s) topicsOf.set(g, (s = new Set()));
    s.add(p.topic);
  }
  for (const e of events) {
    if (e.kind === 'consumer.assignment' && e.group) groupOf.set(e.node, e.group as string);
    if (e.kind === 'group.rebalance' && !topicsOf.has(e.group as string)) topicsOf.set(e.group as string, new Set());
  }
  const groups = [...topicsOf.keys()].sort();
  const acked = h.sendsInOrder.filter((s) => s.status === 'ok');

  // Reads and processing per group.
  const read = new Map<string, Set<string>>();
  const readCount = new Map<string, number>();
  const rereads = new Map<string, number>();
  const seenValues = new Map<string, Set<string>>();
  for (const p of h.polls) {
    const g = p.group ?? p.consumer;
    let s = read.get(g);
    if (!s) read.set(g, (s = new Set()));
    let v = seenValues.get(g);
    if (!v) seenValues.set(g, (v = new Set()));
    readCount.set(g, (readCount.get(g) ?? 0) + p.offsets.length);
    p.offsets.forEach((o, i) => {
      const k = `${tp(p.topic, p.partition)}@${o}`;
      if (s!.has(k)) rereads.set(g, (rereads.get(g) ?? 0) + 1);
      else s!.add(k);
      const val = p.values[i];
      if (val !== null && val !== undefined) v!.add(val);
    });
  }
  const processed = new Map<string, Set<string>>();
  for (const e of events) {
    if (e.kind !== 'consumer.processed') continue;
    const g = groupOf.get(e.node) ?? e.node;
    let s = processed.get(g);
    if (!s) processed.set(g, (s = new Set()));
    for (const o of e.offsets as number[]) s.add(`${tp(e.topic as string, e.partition as number)}@${o}`);
  }
  // Where each acknowledged value sits (its partition and offset) to match it against processed offsets.
  const where = (value: string): string | null => {
    const s = h.sends.get(value);
    if (!s || s.offset < 0) {
      const la = h.leaderAppends.get(value);
      return la ? `${tp(la.topic, la.partition)}@${la.offset}` : null;
    }
    return `${tp(s.topic, s.partition)}@${s.offset}`;
  };
  let unprocessedAll = 0;
  const unprocessedExamples: string[] = [];

  // Pauses, rebalances, lag per group.
  const pauses = new Map<string, { total: number; members: Set<string> }>();
  const rebalances = new Map<string, number>();
  for (const e of events) {
    if (e.kind === 'consumer.pause') {
      const g = e.group as string;
      let p = pauses.get(g);
      if (!p) pauses.set(g, (p = { total: 0, members: new Set() }));
      p.total += e.durationMs as number;
      p.members.add(e.node);
    } else if (e.kind === 'group.rebalance') {
      rebalances.set(e.group as string, (rebalances.get(e.group as string) ?? 0) + 1);
    }
  }
  const hw = new Map<string, number>();
  const commits = new Map<string, Map<string, number>>();
  const lagMax = new Map<string, number>();
  const lagOf = (g: string, hwOf: (k: string) => number) => {
    let sum = 0;
    for (const [k, c] of commits.get(g) ?? []) sum += Math.max(0, hwOf(k) - c);
    return sum;
  };
  for (const e of events) {
    if (e.kind === 'replica.hw') hw.set(tp(e.topic as string, e.partition as number), e.hw as number);
    else if (e.kind === 'consumer.commit' && e.ok) {
      const g = e.group as string;
      let m = commits.get(g);
      if (!m) commits.set(g, (m = new Map()));
      for (const o of e.offsets as { topic: string; partition: number; offset: number }[]) m.set(tp(o.topic, o.partition), o.offset);
      lagMax.set(g, Math.max(lagMax.get(g) ?? 0, lagOf(g, (k) => hw.get(k) ?? 0)));
    }
  }

  for (const g of groups) {
    const topics = topicsOf.get(g)!;
    const mine = acked.filter((s) => topics.has(s.topic));
    const seen = seenValues.get(g) ?? new Set<string>();
    const unseen = mine.filter((s) => !seen.has(s.value));
    const done = processed.get(g) ?? new Set<string>();
    const unprocessed = mine.filter((s) => {
      const w = where(s.value);
      return w !== null && !done.has(w);
    });
    unprocessedAll += unprocessed.length;
    if (unprocessed[0]) unprocessedExamples.push(`group ${g} never processed ${unprocessed[0].value} (${unprocessed.length} records)`);
    const lagFinal = lagOf(g, (k) => h.finals.get(k)?.highWatermark ?? hw.get(k) ?? 0);
    const p = pauses.get(g);
    out[`lag.final.${g}`] = r(lagFinal);
    out[`lag.max.${g}`] = r(Math.max(lagMax.get(g) ?? 0, lagFinal));
    out[`rebalance.pause-ms.${g}`] = r(p ? Math.round(p.total / p.members.size) : 0);
    out[`rebalances.${g}`] = r(rebalances.get(g) ?? 0);
    out[`records-read.${g}`] = r(readCount.get(g) ?? 0);
    out[`re-reads.${g}`] = r(rereads.get(g) ?? 0);
    out[`unseen.${g}`] = r(unseen.length, unseen.slice(0, 3).map((s) => `${s.value} (${tp(s.topic, s.partition)} offset ${s.offset})`));
    out[`unprocessed.${g}`] = r(unprocessed.length, unprocessed.slice(0, 3).map((s) => `${s.value} (${tp(s.topic, s.partition)} offset ${s.offset})`));
  }
  out[UNPROCESSED] = r(unprocessedAll, unprocessedExamples);
  return out;
}
