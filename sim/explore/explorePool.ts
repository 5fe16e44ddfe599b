import { CaseRunner, type Reply, type Task } from './caseRunner';
import type { ExplorePlan } from './plan';
import { InlinePool, ProcessPool, WorkerPool, entryPath, type TaskPool } from './pool';

/**
 * Where a sweep of this plan runs: on worker threads, on child processes (`processes`: ~5% more runs a minute
 * than threads with every core busy, in the chaos bench), or for one worker without either in this thread (no
 * thread's start-up cost; a signal is then heard only between tasks). The CLI always asks for threads, so Ctrl-C
 * stops a sweep at once.
 */
export function explorePool(plan: ExplorePlan, workers: number, opts: { threads?: boolean; processes?: boolean } = {}): TaskPool<Task, Reply> {
  const entry = entryPath(import.meta.url, './worker.ts');
  if (opts.processes === true) return new ProcessPool<Task, Reply>(Math.max(1, workers), entry, plan); // determinism-ok: runs outside any simulation
  if (workers <= 1 && opts.threads !== true) {
    const runner = new CaseRunner(plan);
    return new InlinePool<Task, Reply>((task, reply) => runner.handle(task, reply));
  }
  return new WorkerPool<Task, Reply>(Math.max(1, workers), entry, plan); // determinism-ok: runs outside any simulation
}
