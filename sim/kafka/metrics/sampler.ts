/**
 * Samples every live actor's metrics on simulated time into the trace, as a monitoring system scrapes each
 * JVM's JMX at a fixed interval: one `metrics.sample` event per actor per interval, its values under the keys of
 * catalog.ts. A process that is not running (crashed, stopped, powered off) or whose host is paused answers no
 * scrape, so its series has a gap there, as a failed scrape leaves one. Reading an actor's metrics changes
 * nothing in it but its meters' intervals, so a run with sampling makes the same decisions as one without.
 */
import type { Micros } from '../../core/time';
import { defineKinds, record, num, nullable, oneOf, str, type KindsOf } from '../../core/traceSchema';
import type { World } from '../../world/world';
import type { MetricRole } from './catalog';
import { AlertEvaluator, seriesValue, type AlertRule, type SampleMoment } from './alerts';

/** An actor that keeps metrics: its values now, each rate over the time since the previous read. */
export interface MetricsSource {
  readonly metricsRole: MetricRole;
  sampleMetrics(nowUs: Micros): Record<string, number>;
}

export function isMetricsSource(p: unknown): p is MetricsSource {
  return typeof (p as Partial<MetricsSource>).sampleMetrics === 'function';
}

export const METRICS_KINDS = defineKinds({
  'metrics.sample': { role: oneOf('broker', 'controller', 'producer', 'consumer'), values: record(num) },
  /** An alert rule the run evaluates (once, when sampling starts), so a saved trace reports every rule. */
  'alert.rule': { name: str, rule: str },
  /** The rule has held for its `for` duration: pendingAtUs is when it first held, value the series then. */
  'alert.fire': { name: str, value: num, pendingAtUs: num },
  /** The rule no longer holds (value null: no actor reported the series); peak is the worst value while it fired. */
  'alert.resolve': { name: str, value: nullable(num), peak: num },
});
declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof METRICS_KINDS> {}
}

/** Rates and latencies to the microsecond: enough for any chart, and a trace that does not carry float noise. */
function rounded(values: Record<string, number>): Record<string, number> {
  for (const k in values) values[k] = Math.round(values[k]! * 1000) / 1000;
  return values;
}

/**
 * Samples every `intervalUs` from `startUs + intervalUs` on, until the world stops running; at `startUs` the
 * meters are only read, so the first sample's rates cover one interval of the scenario, not the boot.
 */
export function startMetricsSampler(world: World, startUs: Micros, intervalUs: Micros, rules: readonly AlertRule[] = []): void {
  const alerts = rules.map((r) => new AlertEvaluator(r));
  const sample = (emit: boolean) => {
    const now = world.now;
    const moment = new Map<string, Readonly<Record<string, number>>>();
    for (const h of world.hosts()) {
      if (h.state !== 'up' && h.state !== 'stopping') continue;
      for (const p of h.processes()) {
        if (!isMetricsSource(p)) continue;
        const values = p.sampleMetrics(now);
        if (!emit) continue;
        const v = rounded(values);
        world.trace.emit('metrics.sample', p.id, { role: p.metricsRole, values: v });
        moment.set(p.id, v);
      }
    }
    if (emit) for (const a of alerts) evaluate(world, a, { atUs: now, values: moment });
  };
  const tick = () => {
    sample(true);
    world.scheduler.at(world.now + intervalUs, tick, undefined, 'a metrics sample');
  };
  world.scheduler.at(startUs, () => {
    for (const r of rules) world.trace.emit('alert.rule', 'scenario', { name: r.name, rule: r.text });
    sample(false);
    world.scheduler.at(startUs + intervalUs, tick, undefined, 'a metrics sample');
  }, undefined, 'a metrics sample');
}

/** Feeds one moment to an alert and traces its transitions (the evaluator keeps pending, which is not traced). */
function evaluate(world: World, a: AlertEvaluator, m: SampleMoment): void {
  const before = a.state();
  a.observe(m);
  const after = a.state();
  if (before === null && after !== null) world.trace.emit('alert.fire', 'scenario', { name: a.rule.name, value: after.peak, pendingAtUs: after.pendingAtUs });
  if (before !== null && after === null) {
    const closed = a.firings[a.firings.length - 1]!;
    world.trace.emit('alert.resolve', 'scenario', { name: a.rule.name, value: seriesValue(a.rule, m), peak: closed.peak });
  }
}
