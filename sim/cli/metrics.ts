/**
 * `kafkasim metrics <trace>`: the metrics a run sampled (sim/kafka/metrics), as a summary table, the values
 * at one moment, CSV, or the Prometheus text format.
 */
import { formatTime, parseDuration, type Micros } from '../core/time';
import { quoteName } from '../core/validate';
import { metricsFromTrace, momentAt, orderedKeys, toCsv, toPrometheus, type MetricsSeries } from '../kafka/metrics/series';
import { parseArgs, single } from './args';
import type { CliIo, Command } from './commands';
import { CliError } from './errors';
import { table } from './render';
import { loadTrace } from './traceFile';

const HELP = `kafkasim metrics <trace.jsonl> [options]

The metrics the run sampled into its trace (every actor's, under Kafka's JMX names; see the README), as a
table of each series over the run (samples, min, max, last), or at one moment, or exported.

  --at 42s            the values at that moment (the last sample at or before it), one column per actor
  --series S          only series whose key matches S; * matches any run of characters, e.g.
                      --series UnderReplicatedPartitions --series 'TotalTimeMs.p99.*' (repeatable)
  --actor A           only this actor (broker-1, controller-2, producer-1, ...) (repeatable)
  --csv               every sampled value: time_ms,actor,role,series,mbean,value
  --prometheus        the Prometheus text format: every sample with its timestamp (ms of simulated time
                      from the scenario start), or with --at one scrape without timestamps
`;

function pattern(p: string): RegExp {
  return new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

function fmt(v: number | undefined): string {
  if (v === undefined) return '-';
  return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 1 ? 2 : 3);
}

function readAt(v: string | undefined): Micros | undefined {
  if (v === undefined) return undefined;
  const us = parseDuration(v);
  if (us === null) throw new CliError(`--at: ${quoteName(v)} is not a time; use e.g. 42s, 1500ms, 2m`);
  return us;
}

/** Each series of each actor over the run. */
function summary(s: MetricsSeries, keep: (actor: string, key: string) => boolean): string {
  const acc = new Map<string, Map<string, { n: number; min: number; max: number; last: number }>>();
  for (const m of s.moments) {
    for (const [actor, values] of m.values) {
      for (const [key, v] of Object.entries(values)) {
        if (!keep(actor, key)) continue;
        let byActor = acc.get(key);
        if (!byActor) acc.set(key, (byActor = new Map()));
        const a = byActor.get(actor);
        if (!a) byActor.set(actor, { n: 1, min: v, max: v, last: v });
        else {
          a.n++;
          a.min = Math.min(a.min, v);
          a.max = Math.max(a.max, v);
          a.last = v;
        }
      }
    }
  }
  const rows: string[][] = [];
  for (const key of orderedKeys(acc.keys())) {
    for (const [actor, a] of [...acc.get(key)!].sort((x, y) => x[0].localeCompare(y[0], 'en', { numeric: true }))) {
      rows.push([key, actor, String(a.n), fmt(a.min), fmt(a.max), fmt(a.last)]);
    }
  }
  return table(['SERIES', 'ACTOR', 'SAMPLES', 'MIN', 'MAX', 'LAST'], rows);
}

/** The values at one moment: a table per role, a row per series, a column per actor of that role. */
function atMoment(s: MetricsSeries, atUs: Micros, keep: (actor: string, key: string) => boolean): string {
  const m = momentAt(s, atUs);
  if (!m) return `No sample at or before ${formatTime(atUs)} (the first is at ${formatTime(s.moments[0]!.atUs)}).\n`;
  let out = `Sampled at ${formatTime(m.atUs)}:\n`;
  for (const role of ['broker', 'controller', 'producer', 'consumer'] as const) {
    const actors = [...m.values.keys()].filter((a) => s.roles.get(a) === role && [...Object.keys(m.values.get(a)!)].some((k) => keep(a, k)));
    if (actors.length === 0) continue;
    actors.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    const keys = orderedKeys(actors.flatMap((a) => Object.keys(m.values.get(a)!).filter((k) => keep(a, k))));
    out += '\n' + table(['SERIES', ...actors], keys.map((k) => [k, ...actors.map((a) => fmt(keep(a, k) ? m.values.get(a)![k] : undefined))]));
  }
  return out;
}

export const metrics: Command = {
  summary: 'print or export the metrics a run sampled',
  help: HELP,
  run(args: string[], io: CliIo): number {
    const p = parseArgs('metrics', args, { at: { value: true }, series: { value: true, repeat: true }, actor: { value: true, repeat: true }, csv: {}, prometheus: {} });
    if (p.positional.length !== 1) throw new CliError(`metrics needs exactly one trace file (got ${p.positional.length}); see kafkasim metrics --help`);
    if (p.flags.has('csv') && p.flags.has('prometheus')) throw new CliError('metrics: --csv and --prometheus are two formats; give one');
    const atUs = readAt(single(p, 'at'));
    if (atUs !== undefined && p.flags.has('csv')) throw new CliError('metrics: --at picks one moment for the table or --prometheus; CSV has every moment');
    const trace = loadTrace(p.positional[0]!);
    const s = metricsFromTrace(trace.events);
    if (s.moments.length === 0) throw new CliError(`${p.positional[0]}: the trace has no metrics samples (a minimal trace, or "metrics": false in its scenario)`);
    const series = (p.values.get('series') ?? []).map(pattern);
    const actorsWanted = p.values.get('actor') ?? [];
    for (const a of actorsWanted) if (!s.roles.has(a)) throw new CliError(`--actor: ${quoteName(a)} was never sampled; the actors are: ${[...s.roles.keys()].join(', ')}`);
    const known = new Set(s.moments.flatMap((m) => [...m.values.values()].flatMap((v) => Object.keys(v))));
    for (const [i, re] of series.entries()) {
      if (![...known].some((k) => re.test(k))) throw new CliError(`--series: ${quoteName(p.values.get('series')![i]!)} matches no series of this trace (e.g. ${orderedKeys(known).slice(0, 6).join(', ')})`);
    }
    const keep = (actor: string, key: string) => (actorsWanted.length === 0 || actorsWanted.includes(actor)) && (series.length === 0 || series.some((re) => re.test(key)));
    if (p.flags.has('csv')) io.out(toCsv(s, keep));
    else if (p.flags.has('prometheus')) {
      const at = atUs === undefined ? undefined : momentAt(s, atUs);
      if (atUs !== undefined && !at) throw new CliError(`--at ${formatTime(atUs)}: no sample at or before it (the first is at ${formatTime(s.moments[0]!.atUs)})`);
      io.out(toPrometheus(s, at ? { at, keep } : { keep }));
    } else if (atUs !== undefined) io.out(atMoment(s, atUs, keep));
    else {
      io.out(summary(s, keep));
      const first = s.moments[0]!.atUs;
      const last = s.moments[s.moments.length - 1]!.atUs;
      io.out(`\n${s.moments.length} samples from ${formatTime(first)} to ${formatTime(last)}. JMX names: kafkasim metrics --csv; one moment: --at 42s.\n`);
    }
    return 0;
  },
};
