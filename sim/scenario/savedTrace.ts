/**
 * Checking a saved trace: the one implementation behind `kafkasim check` and the UI's "open a trace file". The
 * text is validated once against the trace schema (header, kinds, fields, order, completeness), then folded
 * through the checkers, and the expectations of the scenario in its header are evaluated; the same bytes give
 * the same events, hash and report everywhere.
 */
import type { CheckReport } from '../check/checkers';
import { ExpectationCheckers } from './expectationCheckers';
import { parseTrace, TraceFormatError, type ParsedTrace, type TraceEvent } from '../core/trace';
import { ValidationError } from '../core/validate';
import { evaluateExpectations, type ExpectationResult } from './runner';
import { END_KIND, TRACE_SCHEMA } from './traceKinds';
import { partitionFigureName } from '../check/names';
import { readFigures, validateScenario, type Scenario } from './validate';

/**
 * Parses a simulator trace and validates it against TRACE_SCHEMA; a trace that does not end with scenario.end
 * (the writer stopped, the copy was cut) is refused, since its checks would judge a run that never finished.
 */
export function readTrace(text: string): ParsedTrace<TraceEvent> {
  return parseTrace(text, TRACE_SCHEMA, { endKind: END_KIND });
}

export interface CheckedTrace extends ParsedTrace<TraceEvent> {
  readonly checks: CheckReport;
  readonly expectations: readonly ExpectationResult[];
  readonly ok: boolean;
  /** From scenario.start (time 0) to the last event. */
  readonly simulatedMs: number;
}

/**
 * Reads, validates and checks a saved trace. Throws TraceFormatError, naming the line and field, when it is not
 * one; a ValidationError when `figures` (per-partition figures to report, `kafkasim check --figure`) names no
 * partition of the scenario the header records.
 */
export function checkSavedTrace(text: string, figures: readonly string[] = []): CheckedTrace {
  const parsed = readTrace(text);
  const scenario = scenarioOf(parsed);
  const expect = scenario?.expect ?? [];
  if (scenario !== null) readFigures(figures, scenario);
  else for (const f of figures) if (partitionFigureName(f) === null) throw new ValidationError('--figure', f, 'a per-partition figure, <figure>.<topic>-<partition>');
  const checkers = new ExpectationCheckers(expect, figures);
  for (const e of parsed.events) checkers.event(e);
  const checks = checkers.report();
  const expectations = evaluateExpectations(expect, checkers);
  let start = 0;
  for (const e of parsed.events) {
    if (e.kind === 'scenario.start') {
      start = e.t;
      break;
    }
  }
  const last = parsed.events[parsed.events.length - 1]?.t ?? 0;
  return { ...parsed, checks, expectations, ok: expectations.every((e) => e.ok), simulatedMs: (last - start) / 1000 };
}

/** The scenario the header records (null when it carries none). */
function scenarioOf(parsed: ParsedTrace<TraceEvent>): Scenario | null {
  const cfg = parsed.header.config as { spec?: unknown } | null;
  if (cfg === null || typeof cfg !== 'object' || cfg.spec === undefined) return null;
  try {
    return validateScenario(cfg.spec);
  } catch (e) {
    if (e instanceof ValidationError) throw new TraceFormatError(`line 1 (header): config.spec is not a scenario this build can check: ${e.message}`);
    throw e;
  }
}
