import { getHeapStatistics } from 'node:v8'; // determinism-ok: runs outside any simulation
import { estimateRunMemory } from '../scenario/memoryEstimate';
import type { Scenario } from '../scenario/validate';
import { CliError } from './errors';

/** The share of Node's heap limit a run may plan to use (the rest is headroom for the checkers' report and GC). */
export const HEAP_SHARE = 0.85;

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MB`;

/**
 * Refuses, before it starts, a run that would not fit in this process's heap (estimateRunMemory's measured
 * figures against V8's heap_size_limit), instead of letting it die of V8's out-of-memory report hours in.
 */
export function checkRunFits(s: Scenario, heapLimit = getHeapStatistics().heap_size_limit): void {
  const { records, bytes } = estimateRunMemory(s);
  if (bytes <= HEAP_SHARE * heapLimit) return;
  throw new CliError(
    `${s.id} would not fit in memory: about ${records.toLocaleString('en-US')} records, about ${mb(bytes)} of heap, and Node's heap limit here is ${mb(heapLimit)}; shorten the run, lower the rate or set maxRecords, or raise the limit with NODE_OPTIONS=--max-old-space-size=${Math.ceil(bytes / HEAP_SHARE / 2 ** 20)}`,
  );
}
