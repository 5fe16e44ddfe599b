/**
 * Runs the simulator off the page's thread: the same sim/ code as the CLI, so a scenario and a seed give
 * the same trace (and hash) here as in Node. It posts progress while it runs.
 */
import { runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';
import { applyOverrides } from '../../../sim/scenario/overrides';
import { checkSavedTrace } from '../../../sim/scenario/savedTrace';
import type { TraceEvent, TraceHeader, TraceSink } from '../../../sim/core/trace';
import { ValidationError } from '../../../sim/core/validate';
import { applyScenarioFields } from '../app/settings';
import { parseJsonText } from '../../../sim/core/jsonText';
import { isRecord } from '../../../sim/core/validate';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import type { RunPayload, WorkerReply, WorkerRequest } from './protocol';

/** The worker's global scope, typed without the webworker lib (the project compiles against the DOM lib). */
const scope = self as unknown as { postMessage(m: WorkerReply): void; onmessage: ((ev: MessageEvent<WorkerRequest>) => void) | null };

function post(m: WorkerReply): void {
  scope.postMessage(m);
}

/** Posts progress every few thousand events; learns scenario time 0 from scenario.start. */
class ProgressSink implements TraceSink {
  header_: TraceHeader | undefined;
  private n = 0;
  private t0 = -1;
  constructor(private readonly totalUs: number) {}
  header(h: TraceHeader): void {
    this.header_ = h;
  }
  event(e: TraceEvent): void {
    this.n++;
    if (e.kind === 'scenario.start') this.t0 = e.t;
    if ((this.n & 4095) === 0) {
      const fraction = this.t0 < 0 ? 0 : Math.min(1, (e.t - this.t0) / this.totalUs);
      post({ kind: 'progress', fraction, events: this.n, phase: this.t0 < 0 ? 'booting the cluster' : 'running' });
    }
  }
}

function run(req: Extract<WorkerRequest, { kind: 'run' }>): RunPayload {
  const started = performance.now();
  // The same steps as the CLI's loadScenario: validate the document, then apply the overrides and validate again.
  const base = validateScenario(req.spec);
  let scenario = base;
  if (req.sets.length > 0) {
    const { spec, rest } = applyScenarioFields(base.spec, req.sets);
    scenario = validateScenario(rest.length > 0 ? applyOverrides(spec, rest) : spec);
  }
  const sink = new ProgressSink(scenario.durationUs + scenario.quietUs);
  const r = runScenario(scenario, { seed: req.seed, sinks: [sink] });
  post({ kind: 'progress', fraction: 1, events: r.events, phase: 'checking' });
  const header = sink.header_ ?? r.cluster.world.trace.header;
  return {
    source: 'run',
    name: scenario.id,
    header,
    events: r.trace as TraceEvent[],
    checks: r.checks,
    expectations: r.expectations,
    hash: r.traceHash,
    sets: req.sets,
    elapsedMs: Math.round(performance.now() - started),
  };
}

/**
 * A scenario document rather than a trace: a .json file (as the CLI reads `kafkasim run x.json`), or any text that is
 * one JSON object without a trace header's `format`. Null for a trace.
 */
function scenarioDocument(req: Extract<WorkerRequest, { kind: 'parse' }>): ScenarioSpec | null {
  const json = req.name.toLowerCase().endsWith('.json');
  // A trace opens with its header line: no need to read a large trace as one JSON document first.
  if (!json && /^\uFEFF?\s*\{\s*"format"/.test(req.text.slice(0, 200))) return null;
  const parsed = parseJsonText(req.text);
  if (!parsed.ok) {
    // The CLI's words for a scenario file that is not JSON; a trace's own parser explains a broken trace.
    if (json) throw new Error(`${req.name} ${parsed.error}`);
    return null;
  }
  if (!isRecord(parsed.value) || 'format' in parsed.value) {
    if (json && !isRecord(parsed.value)) throw new Error(`${req.name} is not a scenario: expected a JSON object with "id" and "duration"`);
    return null;
  }
  return parsed.value as unknown as ScenarioSpec;
}

function parse(req: Extract<WorkerRequest, { kind: 'parse' }>): RunPayload {
  const scenario = scenarioDocument(req);
  if (scenario) {
    try {
      const seed = req.seed === undefined || req.seed === '' ? ((scenario as { seed?: number | string }).seed ?? 1) : req.seed;
      return { ...run({ kind: 'run', spec: scenario, sets: [], seed }), scenario };
    } catch (e) {
      // As `kafkasim run file.json` says it: the file, then the field, the value and what is allowed.
      if (e instanceof ValidationError) throw new Error(`${req.name}: ${e.message}`);
      throw e;
    }
  }
  const started = performance.now();
  post({ kind: 'progress', fraction: 0.1, events: 0, phase: 'reading and checking the trace' });
  // The CLI's `kafkasim check` does exactly this: the same validation, hash, checks and expectations.
  const checked = checkSavedTrace(req.text);
  return {
    source: 'file',
    name: req.name,
    header: checked.header,
    events: checked.events,
    checks: checked.checks,
    expectations: checked.expectations,
    hash: checked.hash,
    sets: [],
    elapsedMs: Math.round(performance.now() - started),
  };
}

scope.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  try {
    const payload = ev.data.kind === 'run' ? run(ev.data) : parse(ev.data);
    post({ kind: 'done', payload });
  } catch (e) {
    const message = e instanceof ValidationError || e instanceof Error ? e.message : String(e);
    post({ kind: 'error', message });
  }
};
