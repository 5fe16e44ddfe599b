/**
 * A worker entry for pool.test.ts: answers with a class's and a closure's names and with this module's keepNames
 * helper as the worker's boot left it (read by a direct eval, which sees the module's own scope).
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../../sim/explore/pool';

class Probe {}

const makeCounter = () => {
  const bump = (n: number) => n + 1;
  return bump;
};

serveTasks<null, { ask: true }, { className: string; closureName: string; helper: string | null }>(workerData, () => (_task, reply) => {
  // eslint-disable-next-line no-eval
  const helper = eval('typeof __name === "function" ? String(__name) : null') as string | null;
  reply({ className: Probe.name, closureName: makeCounter().name, helper });
});
