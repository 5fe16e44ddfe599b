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
  'partition.max-share-pct': 'the busiest partition\'s share of acknowledged records (percent)',
  'final.records': 'records in the final committed logs of the scenario\'s topics',
  'segments.deleted': 'log segments deleted by retention (all replicas)',
  'records.compacted-away': 'records the log cleaner removed (all replicas)',
  'group.idle-members': 'members owning no partition at the end, in the group with the most of them',
} as const;

export type MetricName = keyof typeof METRICS;

const r = (count: number, examples: string[] = []): CheckResult => ({ count, examples: examples.slice(0, 5) });

export function metricChecks(events: readonly TraceEvent[], h: History): Record<MetricName, CheckResult> {
  let batches = 0;
  let batchRecords = 0;
  const perPartition = new Map<string, number>();
  let segmentsDeleted = 0;
  let compactedAway = 0;
  for (const e of events) {
    if (e.kind === 'send.ok') {
      batches++;
      const n = (e.values as string[]).length;
      batchRecords += n;
      const k = tp(e.topic as string, e.partition as number);
      perPartition.set(k, (perPartition.get(k) ?? 0) + n);
    } else if (e.kind === 'log.retention') {
      segmentsDeleted += (e.segments as number[]).length;
    } else if (e.kind === 'log.clean') {
      compactedAway += e.recordsRemoved as number;
    }
  }
  const total = [...perPartition.values()].reduce((a, b) => a + b, 0);
  const busiest = [...perPartition].sort((a, b) => b[1] - a[1])[0];
  let finalRecords = 0;
  for (const f of h.finals.values()) finalRecords += f.offsets.length;

  // Ownership at the end, per group: the last assignment each live member reported.
  const owned = new Map<string, Map<string, number>>();
  for (const e of events) {
    if (e.kind === 'consumer.assignment' && e.group) {
      let g = owned.get(e.group as string);
      if (!g) owned.set(e.group as string, (g = new Map()));
      g.set(e.node, (e.owned as string[]).length);
    } else if (e.kind === 'host.crash' || e.kind === 'host.power-off' || e.kind === 'consumer.close') {
      const procs = e.kind === 'consumer.close' ? [e.node] : ((e.processes as string[]) ?? []);
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
  return {
    'produce.batches': r(batches),
    'produce.records-per-batch': r(batches === 0 ? 0 : Math.round((batchRecords / batches) * 100) / 100),
    'partition.max-share-pct': r(total === 0 ? 0 : Math.round((busiest![1] / total) * 1000) / 10, busiest ? [`${busiest[0]} took ${busiest[1]} of ${total} records`] : []),
    'final.records': r(finalRecords),
    'segments.deleted': r(segmentsDeleted),
    'records.compacted-away': r(compactedAway),
    'group.idle-members': r(idle, idleExamples),
  };
}
