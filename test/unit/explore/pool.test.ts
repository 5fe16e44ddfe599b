import { describe, expect, it } from 'vitest';
import type { Reply, Task } from '../../../sim/explore/caseRunner';
import { explorePool } from '../../../sim/explore/explorePool';
import type { ExplorePlan } from '../../../sim/explore/plan';
import { ProcessPool, WorkerPool, entryPath, type TaskPool } from '../../../sim/explore/pool';
import { runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';
import { chaosScenario } from '../../bench/chaosScenario';
import type { ChaosReply, ChaosTask } from '../../bench/chaosWorker';

/*
 * Where a run happens never changes it: a worker thread, a child process, and a child process with V8's helper
 * threads off all return what this thread computes for the same seeds. Each pool starts real workers (a few CPU
 * seconds each), so the timeouts are long; nothing here is timed.
 */
const STARTS = 240_000;

/** Sends each task in turn to worker 0 and collects the replies each one ends with (`last` says which). */
async function runAll<T, R>(pool: TaskPool<T, R>, tasks: T[], last: (r: R) => boolean): Promise<R[]> {
  const out: R[] = [];
  try {
    for (const t of tasks) {
      pool.send(0, t);
      let got: R | null = null;
      while (got === null) await pool.pump((_, r) => void (last(r) && (got = r)), 1000);
      out.push(got);
    }
  } finally {
    pool.close();
  }
  return out;
}

describe('worker pools', () => {
  const chaos = entryPath(import.meta.url, '../../bench/chaosWorker.ts');
  const ks = [3, 8];

  it('a chaos run has the same trace hash here, on a worker thread and in a child process without V8 helper threads', async () => {
    const here = ks.map((k) => runScenario(validateScenario(chaosScenario(k)), { hash: true, keepEvents: false }));
    const want = here.map((r, i) => ({ k: ks[i], events: r.engineEvents, hash: r.traceHash }));
    expect(new Set(want.map((w) => w.hash)).size).toBe(ks.length);
    const tasks = ks.map((k): ChaosTask => ({ k, hash: true }));
    const pools: TaskPool<ChaosTask, ChaosReply>[] = [new WorkerPool(1, chaos, null), new ProcessPool(1, chaos, null, ['--single-threaded'])];
    for (const got of await Promise.all(pools.map((pool) => runAll(pool, tasks, () => true)))) {
      expect(got.map((r) => ({ k: r.k, events: r.events, hash: r.hash }))).toEqual(want);
    }
  }, STARTS);

  it('explore\'s runs come back the same from worker threads and from child processes', async () => {
    const plan: ExplorePlan = {
      property: 'no-acked-loss',
      base: {
        id: 'small',
        duration: '5s',
        quiet: '10s',
        cluster: { controllers: 1, brokers: 3 },
        topics: [{ name: 'orders', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
        producers: [{ id: 'producer-1', workload: { topic: 'orders', rate: 50, keys: { kind: 'uniform', count: 10 } } }],
      },
      sets: [],
      budget: 'one-at-a-time',
      maxFaults: 2,
      kinds: ['crash', 'power-loss', 'isolate'],
      seed: 'pool-test',
      shrinkRuns: 0,
    };
    const tasks = [0, 1].map((k): Task => ({ type: 'run', k }));
    const answer = (r: Reply) => r.type !== 'shrink-step';
    const [onThreads, inProcesses] = await Promise.all([runAll(explorePool(plan, 1, { threads: true }), tasks, answer), runAll(explorePool(plan, 1, { processes: true }), tasks, answer)]);
    expect(onThreads!.map((r) => r.type)).toEqual(['run', 'run']);
    expect(inProcesses).toEqual(onThreads);
  }, STARTS);

  it('workers compile without keepNames\' per-closure renaming: classes keep their names, wrapped closures have none', async () => {
    const entry = entryPath(import.meta.url, './namesWorker.ts');
    const pools: TaskPool<{ ask: true }, { className: string; closureName: string; helper: string | null }>[] = [new WorkerPool(1, entry, null), new ProcessPool(1, entry, null)];
    for (const got of await Promise.all(pools.map((pool) => runAll(pool, [{ ask: true as const }], () => true)))) {
      expect(got).toEqual([{ className: 'Probe', closureName: '', helper: '(target)=>target' }]);
    }
  }, STARTS);

  it('a child process that cannot start fails the pool with its error', async () => {
    const pool = new ProcessPool<ChaosTask, ChaosReply>(1, entryPath(import.meta.url, './no-such-worker.ts'), null);
    try {
      await expect(pool.ready()).rejects.toThrow(/worker 1 (did not start: .*Cannot find module|of 1 died)/s);
    } finally {
      pool.close();
    }
  }, STARTS);
});
