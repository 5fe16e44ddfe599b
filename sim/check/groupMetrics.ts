import type { TraceEvent } from '../core/trace';
import type { CheckResult } from './checkers';
import { History, tp, type SendOp } from './history';
import { OffsetSet } from './offsetSet';

/**
 * Figures per consumer group, named `<figure>.<group>` (e.g. `lag.final.billing`), so one scenario can
 * compare groups: an eager group beside a cooperative one, an under-provisioned group beside a sized one.
 */
export const GROUP_FIGURES = {
  'lag.final': 'the group\'s lag at the end: high watermark minus committed offset, summed over partitions',
  'lag.max': 'the largest lag the group reached, summed over the partitions it has committed (at every commit and every high-watermark advance)',
  'rebalance.pause-ms':
    'processing paused by rebalances, per partition of the group on average (ms): how long partitions waited between one member giving them up and a member taking them on',
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

/**
 * `events`: at least every event of the kinds these figures read besides replica.hw; `lag`: the groups' lag,
 * watched as the trace went by; `endUs`: the time of the trace's last event.
 */
export function groupMetrics(events: readonly TraceEvent[], h: History, lag: GroupLag, endUs: number): Record<string, CheckResult> {
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
  const read = new Map<string, OffsetSet>();
  const readCount = new Map<string, number>();
  const rereads = new Map<string, number>();
  const seenValues = new Map<string, Set<string>>();
  for (const p of h.polls) {
    const g = p.group ?? p.consumer;
    let s = read.get(g);
    if (!s) read.set(g, (s = new OffsetSet()));
    let v = seenValues.get(g);
    if (!v) seenValues.set(g, (v = new Set()));
    readCount.set(g, (readCount.get(g) ?? 0) + p.offsets.length);
    p.offsets.forEach((o, i) => {
      if (!s!.add(p.topic, p.partition, o)) rereads.set(g, (rereads.get(g) ?? 0) + 1);
      const val = p.values[i];
      if (val !== null && val !== undefined) v!.add(val);
    });
  }
  const processed = new Map<string, OffsetSet>();
  for (const e of events) {
    if (e.kind !== 'consumer.processed') continue;
    const g = groupOf.get(e.node) ?? e.node;
    let s = processed.get(g);
    if (!s) processed.set(g, (s = new OffsetSet()));
    for (const o of e.offsets as number[]) s.add(e.topic as string, e.partition as number, o);
  }
  // Whether the group processed the position where an acknowledged value sits.
  const processedValue = (done: OffsetSet, s: SendOp): boolean | null => {
    if (s.offset < 0) {
      const la = s.leaderAppend;
      return la ? done.has(la.topic, la.partition, la.offset) : null;
    }
    return done.has(s.topic, s.partition, s.offset);
  };
  let unprocessedAll = 0;
  const unprocessedExamples: string[] = [];

  // Rebalances per group.
  const rebalances = new Map<string, number>();
  for (const e of events) if (e.kind === 'group.rebalance') rebalances.set(e.group as string, (rebalances.get(e.group as string) ?? 0) + 1);
  const pauses = partitionPauses(events, endUs);
  const lagOf = (g: string, hwOf: (k: string) => number) => {
    let sum = 0;
    for (const [k, c] of lag.commits.get(g) ?? []) sum += Math.max(0, hwOf(k) - c);
    return sum;
  };

  for (const g of groups) {
    const topics = topicsOf.get(g)!;
    const mine = acked.filter((s) => topics.has(s.topic));
    const seen = seenValues.get(g) ?? new Set<string>();
    const unseen = mine.filter((s) => !seen.has(s.value));
    const done = processed.get(g) ?? new OffsetSet();
    const unprocessed = mine.filter((s) => processedValue(done, s) === false);
    unprocessedAll += unprocessed.length;
    if (unprocessed[0]) unprocessedExamples.push(`group ${g} never processed ${unprocessed[0].value} (${unprocessed.length} records)`);
    const lagFinal = lagOf(g, (k) => h.finals.get(k)?.highWatermark ?? lag.hw.get(k) ?? 0);
    const p = pauses.get(g);
    out[`lag.final.${g}`] = r(lagFinal);
    out[`lag.max.${g}`] = r(Math.max(lag.max.get(g) ?? 0, lagFinal));
    out[`rebalance.pause-ms.${g}`] = r(p && p.partitions.size > 0 ? Math.round(p.totalMs / p.partitions.size) : 0, p?.examples ?? []);
    out[`rebalances.${g}`] = r(rebalances.get(g) ?? 0);
    out[`records-read.${g}`] = r(readCount.get(g) ?? 0);
    out[`re-reads.${g}`] = r(rereads.get(g) ?? 0);
    out[`unseen.${g}`] = r(unseen.length, unseen.slice(0, 3).map((s) => `${s.value} (${tp(s.topic, s.partition)} offset ${s.offset})`));
    out[`unprocessed.${g}`] = r(unprocessed.length, unprocessed.slice(0, 3).map((s) => `${s.value} (${tp(s.topic, s.partition)} offset ${s.offset})`));
  }
  out[UNPROCESSED] = r(unprocessedAll, unprocessedExamples);
  return out;
}

/**
 * Lag per group over time: high watermark minus committed offset, summed over the partitions the group has
 * committed, evaluated at each of its commits and at each advance of those partitions' high watermark (the
 * leader's; followers report theirs too, and those are skipped), so a lag that builds up while nobody commits
 * (a member down, a stuck partition) is seen as it builds, not only at the next commit.
 */
export interface GroupLag {
  readonly hw: Map<string, number>;
  readonly commits: Map<string, Map<string, number>>;
  readonly max: Map<string, number>;
}

export class GroupLagWatch implements GroupLag {
  readonly hw = new Map<string, number>();
  readonly commits = new Map<string, Map<string, number>>();
  readonly max = new Map<string, number>();
  /** partition -> groups that committed it. */
  private readonly readers = new Map<string, string[]>();
  private readonly sum = new Map<string, number>();

  private bump(g: string, delta: number): void {
    const v = (this.sum.get(g) ?? 0) + delta;
    this.sum.set(g, v);
    if (v > (this.max.get(g) ?? 0)) this.max.set(g, v);
  }

  observe(e: TraceEvent): void {
    if (e.kind === 'replica.hw' && e.role !== 'follower') {
      const k = tp(e.topic as string, e.partition as number);
      const before = this.hw.get(k) ?? 0;
      const after = e.hw as number;
      this.hw.set(k, after);
      const readers = this.readers.get(k);
      if (readers === undefined) return;
      for (const g of readers) {
        const c = this.commits.get(g)!.get(k)!;
        this.bump(g, Math.max(0, after - c) - Math.max(0, before - c));
      }
    } else if (e.kind === 'consumer.commit' && e.ok) {
      const g = e.group as string;
      let m = this.commits.get(g);
      if (!m) this.commits.set(g, (m = new Map()));
      for (const o of e.offsets as { topic: string; partition: number; offset: number }[]) {
        const k = tp(o.topic, o.partition);
        const h = this.hw.get(k) ?? 0;
        const prev = m.get(k);
        if (prev === undefined) {
          let list = this.readers.get(k);
          if (!list) this.readers.set(k, (list = []));
          list.push(g);
        }
        m.set(k, o.offset);
        this.bump(g, Math.max(0, h - o.offset) - (prev === undefined ? 0 : Math.max(0, h - prev)));
      }
    }
  }
}

/**
 * Rebalance pauses per group, partition by partition: a partition pauses when a member gives it up (revoked, or
 * lost when the member fell out of the group) and resumes when a member takes it on. An eager rebalance pauses
 * every partition of every member until the group re-forms; a cooperative one only the partitions that move,
 * between the revocation and the follow-up rebalance. A crashed member gives nothing up: the time until its
 * partitions move is failure detection, not a rebalance pause, and is not counted. A pause still open at the
 * end counts up to the end if the group still has a member then.
 */
function partitionPauses(events: readonly TraceEvent[], end: number): Map<string, { totalMs: number; partitions: Set<string>; examples: string[] }> {
  const out = new Map<string, { totalMs: number; partitions: Set<string>; examples: string[] }>();
  /** group -> member -> owned partitions. */
  const owned = new Map<string, Map<string, Set<string>>>();
  /** group -> partition -> when it was given up. */
  const since = new Map<string, Map<string, number>>();
  const memberGroup = new Map<string, string>();
  for (const e of events) {
    if (e.kind === 'consumer.assignment' && e.group) {
      const g = e.group as string;
      memberGroup.set(e.node, g);
      let o = out.get(g);
      if (!o) out.set(g, (o = { totalMs: 0, partitions: new Set(), examples: [] }));
      let members = owned.get(g);
      if (!members) owned.set(g, (members = new Map()));
      let waiting = since.get(g);
      if (!waiting) since.set(g, (waiting = new Map()));
      const before = members.get(e.node) ?? new Set<string>();
      const after = new Set(e.owned as string[]);
      for (const p of before) if (!after.has(p)) waiting.set(p, e.t);
      for (const p of after) {
        o.partitions.add(p);
        const t = waiting.get(p);
        if (t === undefined || before.has(p)) continue;
        waiting.delete(p);
        o.totalMs += (e.t - t) / 1000;
        if (e.t > t && o.examples.length < 3) o.examples.push(`${p} waited ${Math.round((e.t - t) / 1000)} ms for ${e.node}`);
      }
      members.set(e.node, after);
    } else if (e.kind === 'host.crash' || e.kind === 'host.power-off') {
      // The member is gone without giving anything up: whoever takes its partitions next does not count a pause.
      for (const pid of (e.processes as string[]) ?? []) {
        const g = memberGroup.get(pid);
        if (g !== undefined) owned.get(g)?.delete(pid);
      }
    }
  }
  for (const [g, waiting] of since) {
    const o = out.get(g)!;
    const live = [...(owned.get(g)?.values() ?? [])].some((s) => s.size > 0);
    if (!live) continue;
    for (const t of waiting.values()) o.totalMs += (end - t) / 1000;
  }
  return out;
}
