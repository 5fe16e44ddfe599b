import type { Scenario } from './validate';

/**
 * Heap a run holds at its end, as measured (`run` streaming its trace, Node 20, after a forced GC; session 7):
 * about 200 B per record written with replication factor 1 and 240 B with 3 at ~1.7 records per batch, and
 * 610 B with 3 at one record per batch (200 partitions at 2,000 records/s: a log keeps an object per batch, and
 * the checkers' per-partition bookkeeping grows with them); big (1,000 partitions, 20,000 records/s, minimal
 * trace) ~400 B. Each partition replica costs ~6 KB before any record (logs, segments, indexes, the checkers'
 * per-partition state), and an idle cluster a few KB per simulated second (heartbeats, metadata no-op records).
 * The figures below take the worst case measured (one record per batch) and add about a third for margin.
 */
export const BYTES_PER_RECORD = 700;
export const BYTES_PER_RECORD_REPLICA = 40;
export const BYTES_PER_PARTITION_REPLICA = 8192;
export const BYTES_PER_SIMULATED_SECOND = 4096;
/** The simulator itself, the scenario's clients and the cluster booted. */
export const BASE_BYTES = 64 * 2 ** 20;

export interface MemoryEstimate {
  /** Records the producers will send (rate times how long each workload runs, or its send times; maxRecords caps both). */
  readonly records: number;
  readonly bytes: number;
}

/** What a scenario's run will hold in memory, before it starts (see the figures above). */
export function estimateRunMemory(s: Scenario): MemoryEstimate {
  const rf = new Map(s.topics.map((t) => [t.name, t.replicationFactor]));
  const durationMs = s.durationUs / 1000;
  let records = 0;
  let bytes = BASE_BYTES + ((s.durationUs + s.quietUs) / 1e6) * BYTES_PER_SIMULATED_SECOND;
  for (const t of s.topics) bytes += t.partitions * t.replicationFactor * BYTES_PER_PARTITION_REPLICA;
  for (const p of s.producers) {
    for (const w of p.workloads) {
      const start = w.startMs ?? 0;
      const stop = Math.min(w.stopMs ?? durationMs, durationMs);
      let n = (w.at?.length ?? 0) + ((w.rate ?? 0) * Math.max(0, stop - start)) / 1000;
      if (w.maxRecords !== undefined) n = Math.min(n, w.maxRecords);
      records += n;
      bytes += n * (BYTES_PER_RECORD + BYTES_PER_RECORD_REPLICA * (rf.get(w.topic) ?? 1));
    }
  }
  return { records: Math.round(records), bytes: Math.round(bytes) };
}
