import { availableParallelism } from 'node:os';
import { WorkerPool, entryPath } from '../../sim/explore/pool';
import type { ChaosReply, ChaosTask } from './chaosWorker';

/** Untimed runs each worker does first: its isolate compiles and optimises the simulator on these. */
export const WARM_RUNS = 6;

/** What one pool size measured. */
interface Measured {
  perMinute: number;
  /** CPU seconds (user + system) of every thread of every process involved, per timed run. */
  cpuSecondsPerRun: number;
  /** The workers' own threads' share of that CPU (the rest: GC and compiler helper threads, the driving thread). */
  workerCpuShare: number | null;
  /** Wall seconds from creating the pool to every worker saying it is ready. */
  startSeconds: number;
  /** CPU seconds per worker from creating the pool to the end of its warm runs. */
  warmupCpuSecondsPerWorker: number;
}

/** A pool of `workers` chaos workers: it runs tasks, and says whether its workers' CPU is outside this process. */
function chaosPool(workers: number): { pool: WorkerPool<ChaosTask, ChaosReply>; ownProcesses: boolean } {
  return { pool: new WorkerPool<ChaosTask, ChaosReply>(workers, entryPath(import.meta.url, './chaosWorker.ts'), null), ownProcesses: false };
}

const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system;

/**
 * Runs chaos runs 0..runs-1 on a pool of `workers`, `warm` runs per worker first (not timed); returns runs per
 * minute and CPU per run, from whole-process CPU (child processes included) and per-thread CPU the workers read.
 */
async function measure(workers: number, runs: number, warm: number): Promise<Measured> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const { pool, ownProcesses } = chaosPool(workers);
  try {
    const startSeconds = (performance.now() - t0) / 1000;
    const drive = async (ks: number[]) => {
      const replies = new Array<ChaosReply | null>(workers).fill(null);
      let next = 0;
      let done = 0;
      const busy = new Array<boolean>(workers).fill(false);
      while (done < ks.length) {
        for (let w = 0; w < workers; w++) {
          if (!busy[w] && next < ks.length) {
            busy[w] = true;
            pool.send(w, { k: ks[next++]! });
          }
        }
        await pool.pump((w, r) => {
          busy[w] = false;
          replies[w] = r;
          done++;
        }, 1000);
      }
      return replies;
    };
    // Each worker's CPU so far, without a run: a probe per worker (one each, since a worker idle in the drive
    // above takes no other task).
    const probe = async () => {
      const got = new Array<ChaosReply | null>(workers).fill(null);
      for (let w = 0; w < workers; w++) pool.send(w, { k: -1 });
      while (got.some((r) => r === null)) await pool.pump((w, r) => (got[w] = r), 1000);
      return got as ChaosReply[];
    };
    // Warm-up runs use indices outside the timed set, so both measurements time the same runs.
    await drive(Array.from({ length: warm * workers }, (_, i) => 1_000_000 + i));
    const p0 = await probe();
    const c1 = process.cpuUsage();
    const children = (ps: ChaosReply[]) => (ownProcesses ? ps.reduce((s, p) => s + p.processCpuUs, 0) : 0);
    const warmupCpuUs = cpuUs(c1) - cpuUs(c0) + children(p0);
    const t1 = performance.now();
    await drive(Array.from({ length: runs }, (_, i) => i));
    const wall = (performance.now() - t1) / 1000;
    const p1 = await probe();
    const cpu = cpuUs(process.cpuUsage(c1)) + children(p1) - children(p0);
    const threads = p1.every((p, w) => p.threadCpuNs !== null && p0[w]!.threadCpuNs !== null) ? p1.reduce((s, p, w) => s + p.threadCpuNs! - p0[w]!.threadCpuNs!, 0) / 1000 : null;
    return {
      perMinute: (runs / wall) * 60,
      cpuSecondsPerRun: cpu / 1e6 / runs,
      workerCpuShare: threads === null ? null : threads / cpu,
      startSeconds,
      warmupCpuSecondsPerWorker: warmupCpuUs / 1e6 / workers,
    };
  } finally {
    pool.close();
  }
}

export interface ChaosResult {
  runsPerMinute1: number;
  runsPerMinuteAll: number;
  workers: number;
  runs: number;
  /** One worker's CPU seconds a run (its process runs nothing else), and the runs per minute of one free core. */
  cpuSecondsPerRun: number;
  runsPerCpuMinute: number;
  /** The same with `workers` workers at once, and the runs per minute `workers` free cores would give at that cost. */
  cpuSecondsPerRunAll: number;
  runsPerMinuteAllByCpu: number;
  /** The workers' own threads' share of the process CPU, on one worker and on all. */
  workerCpuShare1: number | null;
  workerCpuShareAll: number | null;
  warmRuns: number;
  workerStartSeconds: number;
  warmupCpuSecondsPerWorker: number;
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/**
 * Runs per minute of a 30-simulated-second chaos scenario (chaosScenario.ts) on one worker and on one per core,
 * over the same runs, each after WARM_RUNS untimed runs per worker. Wall-clock figures suffer from a shared
 * machine; the CPU figures (whole process, helper threads included) do much less.
 */
export async function runChaos(opts: { runs?: number } = {}): Promise<ChaosResult> {
  const workers = availableParallelism();
  const runs = opts.runs ?? Math.max(24, 12 * workers);
  const one = await measure(1, runs, WARM_RUNS);
  const all = await measure(workers, runs, WARM_RUNS);
  const share = (s: number | null) => (s === null ? null : round(s, 3));
  return {
    runsPerMinute1: Math.round(one.perMinute),
    runsPerMinuteAll: Math.round(all.perMinute),
    workers,
    runs,
    cpuSecondsPerRun: round(one.cpuSecondsPerRun, 3),
    runsPerCpuMinute: Math.round(60 / one.cpuSecondsPerRun),
    cpuSecondsPerRunAll: round(all.cpuSecondsPerRun, 3),
    runsPerMinuteAllByCpu: Math.round((60 * workers) / all.cpuSecondsPerRun),
    workerCpuShare1: share(one.workerCpuShare),
    workerCpuShareAll: share(all.workerCpuShare),
    warmRuns: WARM_RUNS,
    workerStartSeconds: round(all.startSeconds, 2),
    warmupCpuSecondsPerWorker: round(all.warmupCpuSecondsPerWorker, 2),
  };
}
