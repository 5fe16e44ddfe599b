import { formatTime } from '../core/time';
import type { TraceEvent } from '../core/trace';
import type { CheckResult } from './checkers';
import { History, tp } from './history';

/**
 * Figures a scenario may set expectations on, beyond the anomaly checkers: how the workload was shaped
 * (batching, partition skew), what the logs kept (retention, compaction), how groups spread the work.
 * Each entry: name -> what it means; `metricChecks` computes them all.
 */
export const METRICS = {
  'produce.batches': 'record batches acknowledged to producers',
  'produce.records-per-batch': 'records per acknowledged batch, on average',
  'partition.max-share-pct': 'the busiest partition\'s share of its topic\'s acknowledged records (percent), in the most skewed topic',
  'partition.max-share-pct.most-even-topic': 'the busiest partition\'s share of its topic\'s acknowledged records (percent), in the least skewed topic',
  'producer.records-per-batch.max': 'records per acknowledged batch of the producer with the fullest batches',
  'producer.records-per-batch.min': 'records per acknowledged batch of the producer with the emptiest batches',
  'producer.records-per-batch.ratio': 'how many times fuller the fullest producer\'s batches were than the emptiest producer\'s (1 with one producer)',
  'producer.batches.max': 'acknowledged batches of the producer that needed the most',
  'producer.batches.min': 'acknowledged batches of the producer that needed the fewest',
  'keys.moved-partition': 'keys whose acknowledged records landed on more than one partition of a topic (per producer), e.g. after the partition count changed',
  'final.records': 'records in the final committed logs of the scenario\'s topics',
  'segments.deleted': 'log segments deleted by retention (all replicas)',
  'records.compacted-away': 'records the log cleaner removed (all replicas)',
  'group.idle-members': 'members owning no partition at the end, in the group with the most of them',
  'commit.max-wait-ms': 'the longest a record a leader appended waited for the high watermark to cover it (ms; still waiting at the end counts to the end)',
  'partition.offline-ms': 'the longest time a partition had no leader in the committed metadata (ms; still leaderless at the end counts to the end)',
  'replicas.diverged': 'replicas whose log, at the end, holds a different record than the leader\'s at some offset below the high watermark',
} as const;

export type MetricName = keyof typeof METRICS;

const r = (count: number, examples: string[] = []): CheckResult => ({ count, examples: examples.slice(0, 5) });

/**
 * `events`: at least every event of the kinds these figures read besides send.* and replica.append/hw (the checkers
 * hand over the trace without those); `commitWait`: the commit-wait figure, watched as the trace went by.
 */
export function metricChecks(events: readonly TraceEvent[], h: History, commitWait: { us: number; example: string | null }): Record<MetricName, CheckResult> {
  let batches = 0;
  let batchRecords = 0;
  for (const b of h.batchesOf.values()) {
    batches += b.batches;
    batchRecords += b.records;
  }
  let segmentsDeleted = 0;
  let compactedAway = 0;
  for (const e of events) {
    if (e.kind === 'log.retention') {
      segmentsDeleted += (e.segments as number[]).length;
    } else if (e.kind === 'log.clean') {
      compactedAway += e.recordsRemoved as number;
    }
  }
  const skew = partitionSkew(h);
  const perProducer = producerBatching(h);
  const moved = keysMovedPartition(h);
  let finalRecords = 0;
  for (const f of h.finals.values()) finalRecords += f.offsets.length;

  // Ownership at the end, per group: the last assignment each live member reported.
  const owned = new Map<string, Map<string, number>>();
  for (const e of events) {
    if (e.kind === 'consumer.assignment' && e.group) {
      let g = owned.get(e.group as string);
      if (!g) owned.set(e.group as string, (g = new Map()));
      g.set(e.node, (e.owned as string[]).length);
    } else if (e.kind === 'host.crash' || e.kind === 'host.power-off' || e.kind === 'consumer.close' || e.kind === 'process.exit') {
      const procs = e.kind === 'consumer.close' ? [e.node] : e.kind === 'process.exit' ? [e.process as string] : ((e.processes as string[]) ?? []);
      for (const g of owned.values()) for (const p of procs) g.delete(p);
    }
  }
  let idle = 0;
  const idleExamples: string[] = [];
  for (const [group, members] of owned) {
    const none = [...members].filter(([, n]) => n === 0).map(([m]) => m);
    if (none.length > idle) idle = none.length;
    if (none.length > 0) idleExamples.push(`${none.join(', ')} own nothing in group ${group}`);
  }
  const diverged: string[] = [];
  for (const f of h.finals.values()) {
    for (const d of f.diverged) diverged.push(`broker ${d.broker} disagrees with the leader of ${tp(f.topic, f.partition)} at ${d.offsets.length} offset(s), first ${d.offsets[0]}`);
  }
  const wait = commitWait;
  const offline = longestOffline(events, h);
  return {
    'produce.batches': r(batches),
    'produce.records-per-batch': r(batches === 0 ? 0 : Math.round((batchRecords / batches) * 100) / 100),
    'partition.max-share-pct': r(skew.most?.pct ?? 0, skew.most ? [skew.most.example] : []),
    'partition.max-share-pct.most-even-topic': r(skew.least?.pct ?? 0, skew.least ? [skew.least.example] : []),
    'producer.records-per-batch.max': r(perProducer.fullest?.perBatch ?? 0, perProducer.examples),
    'producer.records-per-batch.min': r(perProducer.emptiest?.perBatch ?? 0, perProducer.examples),
    'producer.records-per-batch.ratio': r(
      perProducer.fullest && perProducer.emptiest ? Math.round((perProducer.fullest.perBatch / perProducer.emptiest.perBatch) * 100) / 100 : 0,
      perProducer.examples,
    ),
    'producer.batches.max': r(perProducer.most?.batches ?? 0, perProducer.examples),
    'producer.batches.min': r(perProducer.fewest?.batches ?? 0, perProducer.examples),
    'keys.moved-partition': r(moved.length, moved),
    'final.records': r(finalRecords),
    'segments.deleted': r(segmentsDeleted),
    'records.compacted-away': r(compactedAway),
    'group.idle-members': r(idle, idleExamples),
    'commit.max-wait-ms': r(Math.round(wait.us / 1000), wait.example ? [wait.example] : []),
    'partition.offline-ms': r(Math.round(offline.us / 1000), offline.example ? [offline.example] : []),
    'replicas.diverged': r(diverged.length, diverged),
  };
}

