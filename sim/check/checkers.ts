import type { TraceNumbers } from '../core/numberedText';
import { dispatcher, type Handlers, type TraceEvent, type TraceSink } from '../core/trace';
import type { Check, ReportOut } from './check';
import { History } from './history/history';
import { CHECK_NAMES, ERROR_CHECK_PREFIX, METRICS } from './names';
import { CHECK_DEFINITIONS } from './registry';
import type { CheckReport } from './report';

export type { CheckReport, CheckResult } from './report';
export { checkValue } from './report';

/**
 * Runs every checker over a trace. Each result names what it found; a report always holds every checker,
 * with count 0 when nothing was found.
 */
export function runCheckers(events: readonly TraceEvent[]): CheckReport {
  const c = new Checkers();
  for (const e of events) c.event(e);
  return c.report();
}

/**
 * The checkers as a trace sink: the history and every check of the table fold each event as the run emits it
 * (or as `runCheckers` reads a saved trace), keeping numbers per record rather than the events, so a run need
 * not keep its trace to be checked. The report is the same either way; it is final: events after it are not
 * looked at.
 */
export class Checkers implements TraceSink {
  private readonly h = new History();
  private readonly checks: readonly Check[] = CHECK_DEFINITIONS.map((d) => d.make(this.h));
  private readonly dispatch = dispatcher(...this.h.handlers, ...this.checks.flatMap((c): readonly Handlers[] => (c.handlers === undefined ? [] : Array.isArray(c.handlers) ? c.handlers : [c.handlers as Handlers])));
  private reported: CheckReport | undefined;

  /**
   * @param options.fromFinalHistory judge every check from the final history (a pass over every send at the end),
   * as the checks do anyway for a trace whose sends change after their answers: to compare with the figures the
   * checks fold as the run goes, which must be the same.
   */
  constructor(options: { readonly fromFinalHistory?: boolean } = {}) {
    if (options.fromFinalHistory === true) this.h.sends.irregular = true;
  }

  event(e: TraceEvent, _line?: string, numbers?: TraceNumbers): void {
    if (this.reported) return;
    this.h.lastEventUs = e.t;
    this.h.numbers.value = numbers;
    this.dispatch(e);
  }

  report(): CheckReport {
    if (this.reported) return this.reported;
    this.h.finish();
    const out: ReportOut = {};
    for (const c of this.checks) c.report(out);
    for (const name of CHECK_NAMES) if (!Object.hasOwn(out, name)) throw new Error(`checker ${name} produced no result`);
    this.reported = inReportOrder(out);
    return this.reported;
  }
}

/** The order results are listed in: the checks' table order, then errors by name, then the figures, then the per-group figures. */
const LISTED: readonly string[] = [
  'acked',
  'send-failed',
  'send-unknown',
  'lost-write',
  'records-read',
  'lost-write-jepsen',
  'unseen',
  'duplicate',
  'inconsistent-offsets',
  'poll-skip',
  'nonmonotonic-poll',
  'nonmonotonic-send',
  'G1a',
  'read-then-truncated',
  'leader-epoch-conflict',
  'high-watermark-regression',
  'elected-outside-isr',
  'elections',
  'controller-elections',
  'acked-unflushed',
  'group-overlap',
  'commit-backwards',
  're-reads',
  'rebalances',
  'rebalance.pause-ms',
  'dead-lettered',
  'lag.max',
  'lag.final',
  'unavailability.longest-ms',
  'unavailability.total-ms',
  'latency.p50-ms',
  'latency.p99-ms',
  'e2e.p99-ms',
];

function inReportOrder(out: ReportOut): CheckReport {
  const ordered: CheckReport = {};
  for (const name of LISTED) if (Object.hasOwn(out, name)) ordered[name] = out[name]!;
  for (const name of Object.keys(out).filter((k) => k.startsWith(ERROR_CHECK_PREFIX)).sort()) ordered[name] = out[name]!;
  for (const name of Object.keys(METRICS)) if (Object.hasOwn(out, name)) ordered[name] = out[name]!;
  for (const name of Object.keys(out)) if (!Object.hasOwn(ordered, name)) ordered[name] = out[name]!;
  return ordered;
}
