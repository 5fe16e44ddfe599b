/**
 * Where a workload's live memory sits at the end of a run: live heap (with the typed arrays' contents, which
 * live outside the JS heap: record slabs, disk columns, checkers' columns) after a forced GC, then again after each
 * holder is let go in turn (the scheduler's pending events, the checkers, the page cache, the logs), divided
 * by the acknowledged records. Objects two holders share (a batch in a log and in the page cache) count for
 * the one let go last. Not a test and not part of the bench JSON: a tool for looking.
 *
 *   node --expose-gc --import tsx test/bench/holders.ts big 6s [--snapshot[=FILE]]
 */
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { WORKLOADS } from './workloads';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc'); // determinism-ok: a tool outside any simulation
  process.exit(2);
}
const name = process.argv[2] ?? 'steady';
const spec = WORKLOADS[name];
if (!spec) {
  console.error(`no workload named ${JSON.stringify(name)}; the workloads are: ${Object.keys(WORKLOADS).join(', ')}`);
  process.exit(2);
}
const duration = process.argv[3]?.startsWith('--') ? undefined : process.argv[3];
const r = runScenario(validateScenario(duration ? { ...spec, duration } : spec), { hash: false, keepEvents: false });
const acked = r.checks.acked?.count ?? 0;
const live = (): number => {
  gc();
  gc();
  const m = process.memoryUsage(); // determinism-ok: a tool outside any simulation
  return m.heapUsed + m.arrayBuffers;
};
// The private fields each holder lives in: this tool reaches inside on purpose, once the run is over.
type Loose = Record<string, unknown>;
const world = r.cluster.world as unknown as Loose & { scheduler: Loose; trace: Loose; options: Loose; hosts(): { disk: Loose }[] };
const rows: [string, number][] = [];
let before = live();
const drop = (holder: string, let_go: () => void): void => {
  let_go();
  const after = live();
  rows.push([holder, before - after]);
  before = after;
};
drop('scheduler (pending events)', () => {
  for (const k of ['sFn', 'sArg']) world.scheduler[k] = [];
});
drop('checkers', () => {
  world.trace.sinks = [];
  world.options = {};
});
drop('page cache (disk chunks)', () => {
  for (const h of world.hosts()) (h.disk.files as Map<string, unknown>).clear();
});
drop('logs (segments, batches, records)', () => {
  for (const id of r.cluster.brokerIds) {
    const b = r.cluster.broker(id) as unknown as { logManager: { logs: Map<string, Loose> } } | undefined;
    if (!b) continue;
    for (const log of b.logManager.logs.values()) (log.segments as unknown[]).length = 0;
  }
});
rows.push(['everything else', before]);
const total = rows.reduce((s, [, b]) => s + b, 0);
console.log(`${name} ${duration ?? spec.duration}: ${acked} acknowledged records, ${(total / 2 ** 20).toFixed(0)} MiB live`); // determinism-ok
for (const [holder, bytes] of rows) console.log(`${holder.padEnd(36)} ${(bytes / 2 ** 20).toFixed(1).padStart(8)} MiB ${(bytes / Math.max(1, acked)).toFixed(0).padStart(7)} B/record`); // determinism-ok
console.log(`${'total'.padEnd(36)} ${(total / 2 ** 20).toFixed(1).padStart(8)} MiB ${(total / Math.max(1, acked)).toFixed(0).padStart(7)} B/record`); // determinism-ok
const snapshot = process.argv.find((a) => a === '--snapshot' || a.startsWith('--snapshot='));
if (snapshot) {
  // What "everything else" is made of: a heap snapshot after the holders are gone (summarise it by constructor).
  const v8 = await import('node:v8');
  console.log(v8.writeHeapSnapshot(snapshot.split('=')[1] ?? '/tmp/holders-rest.heapsnapshot')); // determinism-ok
}
