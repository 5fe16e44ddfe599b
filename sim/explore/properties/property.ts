import type { TraceEvent } from '../../core/trace';
import type { CheckReport } from '../../check/checkers';
import { isKnownCheck } from '../../check/names';
import type { ExpectationSpec, ScenarioSpec } from '../../scenario/spec';

/** What a property reads from one run: the trace (empty unless the property `needsTrace`) and the checkers' report. */
export interface RunOutcome {
  readonly trace: readonly TraceEvent[];
  readonly checks: CheckReport;
}

/** Whether a property held in one run, how often it was broken, and a few examples in words. */
export interface Verdict {
  readonly ok: boolean;
  readonly count: number;
  readonly examples: readonly string[];
}

/** Options some properties take (from the command line). */
export interface PropertyOptions {
  /** eventually-available: writes must succeed again this long after the last heal (ms). */
  readonly withinMs?: number;
}

/**
 * A named guarantee judged over one run. `evaluate` is a pure function of the run's trace and checks.
 * `expectation` is the scenario expectation that states the same guarantee, when the checkers report it:
 * a counterexample file carries it in `expect`, so `kafkasim run file.json` fails exactly when the
 * property does. `tailor` makes a generated scenario able to show the property (for example a consumer
 * group for group-exclusivity); the user's --set overrides are applied after it and win.
 */
export interface RunProperty {
  readonly name: string;
  readonly description: string;
  expectation(opts: PropertyOptions): ExpectationSpec | null;
  evaluate(run: RunOutcome, opts: PropertyOptions): Verdict;
  /** The property reads the trace itself, so its runs keep it in memory (the others are judged from the checks). */
  readonly needsTrace?: boolean;
  tailor?(spec: ScenarioSpec, opts: PropertyOptions): ScenarioSpec;
}

const MAX_EXAMPLES = 5;

export function verdict(count: number, examples: readonly string[]): Verdict {
  return { ok: count === 0, count, examples: examples.slice(0, MAX_EXAMPLES) };
}

/** A property that is exactly "check = 0" over the checkers' report. */
export function checkProperty(name: string, check: string, description: string, tailor?: RunProperty['tailor']): RunProperty {
  return {
    name,
    description,
    expectation: () => ({ check, op: '=', value: 0, description: `${name}: ${check} = 0` }),
    evaluate: (run) => {
      const r = run.checks[check];
      return verdict(r?.count ?? 0, r?.examples ?? []);
    },
    ...(tailor && { tailor }),
  };
}

/**
 * The expectation for a property the checkers do not report yet: used as soon as a check of that name
 * exists (see the report of issue 10), so counterexample files reproduce through `kafkasim run` then.
 */
export function futureCheck(check: string, op: ExpectationSpec['op'], value: number, description: string): ExpectationSpec | null {
  return isKnownCheck(check) ? { check, op, value, description } : null;
}
