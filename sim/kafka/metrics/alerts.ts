/**
 * Alert rules over the sampled metrics, as an operator writes them in Prometheus, evaluated on simulated time:
 *
 *   UnderMinIsrPartitionCount > 0 for 30s
 *   max(OfflinePartitionsCount) > 0
 *   sum(ActiveControllerCount) != 1 for 5s
 *   records-lag-max{consumer-1} > 1000 for 10s
 *
 * A series combines, at each sample time, the values the actors reported then: by the family's default
 * (catalog.ts: sum for per-broker counts, max for controller-wide ones and latencies, min for lead) or by the
 * function named, over every actor or the one in braces. A rule is pending from the first sample where it holds,
 * fires once it has held for the `for` duration (at once without one), and resolves at the first sample where it
 * no longer holds; a moment with no sample of the series (every reporter down) does not hold, as an absent series
 * gives Prometheus no alert.
 */
import { parseDuration, type Micros } from '../../core/time';
import { ValidationError } from '../../core/validate';
import { METRIC_FAMILIES, parseSeriesKey, type Aggregate } from './catalog';

export type AlertOp = '>' | '>=' | '<' | '<=' | '=' | '!=';

export interface AlertRule {
  readonly name: string;
  /** The rule as written. */
  readonly text: string;
  readonly series: string;
  readonly aggregate: Aggregate;
  /** Only this actor's samples, or every actor's. */
  readonly actor: string | null;
  readonly op: AlertOp;
  readonly threshold: number;
  readonly forUs: Micros;
}

export interface AlertFiring {
  /** When the condition first held (the alert became pending), simulated time. */
  readonly pendingAtUs: Micros;
  readonly firedAtUs: Micros;
  /** null: still firing when the run ended. */
  readonly resolvedAtUs: Micros | null;
  /** The worst value while it fired (highest for > and >=, lowest for < and <=). */
  readonly peak: number;
}

const RULE = /^\s*(?:(sum|max|min)\s*\(\s*)?([A-Za-z][\w.-]*)\s*(?:\{\s*([\w.-]+)\s*\})?\s*(\))?\s*(>=|<=|!=|==|=|>|<)\s*(-?\d+(?:\.\d+)?)\s*(?:for\s+(\S+))?\s*$/;

/** Reads one rule; `actors` are the ids a rule may name in braces. */
export function parseAlertRule(text: string, path: string, actors: readonly string[], name?: string): AlertRule {
  const m = RULE.exec(text);
  const shape = '"<series> <op> <number> [for <duration>]", e.g. "UnderMinIsrPartitionCount > 0 for 30s" (op one of > >= < <= = !=; a series may be wrapped in sum(), max() or min() and narrowed to one actor with {id})';
  if (!m || (m[1] !== undefined) !== (m[4] !== undefined)) throw new ValidationError(path, text, shape);
  const series = m[2]!;
  const key = parseSeriesKey(series);
  if (!key) {
    const names = METRIC_FAMILIES.map((f) => f.name);
    throw new ValidationError(path, text, `a series of the metrics catalog (${names.join(', ')}; request metrics add .<API>, e.g. TotalTimeMs.p99.Produce)`, `unknown series "${series}"`);
  }
  const actor = m[3] ?? null;
  if (actor !== null && !actors.includes(actor)) throw new ValidationError(path, text, `an actor of this scenario in braces (${actors.join(', ')})`, `unknown actor "${actor}"`);
  let forUs = 0;
  if (m[7] !== undefined) {
    const d = parseDuration(m[7]);
    if (d === null) throw new ValidationError(path, text, 'a duration after "for", such as "30s" or "500ms"', `"${m[7]}" is not a duration`);
    forUs = d;
  }
  const op = (m[5] === '==' ? '=' : m[5]) as AlertOp;
  return { name: name ?? text.trim(), text: text.trim(), series, aggregate: (m[1] as Aggregate | undefined) ?? key.family.aggregate, actor, op, threshold: Number(m[6]), forUs };
}

function holds(v: number, op: AlertOp, t: number): boolean {
  switch (op) {
    case '>':
      return v > t;
    case '>=':
      return v >= t;
    case '<':
      return v < t;
    case '<=':
      return v <= t;
    case '=':
      return v === t;
    case '!=':
      return v !== t;
  }
}

/** One moment of sampling: each actor's values. */
export interface SampleMoment {
  readonly atUs: Micros;
  readonly values: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

/** The rule's series at one moment, or null when no actor reported it. */
export function seriesValue(rule: Pick<AlertRule, 'series' | 'aggregate' | 'actor'>, m: SampleMoment): number | null {
  let acc: number | null = null;
  for (const [actor, values] of m.values) {
    if (rule.actor !== null && actor !== rule.actor) continue;
    const v = values[rule.series];
    if (v === undefined) continue;
    if (acc === null) acc = v;
    else if (rule.aggregate === 'sum') acc += v;
    else if (rule.aggregate === 'max') acc = Math.max(acc, v);
    else acc = Math.min(acc, v);
  }
  return acc;
}

/** An alert's state as the samples go by (one per rule). */
export class AlertEvaluator {
  readonly firings: AlertFiring[] = [];
  private pendingAt: Micros | null = null;
  private firing: { pendingAtUs: Micros; firedAtUs: Micros; peak: number } | null = null;

  constructor(readonly rule: AlertRule) {}

  observe(m: SampleMoment): void {
    const v = seriesValue(this.rule, m);
    const on = v !== null && holds(v, this.rule.op, this.rule.threshold);
    if (!on) {
      if (this.firing) this.firings.push({ ...this.firing, resolvedAtUs: m.atUs });
      this.firing = null;
      this.pendingAt = null;
      return;
    }
    if (this.pendingAt === null) this.pendingAt = m.atUs;
    if (this.firing) {
      const worse = this.rule.op === '<' || this.rule.op === '<=' ? v < this.firing.peak : v > this.firing.peak;
      if (worse) this.firing.peak = v;
    } else if (m.atUs - this.pendingAt >= this.rule.forUs) {
      this.firing = { pendingAtUs: this.pendingAt, firedAtUs: m.atUs, peak: v };
    }
  }

  /** The firing under way, or null. */
  state(): { readonly pendingAtUs: Micros; readonly firedAtUs: Micros; readonly peak: number } | null {
    return this.firing;
  }

  /** Every firing, the one still open at the end included (resolvedAtUs null). */
  result(): AlertFiring[] {
    return this.firing ? [...this.firings, { ...this.firing, resolvedAtUs: null }] : [...this.firings];
  }
}
