/**
 * The chaos bench's pool kinds side by side, in the same minutes: `npx tsx test/bench/chaosPools.ts [rounds]
 * [workers] [runsPerRound]` starts a pool of each kind (CHAOS_POOLS=threads,single-threaded picks some), warms
 * each, then each round times the same runs on every kind in turn (order alternating), the other pools idle.
 * Prints one JSON line per stretch and, per kind, the medians and the median ratio to the first kind's.
 */
import { availableParallelism } from 'node:os';
import { CHAOS_POOL_KINDS, ChaosRig, WARM_RUNS, type ChaosPoolKind, type Stretch } from './chaos';

const [rounds = 6, workers = availableParallelism(), perRound = 4 * workers] = process.argv.slice(2).map(Number);
const kinds = (process.env.CHAOS_POOLS?.split(',') ?? CHAOS_POOL_KINDS) as ChaosPoolKind[];
const rigs: ChaosRig[] = [];
try {
  for (const kind of kinds) {
    const rig = await ChaosRig.start(kind, workers);
    rigs.push(rig);
    const warmCpu = await rig.warm(WARM_RUNS);
    console.log(JSON.stringify({ kind, workers, startSeconds: rig.startSeconds, warmupCpuSecondsPerWorker: warmCpu }));
  }
  const got = rigs.map(() => [] as Stretch[]);
  for (let r = 0; r < rounds; r++) {
    const ks = Array.from({ length: perRound }, (_, i) => r * perRound + i);
    const order = r % 2 === 0 ? rigs.map((_, i) => i) : rigs.map((_, i) => rigs.length - 1 - i);
    for (const i of order) {
      const t = await rigs[i]!.timed(ks);
      got[i]!.push(t);
      console.log(JSON.stringify({ kind: kinds[i], round: r, runsPerMinute: (perRound / t.wallSeconds) * 60, cpuSecondsPerRun: t.cpuUs / 1e6 / perRound, workerCpuShare: t.workerThreadCpuUs === null ? null : t.workerThreadCpuUs / t.cpuUs }));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  got.forEach((ts, i) => {
    const ratio = (f: (t: Stretch) => number) => Number(median(ts.map((t, r) => f(t) / f(got[0]![r]!))).toFixed(3));
    console.log(
      JSON.stringify({
        kind: kinds[i],
        median: true,
        runsPerMinute: Math.round(median(ts.map((t) => (perRound / t.wallSeconds) * 60))),
        cpuSecondsPerRun: Number(median(ts.map((t) => t.cpuUs / 1e6 / perRound)).toFixed(3)),
        workerCpuShare: Number(median(ts.map((t) => (t.workerThreadCpuUs ?? 0) / t.cpuUs)).toFixed(3)),
        wallRatioToFirst: ratio((t) => t.wallSeconds),
        cpuRatioToFirst: ratio((t) => t.cpuUs),
      }),
    );
  });
} finally {
  for (const rig of rigs) rig.close();
}
