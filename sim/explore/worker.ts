/** The entry of an exploration worker thread: a CaseRunner for the plan it was given (see WorkerPool). */
import { workerData } from 'node:worker_threads'; // determinism-ok: runs outside any simulation
import { CaseRunner, type Reply, type Task } from './caseRunner';
import type { ExplorePlan } from './plan';
import { serveTasks } from './pool';

serveTasks<ExplorePlan, Task, Reply>(workerData, (plan) => {
  const runner = new CaseRunner(plan);
  return (task, reply) => runner.handle(task, reply);
});
