import { Checkers, type CheckReport } from '../check/checkers';
import { checkValue } from '../check/report';
import { partitionFigureName } from '../check/names';
import type { TraceNumbers } from '../core/numberedText';
import type { TraceEvent, TraceSink } from '../core/trace';
import type { ScenarioExpectation } from './validate';

/**
 * The checkers a scenario's expectations need, as one trace sink: the whole run's (with the per-partition figures
 * the expectations or the caller name) and one more per distinct "during" window, each folding only its window's
 * events. A run and a saved trace (`kafkasim check`) judge expectations through this, so both agree.
 */
export class ExpectationCheckers implements TraceSink {
  private readonly whole: Checkers;
  private readonly windows = new Map<string, Checkers>();
  private readonly sinks: Checkers[];

  constructor(
    private readonly expect: readonly ScenarioExpectation[],
    /** More per-partition figures to report (`kafkasim run --figure`). */
    extraFigures: readonly string[] = [],
  ) {
    const named = expect.map((e) => e.check).filter((c) => partitionFigureName(c) !== null);
    this.whole = new Checkers({ figures: [...new Set([...named, ...extraFigures])] });
    for (const e of expect) {
      if (!e.window) continue;
      const k = windowKey(e.window);
      if (!this.windows.has(k)) this.windows.set(k, new Checkers({ figures: named, window: e.window }));
    }
    this.sinks = [this.whole, ...this.windows.values()];
    this.sink = this.windows.size === 0 ? this.whole : this;
  }

  /**
   * What to hand the trace: the whole run's checkers themselves when no expectation has a window (the usual
   * case), so each event reaches them without a call through this wrapper; else this.
   */
  readonly sink: TraceSink;

  /** Hands each checker what the trace hands along (the emitter's numbers), so none parses a record's texts back. */
  event(e: TraceEvent, line = '', numbers?: TraceNumbers): void {
    for (const c of this.sinks) c.event(e, line, numbers);
  }

  /** The whole run's report. */
  report(): CheckReport {
    return this.whole.report();
  }

  /** What an expectation observed: over its window, or over the whole run. */
  observed(e: ScenarioExpectation): number {
    return checkValue(e.window ? this.windows.get(windowKey(e.window))!.report() : this.whole.report(), e.check);
  }
}

function windowKey(w: { readonly fromUs: number; readonly toUs: number }): string {
  return `${w.fromUs}-${w.toUs}`;
}
