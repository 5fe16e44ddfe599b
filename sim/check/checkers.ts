import type { TraceNumbers } from '../core/numberedText';
import { dispatcher, dispatcherOf, handlerLists, type Handlers, type TraceEvent, type TraceEventOf, type TraceKind, type TraceKinds, type TraceSink } from '../core/trace';
import type { Check, CheckOptions, ReportOut } from './check';
import { History } from './history/history';
import { CHECK_NAMES, ERROR_CHECK_PREFIX, METRICS, partitionFigureName, type PartitionFigureName } from './names';
import { CHECK_DEFINITIONS } from './registry';
import type { CheckReport } from './report';

export type { CheckReport, CheckResult } from './report';
export { checkValue } from './report';

/**
 * Runs every checker over a trace. Each result names what it found; a report always holds every checker,
 * with count 0 when nothing was found.
 */
export function runCheckers(events: readonly TraceEvent[], options: CheckersOptions = {}): CheckReport {
  const c = new Checkers(options);
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
  private readonly checks: readonly Check[];
  /** The handlers of every kind but the ones route calls itself. */
  private readonly others: (e: TraceEvent) => void;
  private reported: CheckReport | undefined;
  /** A window's bounds in scenario time, and once scenario.start is seen in trace time (null: the whole run). */
  private readonly window: { readonly fromUs: number; readonly toUs: number } | null;
  private windowUs: { from: number; to: number } | null = null;
  private readonly beforeWindow: ((e: TraceEvent) => void) | null;

  constructor(options: CheckersOptions = {}) {
    const figures = (options.figures ?? []).map(partitionFigureName).filter((f): f is PartitionFigureName => f !== null);
    const opts: CheckOptions = { figures };
    this.checks = CHECK_DEFINITIONS.map((d) => d.make(this.h, opts));
    const lists = handlerLists([...this.h.handlers, ...this.checks.flatMap((c): readonly Handlers[] => (c.handlers === undefined ? [] : Array.isArray(c.handlers) ? c.handlers : [c.handlers as Handlers]))]);
    const hot = <K extends TraceKind>(kind: K): readonly ((e: TraceEventOf<K>) => void)[] => {
      const list = lists.get(kind) ?? [];
      lists.delete(kind);
      return list;
    };
    this.onInvoke = hot('send.invoke');
    this.onOk = hot('send.ok');
    this.onAppend = hot('replica.append');
    this.onHw = hot('replica.hw');
    this.onPoll = hot('consumer.poll');
    this.onProcessed = hot('consumer.processed');
    this.others = dispatcherOf<TraceKinds>(lists);
    this.window = options.window ?? null;
    this.beforeWindow = this.window ? dispatcher(...this.checks.flatMap((c) => (c.beforeWindow ? [c.beforeWindow] : []))) : null;
    if (options.fromFinalHistory === true) this.h.sends.irregular = true;
  }

  // The kinds a run emits per record or per batch, with their handlers (route).
  private readonly onInvoke: readonly ((e: TraceEventOf<'send.invoke'>) => void)[];
  private readonly onOk: readonly ((e: TraceEventOf<'send.ok'>) => void)[];
  private readonly onAppend: readonly ((e: TraceEventOf<'replica.append'>) => void)[];
  private readonly onHw: readonly ((e: TraceEventOf<'replica.hw'>) => void)[];
  private readonly onPoll: readonly ((e: TraceEventOf<'consumer.poll'>) => void)[];
  private readonly onProcessed: readonly ((e: TraceEventOf<'consumer.processed'>) => void)[];

  /**
   * Hands an event to its kind's handlers. The kinds a run emits per record or per batch call theirs from a call
   * site of their own, which sees only that kind's few handlers (V8 can inline them); one shared call site for
   * every kind's handlers would see them all (megamorphic: no inlining, a lookup per call). The rest share it.
   * The cases repeat on purpose: a loop written once would be one call site again.
   */
  private route(e: TraceEvent): void {
    switch (e.kind) {
      case 'send.invoke': {
        const l = this.onInvoke;
        for (let i = 0; i < l.length; i++) l[i]!(e);
        return;
      }
      case 'send.ok': {
        const l = this.onOk;
        for (let i = 0; i < l.length; i++) l[i]!(e);
        return;
      }
      case 'replica.append': {
        const l = this.onAppend;
        for (let i = 0; i < l.length; i++) l[i]!(e);
        return;
      }
      case 'replica.hw': {
        const l = this.onHw;
        for (let i = 0; i < l.length; i++) l[i]!(e);
        return;
      }
      case 'consumer.poll': {
        const l = this.onPoll;
        for (let i = 0; i < l.length; i++) l[i]!(e);
        return;
      }
      case 'consumer.processed': {
        const l = this.onProcessed;
        for (let i = 0; i < l.length; i++) l[i]!(e);
        return;
      }
      default:
        this.others(e);
    }
  }

  event(e: TraceEvent, _line?: string, numbers?: TraceNumbers): void {
    if (this.reported) return;
    this.h.numbers.value = numbers;
    if (this.window === null) {
      this.h.lastEventUs = e.t;
      this.route(e);
      return;
    }
    // Over a window: scenario.start sets the clock; events before the window reach only the checks' beforeWindow
    // folds, events after it nothing; the window's own events everything.
    if (e.kind === 'scenario.start') {
      this.windowUs = { from: e.t + this.window.fromUs, to: e.t + this.window.toUs };
      this.h.windowStartUs = this.windowUs.from;
      this.h.lastEventUs = e.t;
      this.route(e);
      return;
    }
    const w = this.windowUs;
    if (w === null || e.t < w.from) {
      this.beforeWindow!(e);
      return;
    }
    this.h.lastEventUs = Math.min(e.t, w.to);
    if (e.t <= w.to) this.route(e);
  }

  report(): CheckReport {
    if (this.reported) return this.reported;
    // A window ends at its end (or at the run's, if that came first), not at its last event: a stall lasts to it.
    if (this.windowUs !== null) this.h.endUs = Math.min(this.windowUs.to, Math.max(this.h.endUs, this.h.lastEventUs));
    this.h.finish();
    const out: ReportOut = {};
    for (const c of this.checks) c.report(out);
    for (const name of CHECK_NAMES) if (!Object.hasOwn(out, name)) throw new Error(`checker ${name} produced no result`);
    this.reported = inReportOrder(out);
    return this.reported;
  }
}

export interface CheckersOptions {
  /**
   * Judge every check from the final history (a pass over every send at the end), as the checks do anyway for a
   * trace whose sends change after their answers: to compare with the figures the checks fold as the run goes,
   * which must be the same.
   */
  readonly fromFinalHistory?: boolean;
  /** Per-partition figures to compute besides every check (`unavailability.longest-ms.orders-0`; names.ts PARTITION_FIGURES). */
  readonly figures?: readonly string[];
  /** Judge only what happened in this window of scenario time (microseconds from scenario.start; an expectation's "during"). */
  readonly window?: { readonly fromUs: number; readonly toUs: number };
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
