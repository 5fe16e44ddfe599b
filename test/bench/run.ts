/**
 * `npm run bench`: workloads measured side by side in one process, so ratios hold on a noisy machine.
 * `npm run bench -- --json` prints one JSON object instead of the table.
 */
import { runBaseline, runEngine } from './engine';
import { runChaos } from './chaos';
import { checkerProfileShare, runCheckerCost, runWorkload } from './workloadRuns';
import { runBrowser } from './browser';
import { runWire } from './wire';
import { runUiModel } from './uiModel';

const json = process.argv.includes('--json');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const result: Record<string, unknown> = {};
const rows: string[][] = [];

if (!only || only === 'engine') {
  const EVENTS = 1_000_000;
  runEngine(200_000); // warm-up, both
  runBaseline(200_000);
  const eng: number[] = [];
  const base: number[] = [];
  const engCpu: number[] = [];
  const baseCpu: number[] = [];
  let events = 0;
  for (let i = 0; i < 7; i++) {
    const e = runEngine(EVENTS);
    const b = runBaseline(EVENTS);
    events = e.events;
    eng.push(e.events / e.seconds);
    base.push(b.events / b.seconds);
    engCpu.push(e.events / e.cpuSeconds);
    baseCpu.push(b.events / b.cpuSeconds);
  }
  const eventsPerSec = Math.round(median(eng));
  const baselineEventsPerSec = Math.round(median(base));
  const ratio = Number((eventsPerSec / baselineEventsPerSec).toFixed(3));
  // The same by CPU time: on a shared machine a wall-clock run also counts the time others held the core.
  const cpuRatio = Number((median(engCpu) / median(baseCpu)).toFixed(3));
  result.engine = { events, eventsPerSec, baselineEventsPerSec, ratio, cpuEventsPerSec: Math.round(median(engCpu)), cpuBaselineEventsPerSec: Math.round(median(baseCpu)), cpuRatio };
  rows.push(['engine', `${events.toLocaleString('en')} events, ~10k pending, half cancelled`, `${(eventsPerSec / 1e6).toFixed(2)} M events/s`, `bare heap ${(baselineEventsPerSec / 1e6).toFixed(2)} M/s, ratio ${ratio} (by CPU time ${cpuRatio})`]);
}

const RUNS: Record<string, number> = { steady: 3, light: 3, big: 1 };
const WHAT: Record<string, string> = {
  steady: '3+3 nodes, 12 partitions RF 3, 5,000 x 1 KiB/s acks=all, a group of 3, 60 simulated s',
  light: 'the same cluster at 100 records/s, 10 simulated min',
  big: '3+9 nodes, 1,000 partitions RF 3, 20,000 records/s from 4 producers, 2 groups, 60 simulated s',
};
const runsFlag = process.argv.find((a) => a.startsWith('--runs='))?.slice(7);
for (const name of ['steady', 'light', 'big']) {
  if (only && only !== name) continue;
  const runs = runsFlag ? Number(runsFlag) : RUNS[name]!;
  const { median: m } = runWorkload(name, runs);
  result[name] = m;
  rows.push([name, WHAT[name]!, `${m.compression}x compression`, `${m.wallSeconds} s wall (${m.cpuSeconds ?? '?'} s CPU, ${m.cpuCompression ?? '?'}x), ${Math.round(m.eventsPerSec / 1000)}k events/s, peak ${m.peakMemoryMB} MB, ${m.usPerEvent} µs/event, ${m.bytesPerRecord ?? '?'} B/record live (median of ${runs})`]);
}

if (!only || only === 'checkers') {
  const c = runCheckerCost('steady', runsFlag ? Number(runsFlag) : 2);
  // What the checkers' own code takes of steady's CPU profile (the issue's measure), beside the on/off difference.
  const p = checkerProfileShare('steady', runsFlag ? Number(runsFlag) : 3);
  result.checkers = { ...c, profileShare: p.share, profileShareWithoutGc: p.shareWithoutGc, profileSamples: p.busy };
  rows.push([
    'checkers',
    'steady: samples of its CPU profile in sim/check (report included); on vs off, alternating (CPU time)',
    `${(p.share * 100).toFixed(1)}% of the profile (${(p.shareWithoutGc * 100).toFixed(1)}% w/o GC)`,
    `on/off ${(c.share * 100).toFixed(1)}% of the run's CPU, ${c.cpuOn.toFixed(1)} s vs ${c.cpuOff.toFixed(1)} s; ${c.bytesPerAckedRecord} bytes held per acknowledged record`,
  ]);
}

if (!only || only === 'chaos') {
  const c = await runChaos();
  const { runs: _runs, ...chaos } = c;
  result.chaos = chaos;
  rows.push(['chaos', `${c.runs} runs of 30 simulated s, random nemesis, 3+3 nodes, 12 partitions`, `${c.runsPerMinute1} runs/min on 1 worker`, `${c.runsPerMinuteAll} runs/min on ${c.workers} workers (${c.runsPerMinuteAllByCpu} by CPU, ${c.cpuSecondsPerRunAll} CPU s a run); ${c.cpuSecondsPerRun} CPU s a run on 1 (${c.runsPerCpuMinute} runs per CPU minute)`]);
}

if (!only || only === 'wire') {
  const w = (await runWire()) as { codecNone: { encodeMBps: number; decodeMBps: number }; codecGzip: { encodeMBps: number; decodeMBps: number }; kafkajs: { simulatedSeconds: number; wallSeconds: number; aloneWallSeconds: number; sends: number } };
  result.wire = w;
  rows.push(['wire', 'record batches of 500 x 200 B: encode / decode', `${w.codecNone.encodeMBps} / ${w.codecNone.decodeMBps} MB/s plain`, `gzip ${w.codecGzip.encodeMBps} / ${w.codecGzip.decodeMBps} MB/s (of uncompressed records)`]);
  rows.push(['wire', `kafkajs producer (x10 records a send) + group through a leader crash, ${w.kafkajs.simulatedSeconds.toFixed(0)} simulated s`, `${w.kafkajs.wallSeconds} s wall, ${w.kafkajs.sends} sends`, `the scenario without clients ${w.kafkajs.aloneWallSeconds} s`]);
}

if (!only || only === 'ui-model') {
  const u = runUiModel();
  result.uiModel = u;
  rows.push(['ui-model', `the UI's trace index (model + replay keyframes) of acks1-leader-crash, ${u.events.toLocaleString('en')} events, and of it twice over`, `${Math.round(u.eventsPerSec / 1000)}k events/s`, `${u.onceMs} ms vs ${u.twiceMs} ms twice over (x${u.ratio}; a linear pass is ~2)`]);
}

if (!only || only === 'browser') {
  const b = await runBrowser();
  if ('skipped' in b) {
    result.browser = b;
    rows.push(['browser', 'steady in headless Chromium', 'skipped', b.skipped]);
  } else {
    result.browser = b;
    rows.push(['browser', 'steady in headless Chromium vs Node, same bundle', `${b.compression}x compression`, `${b.wallSeconds} s vs Node ${b.node.wallSeconds} s (x${b.slowdown}), renderer peak ${b.peakMemoryMB} MB`]);
  }
}

if (json) {
  console.log(JSON.stringify(result));
} else {
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['workload', 'what', 'speed', 'compared'][i]!.length));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(['workload', 'what', 'speed', 'compared']));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  console.log('\nengine: medians of 7 runs, engine and baseline alternating in one process; workloads: one fresh process per run');
}
