import { CaseRunner, type Reply, type Task } from './caseRunner';
import type { ExplorePlan } from './plan';
import { InlinePool, WorkerPool, entryPath, type TaskPool } from './pool';

/**
 * Where a sweep of this plan runs: on worker threads, or for one worker without `threads` in this thread (no
 * thread's start-up cost; a signal is then heard only between tasks). The CLI always asks for threads, so
 * Ctrl-C stops a sweep at once.
 */
export function explorePool(plan: ExplorePlan, workers: number, opts: { threads?: boolean } = {}): TaskPool<Task, Reply> {
  if (workers <= 1 && opts.threads !== true) {
    const runner = new CaseRunner(plan);
    return new InlinePool<Task, Reply>((task, reply) => runner.handle(task, reply));
  }
  return new WorkerPool<Task, Reply>(Math.max(1, workers), entryPath(import.meta.url, './worker.ts'), plan); // determinism-ok: runs outside any simulation
}
