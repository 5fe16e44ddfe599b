import type { Handlers } from '../core/trace';
import type { History } from './history/history';
import type { PartitionFigureName } from './names';
import type { CheckResult } from './report';

/** Where the report of a run is written: result name -> result. */
export type ReportOut = Record<string, CheckResult>;

/** One check, made for one run: a small fold over the trace (after the history's own) and its results at the end. */
export interface Check {
  /** The events it folds itself, by kind (the history has already taken each event when these run). */
  readonly handlers?: Handlers | readonly Handlers[];
  /**
   * For a report over a window of the run (an expectation's "during"): the events before the window that the
   * check folds anyway, for the state the window opens in (a partition already leaderless). Other checks see
   * only the window's events.
   */
  readonly beforeWindow?: Handlers;
  /** Writes its results, once, when the run is over. */
  report(out: ReportOut): void;
}

/** A check as the table lists it. */
export interface CheckDefinition {
  /** The file it lives in, for the folder map (e.g. "lostWrite"). */
  readonly id: string;
  /**
   * Where it comes from: Jepsen's anomaly name when a black-box test can see it too, "only a simulator can see
   * this" for facts that need the simulator's truth, or "a figure" for a measurement a scenario may expect on.
   */
  readonly source: string;
  readonly make: (h: History, options: CheckOptions) => Check;
}

/** What one report is asked for beyond every check. */
export interface CheckOptions {
  /** Per-partition figures to compute (partitionFigures.ts); none unless an expectation or the caller names them. */
  readonly figures: readonly PartitionFigureName[];
}

export const SIMULATOR_ONLY = 'only a simulator can see this';
export const FIGURE = 'a figure';
