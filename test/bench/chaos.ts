import { availableParallelism } from 'node:os';
import { ProcessPool, WorkerPool, entryPath, type TaskPool } from '../../sim/explore/pool';
import type { ChaosReply, ChaosTask } from './chaosWorker';

/** Untimed runs each worker does first: its isolate compiles and optimises the simulator on these. */
export const WARM_RUNS = 6;

/** What one pool size measured. */
export interface Measured {
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

/**
 * Where the chaos workers run: worker threads of this process, or child processes (plain, or with V8's helper
 * threads off: `--single-threaded` does GC and compilation on the worker's own thread). Measured in the same
 * minutes (chaosPools.ts, 2 workers, two sessions of 6-8 rounds, load 10-25), against threads: processes 0.93 of
 * the wall time and 0.95 of the CPU per run; single-threaded 1.05-1.33 of the wall time, 0.89-1.10 of the CPU.
 * The bench uses processes.
 */
export type ChaosPoolKind = 'threads' | 'processes' | 'single-threaded';
export const CHAOS_POOL_KINDS: readonly ChaosPoolKind[] = ['threads', 'processes', 'single-threaded'];

/** A pool of `workers` chaos workers, started (every worker ready), and whether their CPU is outside this process. */
async function chaosPool(kind: ChaosPoolKind, workers: number): Promise<{ pool: TaskPool<ChaosTask, ChaosReply>; ownProcesses: boolean }> {
  const entry = entryPath(import.meta.url, './chaosWorker.ts');
  if (kind === 'threads') return { pool: new WorkerPool<ChaosTask, ChaosReply>(workers, entry, null), ownProcesses: false };
  const pool = new ProcessPool<ChaosTask, ChaosReply>(workers, entry, null, kind === 'single-threaded' ? ['--single-threaded'] : []);
  try {
    await pool.ready();
  } catch (e) {
    pool.close();
    throw e;
  }
  return { pool, ownProcesses: true };
}

const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system;

/** What a stretch of runs cost: wall seconds, CPU µs of everything involved, and of the workers' own threads. */
export interface Stretch {
  wallSeconds: number;
  cpuUs: number;
  workerThreadCpuUs: number | null;
}

/**
 * A started pool of chaos workers and the bookkeeping to time stretches of runs on it: whole-process CPU (this
 * process's, plus the children's they report when the workers are child processes) and the workers' own threads'.
 */
export class ChaosRig {
  private constructor(
    readonly kind: ChaosPoolKind,
    readonly workers: number,
    private readonly pool: TaskPool<ChaosTask, ChaosReply>,
    private readonly ownProcesses: boolean,
    /** Wall seconds from creating the pool to every worker saying it is ready. */
    readonly startSeconds: number,
    private readonly c0: NodeJS.CpuUsage,
  ) {}

  static async start(kind: ChaosPoolKind, workers: number): Promise<ChaosRig> {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { pool, ownProcesses } = await chaosPool(kind, workers);
    return new ChaosRig(kind, workers, pool, ownProcesses, (performance.now() - t0) / 1000, c0);
  }

  /** Runs `ks`, each worker taking the next as soon as it is free. */
  private async drive(ks: readonly number[]): Promise<void> {
    let next = 0;
    let done = 0;
    const busy = new Array<boolean>(this.workers).fill(false);
    while (done < ks.length) {
      for (let w = 0; w < this.workers; w++) {
        if (!busy[w] && next < ks.length) {
          busy[w] = true;
          this.pool.send(w, { k: ks[next++]! });
        }
      }
      await this.pool.pump((w) => {
        busy[w] = false;
        done++;
      }, 1000);
    }
  }

  /** Each worker's CPU so far, without a run: one probe per worker (an idle worker takes no other task). */
  private async probe(): Promise<ChaosReply[]> {
    const got = new Array<ChaosReply | null>(this.workers).fill(null);
    for (let w = 0; w < this.workers; w++) this.pool.send(w, { k: -1 });
    while (got.some((r) => r === null)) await this.pool.pump((w, r) => (got[w] = r), 1000);
    return got as ChaosReply[];
  }

  private childrenCpuUs(ps: readonly ChaosReply[]): number {
    return this.ownProcesses ? ps.reduce((s, p) => s + p.processCpuUs, 0) : 0;
  }

  /**
   * `perWorker` untimed runs on each worker (indices outside any timed set); returns the CPU seconds per worker
   * from creating the pool to the end of them.
   */
  async warm(perWorker: number): Promise<number> {
    await this.drive(Array.from({ length: perWorker * this.workers }, (_, i) => 1_000_000 + i));
    const p = await this.probe();
    return (cpuUs(process.cpuUsage()) - cpuUs(this.c0) + this.childrenCpuUs(p)) / 1e6 / this.workers;
  }

  /** Runs `ks` and says what they cost. */
  async timed(ks: readonly number[]): Promise<Stretch> {
    const p0 = await this.probe();
    const c1 = process.cpuUsage();
    const t1 = performance.now();
    await this.drive(ks);
    const wallSeconds = (performance.now() - t1) / 1000;
    const p1 = await this.probe();
    const cpu = cpuUs(process.cpuUsage(c1)) + this.childrenCpuUs(p1) - this.childrenCpuUs(p0);
    const known = p1.every((p, w) => p.threadCpuNs !== null && p0[w]!.threadCpuNs !== null);
    return { wallSeconds, cpuUs: cpu, workerThreadCpuUs: known ? p1.reduce((s, p, w) => s + p.threadCpuNs! - p0[w]!.threadCpuNs!, 0) / 1000 : null };
  }

  close(): void {
    this.pool.close();
  }
}

/**
 * Runs chaos runs 0..runs-1 on a pool of `workers`, `warm` runs per worker first (not timed); returns runs per
 * minute and CPU per run, from whole-process CPU (child processes included) and per-thread CPU the workers read.
 */
export async function measure(kind: ChaosPoolKind, workers: number, runs: number, warm: number): Promise<Measured> {
  const rig = await ChaosRig.start(kind, workers);
  try {
    const warmupCpuSecondsPerWorker = await rig.warm(warm);
    const t = await rig.timed(Array.from({ length: runs }, (_, i) => i));
    return {
      perMinute: (runs / t.wallSeconds) * 60,
      cpuSecondsPerRun: t.cpuUs / 1e6 / runs,
      workerCpuShare: t.workerThreadCpuUs === null ? null : t.workerThreadCpuUs / t.cpuUs,
      startSeconds: rig.startSeconds,
      warmupCpuSecondsPerWorker,
    };
  } finally {
    rig.close();
  }
}

export interface ChaosResult {
  pool: ChaosPoolKind;
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
export async function runChaos(opts: { runs?: number; pool?: ChaosPoolKind } = {}): Promise<ChaosResult> {
  const kind = opts.pool ?? 'processes';
  const workers = availableParallelism();
  const runs = opts.runs ?? Math.max(24, 12 * workers);
  const one = await measure(kind, 1, runs, WARM_RUNS);
  const all = await measure(kind, workers, runs, WARM_RUNS);
  const share = (s: number | null) => (s === null ? null : round(s, 3));
  return {
    pool: kind,
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
