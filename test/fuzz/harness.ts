import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FuzzCase } from './cases';
import { threadCpuMs } from '../support/threadCpu';
import type { Outcome } from './verdict';

export interface HarnessOptions {
  /** Worker threads (each runs one case at a time). */
  readonly workers: number;
  /**
   * CPU-time limit of one case (the case's own thread, user + system): past it, the worker is terminated and the
   * case is a hang. CPU time, not wall-clock time, so a loaded machine does not turn a slow case into a hang.
   * Where a thread's CPU time cannot be read, it is a wall-clock limit.
   */
  readonly limitMs: number;
  /** A case whose thread uses no CPU for this long is waiting for something that never comes: a hang. Default 2 min. */
  readonly idleMs?: number;
  /** A last bound on wall-clock time, whatever the CPU time says. Default 6 x limitMs. */
  readonly wallLimitMs?: number;
  /** The scratch directory of the cases (see fixtures.ts). */
  readonly tmp: string;
  /** Heap of a worker, so a case that runs out of memory kills its worker and not the test. */
  readonly heapMb?: number;
  readonly onOutcome?: (i: number, c: FuzzCase, o: Outcome) => void;
}

/** Cases that do what a hang does, for the harness's own test (harness.test.ts): spin for ever, or wait for ever. */
export const SPIN_FOR_EVER = '__fuzz-harness-spin__';
export const WAIT_FOR_EVER = '__fuzz-harness-wait__';

/** How often a running case's CPU time is looked at. */
const WATCH_MS = 1000;
/** CPU time below this over `idleMs` counts as none (the watch itself, timers). */
const IDLE_CPU_MS = 50;

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cjs/api');

interface Lane {
  readonly w: Worker;
  /** The worker's thread id, for its CPU time; null: only wall-clock time is known. */
  readonly tid: number | null;
}

function spawn(index: number, opts: HarnessOptions): Promise<Lane> {
  const boot = `require(${JSON.stringify(TSX)}).register(); require(${JSON.stringify(WORKER)});`;
  const w = new Worker(boot, {
    eval: true,
    workerData: { tmp: opts.tmp, index },
    resourceLimits: { maxOldGenerationSizeMb: opts.heapMb ?? 2048 },
    stdout: true,
    stderr: true,
  });
  // Whatever a case prints to the real stdout/stderr (it should print nothing) is not the test's output.
  w.stdout.resume();
  w.stderr.resume();
  return new Promise((resolve, reject) => {
    w.once('message', (m: { tid?: number | null }) => resolve({ w, tid: m.tid ?? null }));
    w.once('error', reject);
  });
}

/**
 * Runs every case on worker threads, each watched from here: a case that uses more than `limitMs` of CPU time, or
 * none for `idleMs`, or runs past `wallLimitMs`, is a hang and its worker is replaced; a worker that dies (out of
 * memory) is replaced too.
 */
export async function runCases(cases: readonly FuzzCase[], opts: HarnessOptions): Promise<Outcome[]> {
  const outcomes = new Array<Outcome>(cases.length);
  let next = 0;
  const lane = async (index: number): Promise<void> => {
    let { w, tid } = await spawn(index, opts);
    try {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        const t0 = performance.now();
        const cpuOf = () => (tid === null ? null : threadCpuMs(tid));
        const cpu0 = cpuOf();
        const o = await new Promise<Outcome>((resolve) => {
          let lastCpu = cpu0 ?? 0;
          let lastProgress = t0;
          const used = () => {
            const now = cpuOf();
            return now === null || cpu0 === null ? null : Math.round(now - cpu0);
          };
          const done = (x: Outcome) => {
            clearInterval(watch);
            w.off('message', onMessage);
            w.off('error', onError);
            w.off('exit', onExit);
            resolve({ ...x, cpuMs: x.cpuMs !== undefined ? x.cpuMs : used() });
          };
          const onMessage = (m: { id: number; code: Outcome['code']; out: string; err: string; wallMs: number }) => {
            if (m.id === i) done({ code: m.code, out: m.out, err: m.err, wallMs: m.wallMs });
          };
          const onError = (e: Error) => done({ code: 'died', out: '', err: String(e.message), wallMs: Math.round(performance.now() - t0) });
          const onExit = (code: number) => done({ code: 'died', out: '', err: `the worker exited with code ${code}`, wallMs: Math.round(performance.now() - t0) });
          const hang = (why: string, cpuMs: number | null) => done({ code: 'hang', out: '', err: why, wallMs: Math.round(performance.now() - t0), cpuMs });
          const watch = setInterval(() => {
            const now = performance.now();
            const wall = now - t0;
            const cpu = used();
            if (cpu === null) {
              if (wall > opts.limitMs) hang(`no answer within ${opts.limitMs} ms`, null);
              return;
            }
            if (cpu > opts.limitMs) return hang(`more than ${opts.limitMs} ms of CPU time without an answer`, cpu);
            if (cpu0 !== null && cpu + cpu0 - lastCpu > IDLE_CPU_MS) {
              lastCpu = cpu + cpu0;
              lastProgress = now;
            } else if (now - lastProgress > (opts.idleMs ?? 120_000)) {
              return hang(`no CPU time used for ${Math.round((now - lastProgress) / 1000)} s: waiting for something that never comes`, cpu);
            }
            if (wall > (opts.wallLimitMs ?? opts.limitMs * 6)) hang(`no answer within ${Math.round(wall / 1000)} s of wall-clock time`, cpu);
          }, Math.min(WATCH_MS, Math.max(50, opts.limitMs / 4)));
          w.on('message', onMessage);
          w.on('error', onError);
          w.on('exit', onExit);
          w.postMessage({ id: i, c });
        });
        outcomes[i] = o;
        opts.onOutcome?.(i, c, o);
        if (o.code === 'hang' || o.code === 'died') {
          await w.terminate();
          ({ w, tid } = await spawn(index, opts));
        }
      }
    } finally {
      await w.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, (_, i) => lane(i)));
  return outcomes;
}
