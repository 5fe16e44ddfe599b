/**
 * What the checkers cost on one benchmark workload, run in this process with the checkers on or off; prints one
 * JSON line. "on": the checkers fold the run through a sink this script owns, so at the end of the run (forced
 * GC at scenario.end, before the report) it can measure the live memory with their state and again after
 * letting it go: the difference is what they hold (JS heap plus the array buffers of their typed columns), per
 * acknowledged record. Both modes report wall and CPU time, so the bench can set them side by side. Needs
 * --expose-gc.
 */
import { Checkers, type CheckReport } from '../../sim/check/checkers';
import type { TraceSink } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { WORKLOADS } from './workloads';

const [name = 'steady', mode = 'on', duration] = process.argv.slice(2);
const spec = WORKLOADS[name];
if (!spec || (mode !== 'on' && mode !== 'off')) {
  console.error(`usage: checkerCost.ts <${Object.keys(WORKLOADS).join('|')}> <on|off> [duration]`);
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('checkerCost.ts needs node --expose-gc');
  process.exit(2);
}

/** The JS heap plus array buffers (typed arrays' memory lives outside the heap), after a full collection. */
function liveBytes(): number {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

let acked = 0;
let checkerBytes = 0;
let checkers: Checkers | null = mode === 'on' ? new Checkers() : null;
let report: CheckReport | undefined;
const sink: TraceSink = {
  event(e, line, numbers) {
    checkers?.event(e, line, numbers);
    // The acknowledged records, counted the same way both ways (from send.ok, not by the checkers).
    if (e.kind === 'send.ok' && e.offset >= 0) acked += e.values.length;
    if (e.kind === 'scenario.end') {
      // The same collections both ways, so they weigh the same in the CPU times compared.
      report = checkers?.report();
      const withState = liveBytes();
      checkers = null;
      checkerBytes = withState - liveBytes();
    }
  },
};
const scenario = validateScenario(duration ? { ...spec, duration } : spec);
const cpu0 = process.cpuUsage().user;
const t0 = performance.now();
const r = runScenario(scenario, { hash: false, keepEvents: false, checkers: false, sinks: [sink] });
const wallSeconds = (performance.now() - t0) / 1000;
const cpuSeconds = (process.cpuUsage().user - cpu0) / 1e6;
console.log(
  JSON.stringify({
    mode,
    wallSeconds: Number(wallSeconds.toFixed(3)),
    cpuSeconds: Number(cpuSeconds.toFixed(3)),
    acked,
    checkerBytes,
    bytesPerAckedRecord: acked > 0 ? Math.round(checkerBytes / acked) : 0,
    events: r.engineEvents,
    reportedAcked: report?.acked?.count ?? null,
  }),
);
