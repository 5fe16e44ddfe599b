import { describe, expect, it } from 'vitest';
import type { Reply, Task } from '../../../sim/explore/caseRunner';
import type { TaskPool } from '../../../sim/explore/pool';
import type { CaseOutcome } from '../../../sim/explore/runCase';
import { sweep } from '../../../sim/explore/sweep';
import type { ScenarioSpec } from '../../../sim/scenario/spec';

const outcome = (ok: boolean, faults = 2): CaseOutcome => ({ ok, verdict: { ok, count: ok ? 0 : 1, examples: ok ? [] : ['broken'] }, faults, simulatedMs: 1, engineEvents: 1 });
const spec = (k: number): ScenarioSpec => ({ id: `run-${k}`, duration: '1s' });

/**
 * A pool of `size` fake workers where run k fails iff k is in `failing`. Each pump completes the
 * in-flight task whose worker comes first in `order` (cycled), so replies arrive out of run order, as
 * they do on real threads. Shrinking a run answers with one step, then a one-fault scenario.
 */
class FakePool implements TaskPool<Task, Reply> {
  readonly sent: { worker: number; task: Task }[] = [];
  private readonly inFlight = new Map<number, Task>();
  private turn = 0;

  constructor(
    readonly size: number,
    private readonly failing: ReadonlySet<number>,
    private readonly order: readonly number[],
  ) {}

  send(worker: number, task: Task): void {
    if (this.inFlight.has(worker)) throw new Error(`worker ${worker} is busy`);
    this.inFlight.set(worker, task);
    this.sent.push({ worker, task });
  }

  async pump(onReply: (worker: number, reply: Reply) => void): Promise<void> {
    for (let i = 0; i < this.order.length; i++) {
      const w = this.order[(this.turn + i) % this.order.length]!;
      const task = this.inFlight.get(w);
      if (!task) continue;
      this.turn = (this.turn + i + 1) % this.order.length;
      this.inFlight.delete(w);
      if (task.type === 'run') {
        const ok = !this.failing.has(task.k);
        onReply(w, ok ? { type: 'run', k: task.k, outcome: outcome(true) } : { type: 'run', k: task.k, outcome: outcome(false), spec: spec(task.k) });
      } else {
        onReply(w, { type: 'shrink-step', k: task.k, runs: 1, shrinks: 1, faults: 1 });
        onReply(w, { type: 'shrunk', k: task.k, spec: { ...spec(task.k), id: 'shrunk' }, outcome: outcome(false, 1), path: `${task.k}:0`, shrinks: 1, runs: 1 });
      }
      return;
    }
  }

  close(): void {}
}

describe('sweep', () => {
  it('runs every run once, counts the failures, and shrinks the smallest failing run, whatever order replies come in', async () => {
    const pool = new FakePool(3, new Set([4, 7, 9]), [2, 0, 1]);
    const found: number[] = [];
    const r = await sweep(pool, { runs: 12 }, { onFailure: (f) => found.push(f.k) });
    const runs = pool.sent.filter((s) => s.task.type === 'run').map((s) => s.task.k);
    expect(runs.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(r).toMatchObject({ runs: 12, failures: 3, failed: [4, 7, 9] });
    expect(found.sort()).toEqual([4, 7, 9]);
    expect(r.counterexample).toMatchObject({ k: 4, path: '4:0', spec: { id: 'shrunk' } });
    expect(pool.sent.filter((s) => s.task.type === 'shrink').map((s) => s.task.k)).toEqual([4]);
  });

  it('starts shrinking a failure only once every earlier run is done, so a later-found earlier failure wins', async () => {
    // Worker 1 is always answered first: run 1 (failing) reports before run 0 (failing too) finishes.
    const pool = new FakePool(2, new Set([0, 1]), [1, 0]);
    const r = await sweep(pool, { runs: 4 });
    expect(r.counterexample?.k).toBe(0);
    const shrinkAt = pool.sent.findIndex((s) => s.task.type === 'shrink');
    expect(shrinkAt).toBeGreaterThan(0);
  });

  it('with stopOnFailure hands out no run after the first failure and counts only the runs up to it', async () => {
    const pool = new FakePool(2, new Set([5, 6]), [0, 1]);
    const r = await sweep(pool, { runs: 50, stopOnFailure: true });
    expect(r).toMatchObject({ runs: 6, failures: 1, failed: [5] });
    expect(Math.max(...pool.sent.filter((s) => s.task.type === 'run').map((s) => s.task.k))).toBeLessThanOrEqual(6);
  });

  it('covers only its shard, and keeps the failure as found when shrinking is off', async () => {
    const pool = new FakePool(1, new Set([4, 5]), [0]);
    const r = await sweep(pool, { runs: 10, shard: { index: 2, count: 3 }, shrink: false });
    expect(pool.sent.map((s) => s.task.k)).toEqual([1, 4, 7]);
    expect(r).toMatchObject({ runs: 3, failures: 1, failed: [4] });
    expect(r.counterexample).toMatchObject({ k: 4, shrinks: 0, spec: { id: 'run-4' } });
  });

  it('reports progress and a clean sweep', async () => {
    const ticks: number[] = [];
    const r = await sweep(new FakePool(2, new Set(), [0, 1]), { runs: 5 }, { onTick: (s) => ticks.push(s.done) });
    expect(r).toEqual({ runs: 5, failures: 0, failed: [], counterexample: null, interrupted: false });
    expect(ticks[ticks.length - 1]).toBe(5);
  });

  it('stops handing out runs when its signal aborts, and says how many were done', async () => {
    const abort = new AbortController();
    const pool = new FakePool(2, new Set([50]), [0, 1]);
    let replies = 0;
    const r = await sweep(pool, { runs: 100, signal: abort.signal }, { onRun: () => ++replies === 5 && abort.abort() });
    expect(r).toEqual({ runs: 5, failures: 0, failed: [], counterexample: null, interrupted: true });
    // Five answered and the one in flight when it aborted: nothing was sent after.
    expect(pool.sent.length).toBe(6);
  });

  it('fails loudly when a worker reports an error', async () => {
    const pool: TaskPool<Task, Reply> = { size: 1, send: () => {}, pump: async (on) => on(0, { type: 'error', k: 0, invalid: false, message: 'boom' }), close: () => {} };
    await expect(sweep(pool, { runs: 1 })).rejects.toThrow(/boom/);
  });
});
