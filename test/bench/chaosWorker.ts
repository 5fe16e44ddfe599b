/**
 * A chaos benchmark worker: runs chaos run k and answers with the events it dispatched and the CPU it has used so
 * far (its own thread's, and its process's: a worker thread shares the bench's process, a child process does
 * not). A negative k is a probe: the CPU figures without a run. `hash` asks for the run's trace hash too (a test
 * compares pools by it; the bench does not pay for it).
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../sim/explore/pool';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { ownThreadCpuNs } from '../support/threadCpu';
import { chaosScenario } from './chaosScenario';

export type ChaosTask = { k: number; hash?: boolean };
export type ChaosReply = { k: number; events: number; hash?: string; threadCpuNs: number | null; processCpuUs: number };

serveTasks<null, ChaosTask, ChaosReply>(workerData, () => (task, reply) => {
  const r = task.k < 0 ? null : runScenario(validateScenario(chaosScenario(task.k)), { hash: task.hash === true, keepEvents: false });
  const cpu = process.cpuUsage();
  reply({ k: task.k, events: r?.engineEvents ?? 0, ...(task.hash && r && { hash: r.traceHash }), threadCpuNs: ownThreadCpuNs(), processCpuUs: cpu.user + cpu.system });
});
