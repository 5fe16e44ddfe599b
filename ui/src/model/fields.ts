import type { UntypedTraceEvent as TraceEvent } from '../../../sim/core/trace';

/** Typed reads of an event's fields: a trace from a file may hold anything, so each read checks. */
export function num(e: TraceEvent, k: string, fallback = -1): number {
  const v = e[k];
  return typeof v === 'number' ? v : fallback;
}

export function str(e: TraceEvent, k: string, fallback = ''): string {
  const v = e[k];
  return typeof v === 'string' ? v : v === null || v === undefined ? fallback : String(v);
}

export function strOrNull(e: TraceEvent, k: string): string | null {
  const v = e[k];
  return typeof v === 'string' ? v : null;
}

export function nums(e: TraceEvent, k: string): number[] {
  const v = e[k];
  return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
}

export function strs(e: TraceEvent, k: string): string[] {
  const v = e[k];
  return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : [];
}

/** Values of an append or ack, keeping nulls (tombstones). */
export function values(e: TraceEvent, k: string): (string | null)[] {
  const v = e[k];
  return Array.isArray(v) ? v.map((x) => (x === null ? null : typeof x === 'string' ? x : String(x))) : [];
}

/** The broker id in a node name ("broker-3" -> 3), or -1. */
export function brokerOfNode(node: string): number {
  const m = /^broker-(\d+)$/.exec(node);
  return m ? Number(m[1]) : -1;
}

/** An ISR change event. The leader's proposal is traced as `replica.alter-isr`, but its `kind` field
 * (shrink|expand) overwrites the event kind, so current traces carry it as kind "shrink" or "expand". */
export function isIsrChange(e: TraceEvent): boolean {
  return e.kind === 'replica.alter-isr' || ((e.kind === 'shrink' || e.kind === 'expand') && Array.isArray(e['to']) && typeof e['topic'] === 'string');
}
