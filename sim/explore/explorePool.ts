import { CaseRunner, type Reply, type Task } from './caseRunner';
import type { ExplorePlan } from './plan';
import { InlinePool, WorkerPool, entryPath, type TaskPool } from './pool';

/** Where a sweep of this plan runs: in this thread for one worker, else on worker threads. */
export function explorePool(plan: ExplorePlan, workers: number): TaskPool<Task, Reply> {
  if (workers <= 1) {
    const runner = new CaseRunner(plan);
    return new InlinePool<Task, Reply>((task, reply) => runner.handle(task, reply));
  }
  return new WorkerPool<Task, Reply>(workers, entryPath(import.meta.url, './worker.ts'), plan); // determinism-ok: runs outside any simulation
}
