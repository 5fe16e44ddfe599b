import type fc from 'fast-check';
import { ValidationError } from '../core/validate';
import type { ScenarioSpec } from '../scenario/spec';
import { caseSpec, exploreArbitrary, planProperty, propertyOptions, runAddress, type ExplorePlan, DEFAULT_SHRINK_RUNS } from './plan';
import type { PropertyOptions, RunProperty } from './properties/index';
import { runCase, type CaseOutcome } from './runCase';
import { shrinkFailure } from './shrink';
import type { Counterexample } from './sweep';

/** Work for one worker: run k of the sweep, or shrink run k (known to fail with `outcome`). */
export type Task = { readonly type: 'run'; readonly k: number } | { readonly type: 'shrink'; readonly k: number; readonly outcome: CaseOutcome };

/** What a worker sends back. A failing run carries its scenario, so a finding can be saved at once. */
export type Reply =
  | { readonly type: 'run'; readonly k: number; readonly outcome: CaseOutcome; readonly spec?: ScenarioSpec }
  | { readonly type: 'shrink-step'; readonly k: number; readonly runs: number; readonly shrinks: number; readonly faults: number }
  | ({ readonly type: 'shrunk' } & Counterexample)
  | {
      readonly type: 'error';
      /** The run it happened in. */
      readonly k: number;
      /** The drawn scenario was refused by the validator (the overrides and the draw do not fit together), not a crash. */
      readonly invalid: boolean;
      /** One line. */
      readonly message: string;
      readonly stack?: string;
    };

/** Runs and shrinks the cases of one plan; each worker thread holds one (and so does an in-process sweep). */
export class CaseRunner {
  readonly arb: fc.Arbitrary<ScenarioSpec>;
  readonly property: RunProperty;
  readonly opts: PropertyOptions;

  constructor(readonly plan: ExplorePlan) {
    this.arb = exploreArbitrary(plan);
    this.property = planProperty(plan);
    this.opts = propertyOptions(plan);
  }

  spec(k: number): ScenarioSpec {
    return caseSpec(this.arb, this.plan.seed, k);
  }

  run(k: number): Reply {
    const spec = this.spec(k);
    const outcome = runCase(spec, this.property, this.opts);
    return outcome.ok ? { type: 'run', k, outcome } : { type: 'run', k, outcome, spec };
  }

  shrink(k: number, outcome: CaseOutcome, onStep: (r: Reply) => void): Reply {
    const spec = this.spec(k);
    const budget = this.plan.shrinkRuns ?? DEFAULT_SHRINK_RUNS;
    if (budget <= 0) return { type: 'shrunk', k, spec, outcome, path: runAddress(this.plan.seed, k).path, shrinks: 0, runs: 0 };
    const s = shrinkFailure(this.arb, this.property, this.opts, runAddress(this.plan.seed, k), { spec, outcome }, budget, (p) =>
      onStep({ type: 'shrink-step', k, ...p }),
    );
    return { type: 'shrunk', k, spec: s.spec, outcome: s.outcome, path: s.path, shrinks: s.shrinks, runs: s.runs };
  }

  handle(task: Task, reply: (r: Reply) => void): void {
    try {
      if (task.type === 'run') reply(this.run(task.k));
      else reply(this.shrink(task.k, task.outcome, reply));
    } catch (e) {
      const invalid = e instanceof ValidationError;
      const message = e instanceof Error ? (invalid || e.name === 'Error' ? e.message : `${e.name}: ${e.message}`) : String(e);
      reply({ type: 'error', k: task.k, invalid, message: message.split('\n')[0]!, ...(e instanceof Error && e.stack !== undefined && { stack: e.stack }) });
    }
  }
}

