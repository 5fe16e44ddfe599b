import type { ScenarioSpec } from '../scenario/spec';
import type { Reply, Task } from './caseRunner';
import type { TaskPool } from './pool';
import type { CaseOutcome } from './runCase';

export interface SweepOptions {
  /** Runs in the whole sweep (all shards together). */
  readonly runs: number;
  /** This machine's share: shard `index` (1-based) of `count`; every count-th run. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** Stop handing out runs after the first failure (later runs already started are not counted). */
  readonly stopOnFailure?: boolean;
  /** Shrink the first failure (default true). */
  readonly shrink?: boolean;
  /** Stop at once when it aborts (SIGINT, SIGTERM): no more runs are handed out, runs under way are not waited for. */
  readonly signal?: AbortSignal;
}

/** A failing run as found, before shrinking. */
export interface Finding {
  readonly k: number;
  readonly spec: ScenarioSpec;
  readonly outcome: CaseOutcome;
}

export interface Counterexample {
  /** The run it was shrunk from. */
  readonly k: number;
  readonly spec: ScenarioSpec;
  readonly outcome: CaseOutcome;
  readonly path: string;
  readonly shrinks: number;
  /** Simulation runs the shrinking took. */
  readonly runs: number;
}

/** A run of the sweep could not be judged: its drawn scenario was refused (`invalid`), or a worker broke. */
export class ExploreRunError extends Error {
  constructor(
    readonly k: number,
    readonly invalid: boolean,
    message: string,
    stack?: string,
  ) {
    super(message);
    this.name = 'ExploreRunError';
    if (stack !== undefined) this.stack = stack;
  }
}

export interface SweepListener {
  onRun?(k: number, outcome: CaseOutcome): void;
  onFailure?(f: Finding): void;
  onShrinkStep?(k: number, step: { runs: number; shrinks: number; faults: number }): void;
  onCounterexample?(c: Counterexample): void;
  /** Called between waits (for a progress bar). */
  onTick?(s: SweepState): void;
}

export interface SweepState {
  /** Runs this shard does. */
  readonly total: number;
  readonly done: number;
  readonly failures: number;
  readonly shrinking: { readonly runs: number; readonly faults: number } | null;
}

export interface SweepResult {
  /** Runs counted (with stopOnFailure: those up to the first failure). */
  readonly runs: number;
  readonly failures: number;
  /** The failing runs, in run order. */
  readonly failed: readonly number[];
  /** The first failing run, shrunk (or as found when shrinking is off); null when every run held. */
  readonly counterexample: Counterexample | null;
  /** The sweep was stopped by its signal: `runs` are the runs done by then. */
  readonly interrupted: boolean;
}

/**
 * Runs a sweep's share on a pool. Runs are handed out in increasing order; the counterexample is the
 * failing run with the smallest index, shrunk once every earlier run is done (while the other workers go
 * on sweeping), so the result depends only on the plan, never on which worker was fastest.
 */
export async function sweep(pool: TaskPool<Task, Reply>, opts: SweepOptions, listener: SweepListener = {}): Promise<SweepResult> {
  const shard = opts.shard ?? { index: 1, count: 1 };
  const order: number[] = [];
  for (let k = shard.index - 1; k < opts.runs; k += shard.count) order.push(k);
  const position = new Map(order.map((k, i) => [k, i]));
  const doneAt = new Array<boolean>(order.length).fill(false);
  let donePrefix = 0; // every run before position donePrefix is done
  let next = 0;
  const busy = new Array<boolean>(pool.size).fill(false);
  const failed = new Map<number, Finding>();
  let first = Infinity;
  let shrinkState: 'none' | 'running' | 'done' = 'none';
  let shrinking: { runs: number; faults: number } | null = null;
  let counterexample: Counterexample | null = null;
  let doneCount = 0;

  const firstIsFinal = () => first !== Infinity && donePrefix >= position.get(first)!;
  const counted = (k: number) => !opts.stopOnFailure || k <= first;

  const onReply = (worker: number, r: Reply) => {
    switch (r.type) {
      case 'run': {
        busy[worker] = false;
        doneAt[position.get(r.k)!] = true;
        while (donePrefix < order.length && doneAt[donePrefix]) donePrefix++;
        doneCount++;
        listener.onRun?.(r.k, r.outcome);
        if (!r.outcome.ok) {
          const f: Finding = { k: r.k, spec: r.spec!, outcome: r.outcome };
          failed.set(r.k, f);
          if (r.k < first) first = r.k;
          listener.onFailure?.(f);
        }
        break;
      }
      case 'shrink-step':
        shrinking = { runs: r.runs, faults: r.faults };
        listener.onShrinkStep?.(r.k, r);
        break;
      case 'shrunk':
        busy[worker] = false;
        shrinkState = 'done';
        shrinking = null;
        counterexample = { k: r.k, spec: r.spec, outcome: r.outcome, path: r.path, shrinks: r.shrinks, runs: r.runs };
        listener.onCounterexample?.(counterexample);
        break;
      case 'error':
        throw new ExploreRunError(r.k, r.invalid, r.message, r.stack);
    }
  };

  for (;;) {
    if (opts.signal?.aborted) {
      const failedRuns = [...failed.keys()].sort((a, b) => a - b);
      return { runs: doneCount, failures: failedRuns.length, failed: failedRuns, counterexample, interrupted: true };
    }
    for (let w = 0; w < pool.size; w++) {
      if (busy[w]) continue;
      if (shrinkState === 'none' && firstIsFinal()) {
        const f = failed.get(first)!;
        if (opts.shrink === false) {
          shrinkState = 'done';
          counterexample = { k: f.k, spec: f.spec, outcome: f.outcome, path: '', shrinks: 0, runs: 0 };
          listener.onCounterexample?.(counterexample);
        } else {
          shrinkState = 'running';
          busy[w] = true;
          pool.send(w, { type: 'shrink', k: first, outcome: f.outcome });
          continue;
        }
      }
      if (next < order.length && counted(order[next]!)) {
        busy[w] = true;
        pool.send(w, { type: 'run', k: order[next++]! });
      }
    }
    if (!busy.some((b) => b)) break;
    await pool.pump(onReply, 200);
    listener.onTick?.({ total: order.length, done: doneCount, failures: failed.size, shrinking });
  }

  const failedRuns = [...failed.keys()].filter(counted).sort((a, b) => a - b);
  const runs = opts.stopOnFailure && first !== Infinity ? position.get(first)! + 1 : order.length;
  return { runs, failures: failedRuns.length, failed: failedRuns, counterexample, interrupted: false };
}
