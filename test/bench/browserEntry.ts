/**
 * The bench's browser entry: runs one workload of workloads.ts and returns its figures. Bundled once and
 * loaded both in headless Chromium and in Node, so the two run the same code.
 */
import { runScenario } from '../../sim/scenario/runner';
import { cutToDuration } from '../../sim/scenario/cutDuration';
import { validateScenario } from '../../sim/scenario/validate';
import { WORKLOADS } from './workloads';

export interface BenchRun {
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly events: number;
}

function kafkasimBench(name: string, duration?: string): BenchRun {
  const spec = WORKLOADS[name];
  if (!spec) throw new Error(`no workload named ${name}`);
  const scenario = validateScenario(duration ? cutToDuration(spec, duration).spec : spec);
  const t0 = performance.now();
  const r = runScenario(scenario, { hash: false, keepEvents: false });
  return { simulatedSeconds: r.simulatedMs / 1000, wallSeconds: (performance.now() - t0) / 1000, events: r.engineEvents };
}

(globalThis as { kafkasimBench?: typeof kafkasimBench }).kafkasimBench = kafkasimBench;
