/**
 * Runs one benchmark workload in this process and prints one JSON line with its figures. The bench
 * harness starts a fresh process per run, so peak memory is the run's own.
 */
import { runScenario } from '../../sim/scenario/runner';
import { cutToDuration } from '../../sim/scenario/cutDuration';
import { validateScenario } from '../../sim/scenario/validate';
import { WORKLOADS } from './workloads';

const name = process.argv[2] ?? '';
const spec = WORKLOADS[name];
if (!spec) {
  console.error(`no workload named ${JSON.stringify(name)}; the workloads are: ${Object.keys(WORKLOADS).join(', ')}`);
  process.exit(2);
}
// An optional second argument shortens the run (e.g. "10s") for a quick look; the bench uses the full duration.
const scenario = validateScenario(process.argv[3] ? cutToDuration(spec, process.argv[3]).spec : spec);
const c0 = process.cpuUsage(); // determinism-ok: the bench, outside any simulation
const t0 = performance.now();
const r = runScenario(scenario, { hash: false, keepEvents: false });
const wallSeconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0); // determinism-ok: the bench, outside any simulation
// CPU seconds of the run (user + system, all of this process's threads): what a shared machine does not inflate.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const simulatedSeconds = r.simulatedMs / 1000;
const acked = r.checks.acked?.count ?? 0;
// Live heap after a forced GC at the end, while the run's result (and through it the cluster's logs, page cache,
// scheduler and checkers) is still held: what a run of this size keeps per acknowledged record. Typed arrays'
// contents (record slabs, disk columns, the checkers' columns) live outside the JS heap and count too.
const gc = (globalThis as { gc?: () => void }).gc;
let bytesPerRecord: number | null = null;
if (gc) {
  gc();
  gc();
  const m = process.memoryUsage(); // determinism-ok: the bench, outside any simulation
  bytesPerRecord = acked > 0 ? Math.round((m.heapUsed + m.arrayBuffers) / acked) : null;
}
console.log(
  JSON.stringify({
    simulatedSeconds,
    wallSeconds: Number(wallSeconds.toFixed(3)),
    events: r.engineEvents,
    eventsPerSec: Math.round(r.engineEvents / wallSeconds),
    compression: Number((simulatedSeconds / wallSeconds).toFixed(2)),
    cpuSeconds: Number(cpuSeconds.toFixed(3)),
    cpuCompression: Number((simulatedSeconds / cpuSeconds).toFixed(2)),
    peakMemoryMB: Math.round(process.resourceUsage().maxRSS / 1024),
    usPerEvent: Number(((wallSeconds * 1e6) / r.engineEvents).toFixed(2)),
    bytesPerRecord,
    acked,
    recordsRead: r.checks['records-read']?.count ?? 0,
  }),
);
