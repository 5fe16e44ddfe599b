/**
 * The scenario's alert rules as checks: `alert.<name>` counts how often the rule fired, and each firing says
 * when the condition first held, when the alert fired, and when it resolved (or that it still fired at the
 * end), in scenario time. Read from the trace's alert.rule / alert.fire / alert.resolve events
 * (kafka/metrics/sampler.ts), so a saved trace reports the same.
 */
import { formatTime } from '../core/time';
import type { TraceEvent } from '../core/trace';
import type { CheckResult } from './report';
import { FIGURE, type CheckDefinition } from './check';

/** The check an alert is reported under. */
export const ALERT_CHECK_PREFIX = 'alert.';

/** One firing, in microseconds of scenario time. */
export interface AlertInterval {
  readonly pendingUs: number;
  readonly firedUs: number;
  /** null: still firing when the trace ended. */
  readonly resolvedUs: number | null;
  readonly peak: number;
}

export interface AlertReport {
  readonly name: string;
  readonly rule: string;
  readonly firings: readonly AlertInterval[];
}

/** Every rule of the trace with its firings; `startUs` is scenario time 0. */
export function alertReports(events: readonly TraceEvent[], startUs: number): AlertReport[] {
  const rules = new Map<string, { rule: string; firings: AlertInterval[]; open: { pendingUs: number; firedUs: number; peak: number } | null }>();
  for (const e of events) {
    if (e.kind === 'alert.rule') rules.set(e.name, { rule: e.rule, firings: [], open: null });
    else if (e.kind === 'alert.fire') {
      const r = rules.get(e.name);
      if (r) r.open = { pendingUs: e.pendingAtUs - startUs, firedUs: e.t - startUs, peak: e.value };
    } else if (e.kind === 'alert.resolve') {
      const r = rules.get(e.name);
      if (r?.open) {
        r.firings.push({ ...r.open, peak: e.peak, resolvedUs: e.t - startUs });
        r.open = null;
      }
    }
  }
  return [...rules].map(([name, r]) => ({ name, rule: r.rule, firings: r.open ? [...r.firings, { ...r.open, resolvedUs: null }] : r.firings }));
}

/** "fired at 31.000s (held since 1.000s), resolved at 45.000s, peak 2". */
export function describeFiring(f: AlertInterval): string {
  const end = f.resolvedUs === null ? 'still firing at the end' : `resolved at ${formatTime(f.resolvedUs)}`;
  const since = f.pendingUs === f.firedUs ? '' : ` (held since ${formatTime(f.pendingUs)})`;
  return `fired at ${formatTime(f.firedUs)}${since}, ${end}, peak ${f.peak}`;
}

/** The checks `alert.<name>`, one per rule, its firings as examples. */
export function alertChecks(events: readonly TraceEvent[], startUs: number): Record<string, CheckResult> {
  const out: Record<string, CheckResult> = {};
  for (const a of alertReports(events, startUs)) {
    out[ALERT_CHECK_PREFIX + a.name] = { count: a.firings.length, examples: a.firings.slice(0, 5).map(describeFiring), values: [a.rule] };
  }
  return out;
}

/** The table's check: it keeps the alert events (a few per rule) and reports every rule at the end. */
export const alerts: CheckDefinition = {
  id: 'alertChecks',
  source: FIGURE,
  make: (h) => {
    const seen: TraceEvent[] = [];
    const keep = (e: TraceEvent) => void seen.push(e);
    return {
      handlers: { 'alert.rule': keep, 'alert.fire': keep, 'alert.resolve': keep },
      report: (out) => {
        Object.assign(out, alertChecks(seen, h.startUs));
      },
    };
  },
};
