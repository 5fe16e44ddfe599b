/**
 * `npm run bench`: workloads measured side by side in one process, so ratios hold on a noisy machine.
 * `npm run bench -- --json` prints one JSON object instead of the table.
 */
import { runBaseline, runEngine } from './engine';

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
  let events = 0;
  for (let i = 0; i < 5; i++) {
    const e = runEngine(EVENTS);
    const b = runBaseline(EVENTS);
    events = e.events;
    eng.push(e.events / e.seconds);
    base.push(b.events / b.seconds);
  }
  const eventsPerSec = Math.round(median(eng));
  const baselineEventsPerSec = Math.round(median(base));
  const ratio = Number((eventsPerSec / baselineEventsPerSec).toFixed(3));
  result.engine = { events, eventsPerSec, baselineEventsPerSec, ratio };
  rows.push(['engine', `${events.toLocaleString('en')} events, ~10k pending, half cancelled`, `${(eventsPerSec / 1e6).toFixed(2)} M events/s`, `bare heap ${(baselineEventsPerSec / 1e6).toFixed(2)} M/s, ratio ${ratio}`]);
}

if (json) {
  console.log(JSON.stringify(result));
} else {
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['workload', 'what', 'speed', 'compared'][i]!.length));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(['workload', 'what', 'speed', 'compared']));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  console.log('\nmedians of 5 runs, engine and baseline alternating in one process');
}
