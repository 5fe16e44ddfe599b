import { ValidationError } from '../core/validate';
import { runScenario } from '../scenario/runner';
import type { ScenarioSpec } from '../scenario/spec';
import { validateScenario } from '../scenario/validate';
import type { PropertyOptions, RunProperty, Verdict } from './properties/index';

/** One run judged by a property. `error` is set when the simulator itself threw: that is a finding too. */
export interface CaseOutcome {
  readonly ok: boolean;
  readonly verdict: Verdict;
  readonly faults: number;
  readonly simulatedMs: number;
  readonly engineEvents: number;
  readonly error?: string;
}

/**
 * Runs one scenario document and judges it. A document the validator refuses is a bug of the generator
 * and throws; an exception inside the simulation is reported as a failed run with the error as its example.
 * The run records a minimal trace (no followers' copies or high watermarks: the checkers and properties do
 * not read them) unless the scenario asks for the full one; the trace's detail never changes the run. The
 * checkers fold it as it goes by; it stays in memory only for a property that reads it (`needsTrace`).
 */
export function runCase(spec: ScenarioSpec, property: RunProperty, opts: PropertyOptions): CaseOutcome {
  const scenario = validateScenario(spec.trace === 'full' ? spec : { ...spec, trace: 'minimal' });
  const faults = scenario.faults.length;
  try {
    const r = runScenario(scenario, { hash: false, keepEvents: property.needsTrace === true, maxEvents: eventLimit(scenario.durationUs + scenario.quietUs) });
    const verdict = property.evaluate({ trace: r.trace, checks: r.checks }, opts);
    return { ok: verdict.ok, verdict, faults, simulatedMs: r.simulatedMs, engineEvents: r.engineEvents };
  } catch (e) {
    // A cluster that cannot boot with the drawn configs is a scenario to refuse, not a finding.
    if (e instanceof ValidationError) throw e;
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { ok: false, verdict: { ok: false, count: 1, examples: [`the simulator threw ${message}`] }, faults, simulatedMs: 0, engineEvents: 0, error: message };
  }
}

/**
 * A bound no healthy run comes near (they dispatch tens of thousands of events per simulated second): past it
 * the run is a storm, reported as a failed run (a RunawayRunError) instead of eating the machine's memory.
 */
export function eventLimit(simulatedUs: number): number {
  return Math.max(2_000_000, Math.ceil((simulatedUs / 1e6) * 300_000));
}