/** Per topic, the busiest partition's share of the topic's acknowledged records: the most and the least skewed topic. */
function partitionSkew(h: History): { most?: { pct: number; example: string }; least?: { pct: number; example: string } } {
  const perTopic = new Map<string, Map<number, number>>();
  for (const s of h.sendsInOrder) {
    if (s.status !== 'ok') continue;
    let m = perTopic.get(s.topic);
    if (!m) perTopic.set(s.topic, (m = new Map()));
    m.set(s.partition, (m.get(s.partition) ?? 0) + 1);
  }
  let most: { pct: number; example: string } | undefined;
  let least: { pct: number; example: string } | undefined;
  for (const [topic, m] of [...perTopic].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    let total = 0;
    let top: [number, number] = [-1, 0];
    for (const [p, n] of [...m].sort((a, b) => a[0] - b[0])) {
      total += n;
      if (n > top[1]) top = [p, n];
    }
    const pct = Math.round((top[1] / total) * 1000) / 10;
    const example = `${tp(topic, top[0])} took ${top[1]} of ${total} records of ${topic} (${m.size} partition(s) used)`;
    if (!most || pct > most.pct) most = { pct, example };
    if (!least || pct < least.pct) least = { pct, example };
  }
  return { ...(most && { most }), ...(least && { least }) };
}

/** Acknowledged batches and records per producer: how full each producer's batches were. */
function producerBatching(h: History): {
  fullest?: { perBatch: number };
  emptiest?: { perBatch: number };
  most?: { batches: number };
  fewest?: { batches: number };
  examples: string[];
} {
  const rows = [...h.batchesOf]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([producer, p]) => ({ producer, batches: p.batches, records: p.records, perBatch: Math.round((p.records / p.batches) * 100) / 100 }));
  if (rows.length === 0) return { examples: [] };
  const by = (f: (x: (typeof rows)[number]) => number, dir: 1 | -1) => [...rows].sort((a, b) => dir * (f(b) - f(a)))[0]!;
  return {
    fullest: by((x) => x.perBatch, 1),
    emptiest: by((x) => x.perBatch, -1),
    most: by((x) => x.batches, 1),
    fewest: by((x) => x.batches, -1),
    examples: rows.map((x) => `${x.producer}: ${x.records} records in ${x.batches} batches (${x.perBatch} per batch)`),
  };
}

/**
 * Keys whose acknowledged records, from one producer to one topic, landed on more than one partition: murmur2
 * of the key modulo the partition count moved when the count changed, so a reader of the topic no longer sees
 * the key's records in one partition's order.
 */
