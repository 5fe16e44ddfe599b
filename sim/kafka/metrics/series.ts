/**
 * The sampled metrics of a trace as time series, and their exports: CSV (one row per value) and the Prometheus
 * text exposition format (one scrape at a moment, or every sample with its timestamp). Pure: the CLI
 * (`kafkasim metrics`) and the UI read the same series.
 * [Prometheus exposition formats: https://prometheus.io/docs/instrumenting/exposition_formats/]
 */
import type { TraceEvent } from '../../core/trace';
import type { Micros } from '../../core/time';
import type { SampleMoment } from './alerts';
import { METRIC_FAMILIES, mbeanOf, parseSeriesKey, prometheusOf, type MetricRole } from './catalog';

export interface MetricsSeries {
  /** Sample moments in time order, times relative to scenario start. */
  readonly moments: readonly SampleMoment[];
  /** Each sampled actor's role. */
  readonly roles: ReadonlyMap<string, MetricRole>;
}

/** Gathers the `metrics.sample` events; times relative to `scenario.start` (or to the trace's start without one). */
export function metricsFromTrace(events: readonly TraceEvent[]): MetricsSeries {
  let startUs = 0;
  for (const e of events) {
    if (e.kind === 'scenario.start') {
      startUs = e.t;
      break;
    }
  }
  const byTime = new Map<number, Map<string, Readonly<Record<string, number>>>>();
  const roles = new Map<string, MetricRole>();
  for (const e of events) {
    if (e.kind !== 'metrics.sample') continue;
    const at = e.t - startUs;
    let m = byTime.get(at);
    if (!m) byTime.set(at, (m = new Map()));
    m.set(e.node, e.values);
    roles.set(e.node, e.role);
  }
  const moments = [...byTime].sort((a, b) => a[0] - b[0]).map(([atUs, values]) => ({ atUs, values }));
  return { moments, roles };
}

/** The last moment at or before `atUs`, or null. */
export function momentAt(s: MetricsSeries, atUs: Micros): SampleMoment | null {
  let lo = 0;
  let hi = s.moments.length - 1;
  let found: SampleMoment | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = s.moments[mid]!;
    if (m.atUs <= atUs) {
      found = m;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Keys in catalog order (families as listed, request metrics by API), then anything unknown by name. */
export function orderedKeys(keys: Iterable<string>): string[] {
  const rank = new Map(METRIC_FAMILIES.map((f, i) => [f.name, i]));
  const info = (k: string) => {
    const p = parseSeriesKey(k);
    return { r: p ? rank.get(p.family.name)! : Infinity, api: p?.request ?? '' };
  };
  return [...new Set(keys)].sort((a, b) => {
    const x = info(a);
    const y = info(b);
    return x.r - y.r || x.api.localeCompare(y.api) || a.localeCompare(b);
  });
}

function csvCell(v: string): string {
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** One row per sampled value: time_ms,actor,role,series,mbean,value. */
export function toCsv(s: MetricsSeries, keep: (actor: string, key: string) => boolean = () => true): string {
  const rows = ['time_ms,actor,role,series,mbean,value'];
  for (const m of s.moments) {
    for (const [actor, values] of m.values) {
      for (const key of orderedKeys(Object.keys(values))) {
        if (!keep(actor, key)) continue;
        const p = parseSeriesKey(key);
        rows.push([String(m.atUs / 1000), actor, s.roles.get(actor) ?? '', key, p ? mbeanOf(p, actor) : '', String(values[key])].map(csvCell).join(','));
      }
    }
  }
  return rows.join('\n') + '\n';
}

function labelText(labels: Readonly<Record<string, string>>): string {
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return `{${Object.entries(labels)
    .map(([k, v]) => `${k}="${esc(v)}"`)
    .join(',')}}`;
}

/**
 * The Prometheus text format. With `at` one scrape: the values of the last moment at or before it, without
 * timestamps. Without, every sample, each line with its timestamp (ms of simulated time from scenario start).
 * Lines of one metric name stay together under one HELP and TYPE, as the format requires.
 */
export function toPrometheus(s: MetricsSeries, opts: { at?: SampleMoment; keep?: (actor: string, key: string) => boolean } = {}): string {
  const keep = opts.keep ?? (() => true);
  const moments = opts.at ? [opts.at] : s.moments;
  const byName = new Map<string, { help: string; lines: string[] }>();
  for (const m of moments) {
    for (const [actor, values] of m.values) {
      for (const key of orderedKeys(Object.keys(values))) {
        if (!keep(actor, key)) continue;
        const p = parseSeriesKey(key);
        if (!p) continue;
        const { name, labels } = prometheusOf(p, actor);
        let g = byName.get(name);
        if (!g) {
          // One name carries every percentile of a request time (the quantile label): say what they share.
          const what = labels['quantile'] !== undefined ? 'time from a request\'s receipt to its response sent, by quantile over the sample interval' : p.family.help;
          byName.set(name, (g = { help: `${what} (${p.family.unit}; JMX ${p.family.mbean.replace('{request}', '<request>').replace('{client-id}', '<client-id>')})`, lines: [] }));
        }
        g.lines.push(`${name}${labelText(labels)} ${values[key]}${opts.at ? '' : ` ${Math.round(m.atUs / 1000)}`}`);
      }
    }
  }
  let out = '';
  for (const [name, g] of byName) {
    out += `# HELP ${name} ${g.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} gauge\n${g.lines.join('\n')}\n`;
  }
  return out;
}
