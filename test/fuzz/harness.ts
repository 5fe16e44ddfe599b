import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FuzzCase } from './cases';
import type { Outcome } from './verdict';

export interface HarnessOptions {
  /** Worker threads (each runs one case at a time). */
  readonly workers: number;
  /** Wall-clock limit of one case, enforced from this thread: past it, the worker is terminated and the case is a hang. */
  readonly limitMs: number;
  /** The scratch directory of the cases (see fixtures.ts). */
  readonly tmp: string;
  /** Heap of a worker, so a case that runs out of memory kills its worker and not the test. */
  readonly heapMb?: number;
  readonly onOutcome?: (i: number, c: FuzzCase, o: Outcome) => void;
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cjs/api');

function spawn(index: number, opts: HarnessOptions): Promise<Worker> {
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
    w.once('message', () => resolve(w));
    w.once('error', reject);
  });
}

/**
 * Runs every case on worker threads, each under a wall-clock limit watched from here: a case that does not
 * answer in time is a hang and its worker is replaced; a worker that dies (out of memory) is replaced too.
 */
export async function runCases(cases: readonly FuzzCase[], opts: HarnessOptions): Promise<Outcome[]> {
  const outcomes = new Array<Outcome>(cases.length);
  let next = 0;
  const lane = async (index: number): Promise<void> => {
    let w = await spawn(index, opts);
    try {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        const t0 = performance.now();
        const o = await new Promise<Outcome>((resolve) => {
          const done = (x: Outcome) => {
            clearTimeout(timer);
            w.off('message', onMessage);
            w.off('error', onError);
            w.off('exit', onExit);
            resolve(x);
          };
          const onMessage = (m: { id: number; code: Outcome['code']; out: string; err: string; wallMs: number }) => {
            if (m.id === i) done({ code: m.code, out: m.out, err: m.err, wallMs: m.wallMs });
          };
          const onError = (e: Error) => done({ code: 'died', out: '', err: String(e.message), wallMs: Math.round(performance.now() - t0) });
          const onExit = (code: number) => done({ code: 'died', out: '', err: `the worker exited with code ${code}`, wallMs: Math.round(performance.now() - t0) });
          const timer = setTimeout(() => done({ code: 'hang', out: '', err: `no answer within ${opts.limitMs} ms`, wallMs: opts.limitMs }), opts.limitMs);
          w.on('message', onMessage);
          w.on('error', onError);
          w.on('exit', onExit);
          w.postMessage({ id: i, c });
        });
        outcomes[i] = o;
        opts.onOutcome?.(i, c, o);
        if (o.code === 'hang' || o.code === 'died') {
          await w.terminate();
          w = await spawn(index, opts);
        }
      }
    } finally {
      await w.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, (_, i) => lane(i)));
  return outcomes;
}