function keysMovedPartition(h: History): string[] {
  // producer+topic -> key -> the partitions its records landed on, in order (nested maps: no joined keys to hash).
  const seen = new Map<string, Map<string, Map<string, { key: string; producer: string; topic: string; partitions: number[] }>>>();
  const ordered: { key: string; producer: string; topic: string; partitions: number[] }[] = [];
  for (const s of h.sendsInOrder) {
    if (s.status !== 'ok' || s.key === null) continue;
    let byTopic = seen.get(s.producer);
    if (!byTopic) seen.set(s.producer, (byTopic = new Map()));
    let byKey = byTopic.get(s.topic);
    if (!byKey) byTopic.set(s.topic, (byKey = new Map()));
    let e = byKey.get(s.key);
    if (!e) {
      byKey.set(s.key, (e = { key: s.key, producer: s.producer, topic: s.topic, partitions: [] }));
      ordered.push(e);
    }
    if (e.partitions[e.partitions.length - 1] !== s.partition) e.partitions.push(s.partition);
  }
  const out: string[] = [];
  for (const e of ordered) {
    if (e.partitions.length > 1 && new Set(e.partitions).size > 1) out.push(`key ${e.key} from ${e.producer} landed on ${e.topic} partitions ${e.partitions.join(' then ')}`);
  }
  return out;
}

/** The longest span between an election that left a partition leaderless and the next one that gave it a leader. */
function longestOffline(events: readonly TraceEvent[], h: History): { us: number; example: string | null } {
  const since = new Map<string, number>();
  let worst = 0;
  let example: string | null = null;
  const note = (key: string, from: number, to: number) => {
    if (to - from <= worst) return;
    worst = to - from;
    example = `${key} had no leader from ${formatTime(from - h.startUs)} to ${formatTime(to - h.startUs)}`;
  };
  for (const e of events) {
    if (e.kind !== 'controller.election') continue;
    const key = tp(e.topic as string, e.partition as number);
    if ((e.leader as number) < 0) {
      if (!since.has(key)) since.set(key, e.t);
    } else {
      const from = since.get(key);
      if (from !== undefined) note(key, from, e.t);
      since.delete(key);
    }
  }
  for (const [key, from] of since) note(key, from, h.endUs);
  return { us: worst, example };
}

/**
 * The longest time between a leader's append and the moment its high watermark covered the appended
 * batch. Appends a leader gave up (it lost leadership, or truncated them) are left out; appends still
 * waiting at the end count until the end of the run.
 */
export class CommitWaitWatch {
  /** Per leader broker, then per partition: appended batches not yet covered, in offset order. */
  private readonly pending = new Map<number, Map<string, { last: number; t: number }[]>>();
  private worst = 0;
  private example: { broker: number; key: string; appendedUs: number; untilUs: number } | null = null;

  private queue(broker: number, key: string): { last: number; t: number }[] {
    let m = this.pending.get(broker);
    if (!m) this.pending.set(broker, (m = new Map()));
    let q = m.get(key);
    if (!q) m.set(key, (q = []));
    return q;
  }

  private note(broker: number, key: string, appendedUs: number, untilUs: number): void {
    if (untilUs - appendedUs <= this.worst) return;
    this.worst = untilUs - appendedUs;
    this.example = { broker, key, appendedUs, untilUs };
  }

  observe(e: TraceEvent): void {
    switch (e.kind) {
      case 'replica.append':
        if (e.role === 'leader') this.queue(e.broker as number, tp(e.topic as string, e.partition as number)).push({ last: e.last as number, t: e.t });
        break;
      case 'replica.hw': {
        if (e.role === 'follower') break; // a follower's HW is what its leader told it
        const q = this.pending.get(e.broker as number)?.get(tp(e.topic as string, e.partition as number));
        if (!q) break;
        let i = 0;
        while (i < q.length && q[i]!.last < (e.hw as number)) this.note(e.broker as number, tp(e.topic as string, e.partition as number), q[i++]!.t, e.t);
        if (i > 0) q.splice(0, i);
        break;
      }
      case 'replica.role':
      case 'replica.truncate':
        // No longer its leader (or its log was cut back): what it had pending is not its to commit any more.
        if (e.kind === 'replica.role' && e.role === 'leader') break;
        this.pending.get(e.broker as number)?.delete(tp(e.topic as string, e.partition as number));
        break;
      case 'host.crash':
      case 'host.power-off':
      case 'process.exit': {
        const id = /^broker-(\d+)$/.exec(e.kind === 'process.exit' ? (e.process as string) : e.node);
        if (id) this.pending.delete(Number(id[1]));
        break;
      }
    }
  }

  /** Appends still waiting count until the end of the run. */
  result(h: History): { us: number; example: string | null } {
    for (const [broker, m] of this.pending) for (const [key, q] of m) for (const p of q) this.note(broker, key, p.t, h.endUs);
    const x = this.example;
    const example = x
      ? `${x.key} on broker ${x.broker}: a batch appended at ${formatTime(x.appendedUs - h.startUs)} waited until ${formatTime(x.untilUs - h.startUs)} to be committed`
      : null;
    return { us: this.worst, example };
  }
}
