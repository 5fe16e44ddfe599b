import { formatTime } from '../../core/time';
import { futureCheck, verdict, type RunProperty, type RunOutcome, type Verdict } from './property';

/**
 * A leader's high watermark never goes down within its leader epoch [Partition.maybeIncrementLeaderHW only
 * moves it forward; a new epoch may start lower, which is allowed]. Each broker's current leader epoch per
 * partition comes from its replica.role events; its high watermark from replica.hw (and the HW it held when
 * it took the role). Per (partition, epoch) the highest HW seen so far must never be undercut. A leader that
 * crashes starts over: after a restart its HW comes from the checkpoint file, which lags by design
 * [ReplicaManager.checkpointHighWatermarks], and it serves nobody before the controller unfences it.
 */
export function hwRegressions(run: RunOutcome): Verdict {
  const epochOf = new Map<string, number>(); // broker \0 partition -> epoch it leads, absent when not leading
  const highest = new Map<string, { hw: number; broker: number; t: number }>(); // partition \0 epoch -> highest HW
  const examples: string[] = [];
  let count = 0;
  let startUs = 0;
  const observe = (tp: string, epoch: number, broker: number, hw: number, t: number, what: string) => {
    const key = `${tp}\u0000${epoch}`;
    const best = highest.get(key);
    if (best && hw < best.hw) {
      count++;
      examples.push(`${tp} epoch ${epoch}: broker ${broker} ${what} ${hw} at ${formatTime(t - startUs)}, below ${best.hw} (broker ${best.broker}, ${formatTime(best.t - startUs)})`);
      return;
    }
    if (!best || hw > best.hw) highest.set(key, { hw, broker, t });
  };
  for (const e of run.trace) {
    if (e.kind === 'scenario.start') startUs = e.t;
    else if (e.kind === 'replica.role') {
      const tp = `${e.topic as string}-${e.partition as number}`;
      const key = `${e.broker as number}\u0000${tp}`;
      if (e.role !== 'leader') {
        epochOf.delete(key);
        continue;
      }
      epochOf.set(key, e.leaderEpoch as number);
      observe(tp, e.leaderEpoch as number, e.broker as number, e.hw as number, e.t, 'took the leader role with high watermark');
    } else if (e.kind === 'replica.hw') {
      if (e.role === 'follower') continue; // a follower's HW follows its leader's; only leaders are judged
      const tp = `${e.topic as string}-${e.partition as number}`;
      const epoch = epochOf.get(`${e.broker as number}\u0000${tp}`);
      if (epoch === undefined) continue;
      observe(tp, epoch, e.broker as number, e.hw as number, e.t, 'moved its high watermark to');
    } else if (e.kind === 'host.crash' || e.kind === 'host.power-off') {
      // A dead broker leads nothing until it takes the role again, and its new incarnation starts over.
      for (const p of (e.processes as string[] | undefined) ?? []) {
        const m = /^broker-(\d+)$/.exec(p);
        if (!m) continue;
        const broker = Number(m[1]);
        for (const k of [...epochOf.keys()]) if (k.startsWith(`${broker}\u0000`)) epochOf.delete(k);
        for (const [k, best] of [...highest]) if (best.broker === broker) highest.delete(k);
      }
    }
  }
  return verdict(count, examples);
}

export const hwMonotonic: RunProperty = {
  name: 'hw-monotonic',
  description: "a leader's high watermark never goes down within a leader epoch",
  expectation: () => futureCheck('high-watermark-regression', '=', 0, 'hw-monotonic: high-watermark-regression = 0'),
  evaluate: hwRegressions,
};
