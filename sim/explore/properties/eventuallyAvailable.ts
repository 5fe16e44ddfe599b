import { historyOf } from '../../check/history/history';
import { Status } from '../../check/history/sends';
import { formatTime } from '../../core/time';
import type { TraceEvent } from '../../core/trace';
import type { ScenarioSpec } from '../../scenario/spec';
import { msOf } from '../scenarioTime';
import { futureCheck, verdict, type PropertyOptions, type RunProperty, type RunOutcome, type Verdict } from './property';

/**
 * The default bound: a producer whose leader lost power learns it only when its request times out
 * (request.timeout.ms, 30 s by default [ProducerConfig]), then refreshes metadata and retries within
 * retry.backoff.max.ms; 40 s leaves room for the controller to fence and elect.
 */
export const DEFAULT_WITHIN_MS = 40_000;

/** What each instant heal undoes [World.applyFault]: restart and power-on end crashes, stops and power losses, resume ends pauses, heal ends cuts and link faults. */
const UNDOES: Readonly<Record<string, readonly string[]>> = {
  restart: ['crash', 'stop', 'power-loss'],
  'power-on': ['crash', 'stop', 'power-loss'],
  resume: ['pause'],
  heal: ['partition', 'isolate', 'one-way', 'latency', 'lossy'],
};

/**
 * The moment the last fault was undone: the latest fault.end or instant heal (restart, resume, heal), or
 * the start of the quiet period for a fault still in force then (the quiet period undoes every fault).
 * Null when a fault is never undone (a run without a quiet period).
 */
export function lastHeal(events: readonly TraceEvent[]): { healUs: number; startUs: number } | null {
  let startUs = 0;
  let quietUs = -1;
  const open = new Map<number, { fault: string; hosts: readonly string[] }>();
  let heal = -1;
  for (const e of events) {
    switch (e.kind) {
      case 'scenario.start':
        startUs = e.t;
        heal = Math.max(heal, e.t);
        break;
      case 'scenario.quiet':
        quietUs = e.t;
        break;
      case 'fault.start': {
        if (quietUs >= 0) break;
        const fault = e.fault as string;
        const hosts = (e.hosts as string[] | undefined) ?? [];
        const undoes = UNDOES[fault];
        if (!undoes) {
          open.set(e.index as number, { fault, hosts });
          break;
        }
        heal = Math.max(heal, e.t);
        // A heal without hosts (or a cut it touches) ends it; a restart or resume ends faults on its hosts.
        for (const [i, f] of open) {
          if (!undoes.includes(f.fault)) continue;
          if (hosts.length === 0 || f.hosts.some((h) => hosts.includes(h))) open.delete(i);
        }
        break;
      }
      case 'fault.end':
        if (open.delete(e.index as number)) heal = Math.max(heal, e.t);
        break;
    }
  }
  if (open.size > 0) {
    if (quietUs < 0) return null;
    heal = Math.max(heal, quietUs);
  }
  return { healUs: heal, startUs };
}

/**
 * After the last heal, writes succeed again within `withinMs`: on every partition where a record waited
 * (sent before the heal and still unanswered, or sent in the first half of the window), some write is
 * acknowledged by the end of the window, or every waiting record was answered by then. A run that ends
 * before the window closes is not judged.
 */
export function unavailableAfterHeal(run: RunOutcome, opts: PropertyOptions): Verdict {
  const within = (opts.withinMs ?? DEFAULT_WITHIN_MS) * 1000;
  const heal = lastHeal(run.trace);
  if (!heal) return verdict(0, []);
  const h = historyOf(run.trace);
  const H = heal.healUs;
  const end = H + within;
  if (h.endUs < end) return verdict(0, []);
  const acked = new Set<string>();
  const ackedTopic = new Set<string>();
  const stuck = new Map<string, number>(); // partition (or topic when unassigned) -> earliest waiting send
  const s = h.sends;
  s.forEach((v) => {
    const tp = s.tp(v);
    const topic = h.tps.topicName(tp);
    const done = s.doneUs(v);
    if (s.status(v) === Status.Ok && done > H && done <= end) {
      acked.add(h.where(tp));
      ackedTopic.add(topic);
    }
    if (s.invokeUs(v) > H + within / 2) return;
    const answered = s.status(v) !== Status.Unknown ? done : Infinity;
    if (answered <= H || answered <= end) return;
    const key = h.tps.partition(tp) >= 0 ? h.where(tp) : topic;
    if (!stuck.has(key)) stuck.set(key, s.invokeUs(v));
  });
  const examples: string[] = [];
  for (const [key, since] of stuck) {
    if (acked.has(key) || ackedTopic.has(key)) continue;
    examples.push(
      `${key}: a record waiting since ${formatTime(since - heal.startUs)} got no answer and no write was acknowledged within ${within / 1_000_000}s of the last heal at ${formatTime(H - heal.startUs)}`,
    );
  }
  return verdict(examples.length, examples);
}

export const eventuallyAvailable: RunProperty = {
  name: 'eventually-available',
  description: 'after the last fault is undone, writes succeed again within a bound (--within, default 40s)',
  expectation: (opts) => futureCheck('unavailable-after-heal', '=', 0, `eventually-available: writes succeed within ${(opts.withinMs ?? DEFAULT_WITHIN_MS) / 1000}s of the last heal`),
  evaluate: unavailableAfterHeal,
  needsTrace: true,
  // The quiet period must outlast the bound, or the run ends before it can be judged.
  tailor: (spec: ScenarioSpec, opts) => ({ ...spec, quiet: Math.max(msOf(spec.quiet, 30_000), (opts.withinMs ?? DEFAULT_WITHIN_MS) + 5_000) }),
};
