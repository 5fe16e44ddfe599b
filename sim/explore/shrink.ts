import fc from 'fast-check';
import type { ScenarioSpec } from '../scenario/spec';
import type { PropertyOptions, RunProperty } from './properties/index';
import { runCase, type CaseOutcome } from './runCase';

export interface ShrinkProgress {
  /** Simulation runs spent so far. */
  readonly runs: number;
  /** Failing candidates adopted so far. */
  readonly shrinks: number;
  /** Fault entries in the smallest failing scenario so far. */
  readonly faults: number;
}

export interface Shrunk {
  readonly spec: ScenarioSpec;
  readonly outcome: CaseOutcome;
  /** fast-check's path of the counterexample (replay: the sweep's fast-check seed and this path). */
  readonly path: string;
  readonly shrinks: number;
  readonly runs: number;
}

/**
 * Shrinks the failing run at (fcSeed, path) with fast-check's own shrinker: it replays the value at that
 * path and walks toward smaller values (fewer faults, earlier and shorter ones, simpler settings),
 * keeping each candidate that still fails. At most `maxRuns` simulations are spent (a count, not a time,
 * so the result does not depend on the machine); once they are, the remaining candidates are declined.
 * `failing` is the run's own outcome, known to fail, so it is not run again.
 */
export function shrinkFailure(
  arb: fc.Arbitrary<ScenarioSpec>,
  property: RunProperty,
  opts: PropertyOptions,
  at: { fcSeed: number; path: string },
  failing: { spec: ScenarioSpec; outcome: CaseOutcome },
  maxRuns: number,
  onProgress?: (p: ShrinkProgress) => void,
): Shrunk {
  let calls = 0;
  let runs = 0;
  let shrinks = 0;
  let best = failing;
  let replayed = true;
  const result = fc.check(
    fc.property(arb, (spec) => {
      calls++;
      if (calls === 1) {
        replayed = JSON.stringify(spec) === JSON.stringify(failing.spec);
        return false;
      }
      if (runs >= maxRuns) return true;
      runs++;
      const outcome = runCase(spec, property, opts);
      if (!outcome.ok) {
        shrinks++;
        best = { spec, outcome };
      }
      onProgress?.({ runs, shrinks, faults: best.outcome.faults });
      return outcome.ok;
    }),
    { seed: at.fcSeed, path: at.path, numRuns: 1 },
  );
  if (!replayed) throw new Error(`run ${at.path} of fast-check seed ${at.fcSeed} is not the scenario that failed: the generator is not deterministic`);
  if (!result.failed || result.counterexample === null) {
    throw new Error(`run ${at.path} of fast-check seed ${at.fcSeed} did not fail again while shrinking`);
  }
  return { spec: best.spec, outcome: best.outcome, path: result.counterexamplePath ?? at.path, shrinks, runs };
}
