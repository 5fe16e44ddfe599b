/**
 * The `ui-model` workload: how fast the UI indexes a trace (TraceModel plus the Replay's keyframe pass), on
 * acks1-leader-crash's trace and on that trace followed by a replay of itself. Indexing is one linear pass, so
 * twice the events should take about twice the time (`ratio` near 2; the e2e test checks the pass reads each
 * event once, this row measures the time).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TraceEvent } from '../../sim/core/trace';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { TraceModel } from '../../ui/src/model/traceModel';
import { Replay } from '../../ui/src/model/replay';

export interface UiModelFigures {
  readonly events: number;
  /** Fastest of 5 index builds of the trace, ms. */
  readonly onceMs: number;
  /** The same for the trace twice over, ms. */
  readonly twiceMs: number;
  /** twiceMs / onceMs: about 2 for a linear pass. */
  readonly ratio: number;
  readonly eventsPerSec: number;
}

export function runUiModel(): UiModelFigures {
  const spec = JSON.parse(readFileSync(fileURLToPath(new URL('../../scenarios/acks1-leader-crash.json', import.meta.url)), 'utf8')) as ScenarioSpec;
  const r = runScenario(validateScenario(spec), { seed: 1 });
  const header = r.cluster.world.trace.header;
  const once = r.trace as TraceEvent[];
  const span = once[once.length - 1]!.t - once[0]!.t + 1_000_000;
  const twice = [...once, ...once.map((e) => ({ ...e, t: e.t + span, seq: e.seq + once.length }) as TraceEvent)];
  const time = (evs: TraceEvent[]): number => {
    const t = performance.now();
    new Replay(new TraceModel(header, evs, r.checks));
    return performance.now() - t;
  };
  time(once); // warm-up
  time(twice);
  const a: number[] = [];
  const b: number[] = [];
  // Alternating, so drift on a shared machine hits both; the fastest of each (collection only ever adds time).
  for (let k = 0; k < 5; k++) {
    a.push(time(once));
    b.push(time(twice));
  }
  const onceMs = Math.min(...a);
  const twiceMs = Math.min(...b);
  return {
    events: once.length,
    onceMs: Number(onceMs.toFixed(1)),
    twiceMs: Number(twiceMs.toFixed(1)),
    ratio: Number((twiceMs / onceMs).toFixed(2)),
    eventsPerSec: Math.round(once.length / (onceMs / 1000)),
  };
}
