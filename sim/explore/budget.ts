import type { FaultEntry } from '../world/nemesis';

/**
 * How much may fail at once, enforced while a schedule is built (so shrinking never leaves the budget):
 * - `one-at-a-time`: one fault at a time, each on one host, and `settleMs` after each before the next
 *   (time to restart, recover the log and rejoin the ISR) — the failure model Kafka's durability promise
 *   (acks=all, replication factor 3, min.insync.replicas=2) is made for;
 * - `no-correlated-power-loss`: anything overlaps, but a power loss hits one host and never overlaps another
 *   power loss (page caches are not lost together);
 * - `none`: anything, including power loss of several hosts at once.
 */
export const BUDGETS = ['one-at-a-time', 'no-correlated-power-loss', 'none'] as const;
export type Budget = (typeof BUDGETS)[number];

/** Fault kinds whose entries impair hosts while they last (all the generated ones). */
const POWER = 'power-loss';

/** The hosts-side selectors of an entry (what it impairs), for the budget rules. */
function impaired(e: FaultEntry): readonly string[] {
  if (e.targets) return e.targets;
  // A cut impairs its small side: the host cut off, not "the rest of the cluster".
  if (e.groups) return [...e.groups].sort((a, b) => Number(isSeveral(a)) - Number(isSeveral(b)))[0] ?? [];
  if (e.from && e.to) return isSeveral(e.from) ? e.to : e.from;
  return [];
}

function startMs(e: FaultEntry): number {
  return typeof e.at === 'number' ? e.at : Number.NaN;
}

function endMs(e: FaultEntry): number {
  return startMs(e) + (typeof e.duration === 'number' ? e.duration : Number.POSITIVE_INFINITY);
}

/** Selectors that may stand for more than one host. */
export function isSeveral(selectors: readonly string[]): boolean {
  return selectors.length > 1 || selectors.some((s) => s.startsWith('follower:') || s.startsWith('tag:') || s.startsWith('zone:') || s.startsWith('rack:') || s === '*');
}

/**
 * Whether a schedule (times in ms, as the generators write them) keeps to a budget; the first rule it
 * breaks, or null. The generators build schedules that keep to their budget; this checks them.
 */
export function budgetViolation(entries: readonly FaultEntry[], budget: Budget, settleMs = 0): string | null {
  if (budget === 'none') return null;
  const sorted = entries.map((e, i) => ({ e, i })).sort((a, b) => startMs(a.e) - startMs(b.e) || a.i - b.i);
  for (let x = 0; x < sorted.length; x++) {
    const a = sorted[x]!;
    if (budget === 'one-at-a-time') {
      if (isSeveral(impaired(a.e))) return `fault #${a.i} (${a.e.fault}) hits more than one host`;
      const next = sorted[x + 1];
      if (next && startMs(next.e) < endMs(a.e) + settleMs) return `fault #${next.i} starts before fault #${a.i} has ended and settled`;
      continue;
    }
    if (a.e.fault !== POWER) continue;
    if (isSeveral(impaired(a.e))) return `power loss #${a.i} hits more than one host`;
    for (let y = x + 1; y < sorted.length; y++) {
      const b = sorted[y]!;
      if (b.e.fault === POWER && startMs(b.e) < endMs(a.e)) return `power losses #${a.i} and #${b.i} overlap`;
    }
  }
  return null;
}
