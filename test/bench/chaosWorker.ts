/** A chaos benchmark worker thread: runs chaos run k and answers with the events it dispatched. */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../sim/explore/pool';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { chaosScenario } from './chaosScenario';

serveTasks<null, { k: number }, { k: number; events: number }>(workerData, () => (task, reply) => {
  const r = runScenario(validateScenario(chaosScenario(task.k)), { hash: false, keepEvents: false });
  reply({ k: task.k, events: r.engineEvents });
});
