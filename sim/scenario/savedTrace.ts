/**
 * Checking a saved trace: the one implementation behind `kafkasim check` and the UI's "open a trace file". The
 * text is validated once against the trace schema (header, kinds, fields, order, completeness), then folded
 * through the checkers, and the expectations of the scenario in its header are evaluated; the same bytes give
 * the same events, hash and report everywhere.
 */
import { runCheckers, type CheckReport } from '../check/checkers';
import { parseTrace, TraceFormatError, type ParsedTrace, type TraceEvent } from '../core/trace';
import { ValidationError } from '../core/validate';
import { evaluateExpectations, type ExpectationResult } from './runner';
import { END_KIND, TRACE_SCHEMA } from './traceKinds';
import { validateScenario, type Scenario } from './validate';

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

/** Reads, validates and checks a saved trace. Throws TraceFormatError, naming the line and field, when it is not one. */
export function checkSavedTrace(text: string): CheckedTrace {
  const parsed = readTrace(text);
  const checks = runCheckers(parsed.events);
  const expectations = evaluateExpectations(expectationsOf(parsed), checks);
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

/** The expectations of the scenario the header records (none when the header carries no scenario). */
function expectationsOf(parsed: ParsedTrace<TraceEvent>): Scenario['expect'] {
  const cfg = parsed.header.config as { spec?: unknown } | null;
  if (cfg === null || typeof cfg !== 'object' || cfg.spec === undefined) return [];
  try {
    return validateScenario(cfg.spec).expect;
  } catch (e) {
    if (e instanceof ValidationError) throw new TraceFormatError(`line 1 (header): config.spec is not a scenario this build can check: ${e.message}`);
    throw e;
  }
}
