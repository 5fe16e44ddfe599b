import type { CheckReport } from '../../../sim/check/checkers';
import type { TraceEvent, TraceHeader } from '../../../sim/core/trace';
import type { ExpectationResult } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';

/** Run a scenario (with `--set` style overrides) for a seed. */
export interface RunRequest {
  readonly kind: 'run';
  readonly spec: ScenarioSpec;
  readonly sets: readonly string[];
  readonly seed: number | string;
}

/** Open a file: a trace (JSON Lines written by the CLI) is parsed and checked; a scenario (one JSON object) is validated and run. */
export interface ParseRequest {
  readonly kind: 'parse';
  readonly text: string;
  readonly name: string;
  /** The seed a scenario file runs with (its own `seed`, else 1, when empty). */
  readonly seed?: number | string;
}

export type WorkerRequest = RunRequest | ParseRequest;

/** A finished run or a loaded trace: everything the views need. */
export interface RunPayload {
  readonly source: 'run' | 'file';
  /** The scenario id, or the file name. */
  readonly name: string;
  readonly header: TraceHeader;
  readonly events: TraceEvent[];
  readonly checks: CheckReport;
  readonly expectations: readonly ExpectationResult[];
  /** FNV-1a 64 of the canonical JSON Lines, as the CLI prints it. */
  readonly hash: string;
  /** The overrides the run used (empty for a file). */
  readonly sets: readonly string[];
  readonly elapsedMs: number;
  /** A scenario file that was opened and run: the document, so settings and what-ifs can rerun it. */
  readonly scenario?: ScenarioSpec;
}

export type WorkerReply =
  | { readonly kind: 'progress'; readonly fraction: number; readonly events: number; readonly phase: string }
  | { readonly kind: 'done'; readonly payload: RunPayload }
  | { readonly kind: 'error'; readonly message: string };
