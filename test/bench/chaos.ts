import { availableParallelism } from 'node:os';
import { WorkerPool, entryPath } from '../../sim/explore/pool';

type Task = { k: number };
type Reply = { k: number; events: number };

/**
 * Runs chaos runs 0..runs-1 on the pool, `warm` runs per worker first (not timed); returns runs per minute and
 * the CPU seconds (user + system of this process, workers included) per run.
 */
async function measure(workers: number, runs: number, warm: number): Promise<{ perMinute: number; cpuSecondsPerRun: number }> {
  const pool = new WorkerPool<Task, Reply>(workers, entryPath(import.meta.url, './chaosWorker.ts'), null);
  try {
    const drive = async (ks: number[]) => {
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
        await pool.pump((w) => {
          busy[w] = false;
          done++;
        }, 1000);
      }
    };
    // Warm-up runs use indices outside the timed set, so both measurements time the same runs.
    await drive(Array.from({ length: warm * workers }, (_, i) => 1_000_000 + i));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await drive(Array.from({ length: runs }, (_, i) => i));
    const wall = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    return { perMinute: (runs / wall) * 60, cpuSecondsPerRun: (c.user + c.system) / 1e6 / runs };
  } finally {
    pool.close();
  }
}

/**
 * Runs per minute of a 30-simulated-second chaos scenario (chaosScenario.ts) on one worker thread and on
 * one per core, over the same runs.
 */
export async function runChaos(opts: { runs?: number } = {}): Promise<{ runsPerMinute1: number; runsPerMinuteAll: number; workers: number; runs: number; cpuSecondsPerRun: number; runsPerCpuMinute: number }> {
  const workers = availableParallelism();
  const runs = opts.runs ?? Math.max(24, 12 * workers);
  const one = await measure(1, runs, 2);
  const all = await measure(workers, runs, 2);
  // By CPU time (one worker's figure: its process runs nothing else): runs per minute of one free core, so
  // `workers` free cores give about `workers` times as many.
  const cpuSecondsPerRun = Number(one.cpuSecondsPerRun.toFixed(3));
  return { runsPerMinute1: Math.round(one.perMinute), runsPerMinuteAll: Math.round(all.perMinute), workers, runs, cpuSecondsPerRun, runsPerCpuMinute: Math.round(60 / one.cpuSecondsPerRun) };
}
