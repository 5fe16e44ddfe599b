import { availableParallelism } from 'node:os';
import { WorkerPool, entryPath } from '../../sim/explore/pool';

type Task = { k: number };
type Reply = { k: number; events: number };

/** Runs chaos runs 0..runs-1 on the pool, `warm` runs per worker first (not timed); returns runs per minute. */
async function measure(workers: number, runs: number, warm: number): Promise<number> {
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
    const t0 = performance.now();
    await drive(Array.from({ length: runs }, (_, i) => i));
    return (runs / ((performance.now() - t0) / 1000)) * 60;
  } finally {
    pool.close();
  }
}

/**
 * Runs per minute of a 30-simulated-second chaos scenario (chaosScenario.ts) on one worker thread and on
 * one per core, over the same runs.
 */
export async function runChaos(opts: { runs?: number } = {}): Promise<{ runsPerMinute1: number; runsPerMinuteAll: number; workers: number; runs: number }> {
  const workers = availableParallelism();
  const runs = opts.runs ?? Math.max(24, 12 * workers);
  const runsPerMinute1 = Math.round(await measure(1, runs, 2));
  const runsPerMinuteAll = Math.round(await measure(workers, runs, 2));
  return { runsPerMinute1, runsPerMinuteAll, workers, runs };
}
