/**
 * Runs the simulator off the page's thread: the same sim/ code as the CLI, so a scenario and a seed give
 * the same trace (and hash) here as in Node. It posts progress while it runs.
 */
import { runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';
import { applyOverrides } from '../../../sim/scenario/overrides';
import { runCheckers } from '../../../sim/check/checkers';
import { evaluateExpectations } from '../../../sim/scenario/runner';
import { parseTrace, type TraceEvent, type TraceHeader, type TraceSink } from '../../../sim/core/trace';
import { Fnv1a64 } from '../../../sim/core/hash';
import { ValidationError } from '../../../sim/core/validate';
import { applyScenarioFields } from '../app/settings';
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

function parse(req: Extract<WorkerRequest, { kind: 'parse' }>): RunPayload {
  const started = performance.now();
  post({ kind: 'progress', fraction: 0.1, events: 0, phase: 'reading the trace' });
  const { header, events } = parseTrace(req.text);
  // The hash of the file's lines: equal to the run's trace hash when the file is the CLI's canonical output.
  const h = new Fnv1a64();
  let start = 0;
  const text = req.text;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.endsWith('\r', end) ? text.slice(start, end - 1) : text.slice(start, end);
    if (line.trim() !== '') h.update(line).update('\n');
    start = end + 1;
  }
  post({ kind: 'progress', fraction: 0.6, events: events.length, phase: 'checking' });
  const checks = runCheckers(events);
  const spec = (header.config as { spec?: { expect?: unknown } } | null)?.spec;
  let expectations: RunPayload['expectations'] = [];
  try {
    if (spec && Array.isArray(spec.expect)) expectations = evaluateExpectations(validateScenario(spec).expect, checks);
  } catch {
    expectations = [];
  }
  return {
    source: 'file',
    name: req.name,
    header,
    events,
    checks,
    expectations,
    hash: h.hex(),
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
