/**
 * high-watermark-regression: a leader's high watermark never goes down within its leader epoch
 * [Partition.maybeIncrementLeaderHW only moves it forward; a new epoch may start lower, which is allowed]. Each
 * broker's current leader epoch per partition comes from its replica.role events; its high watermark from
 * replica.hw (and the HW it held when it took the role). Per (partition, epoch) the highest HW seen so far must
 * never be undercut. A leader that crashes starts over: after a restart its HW comes from the checkpoint file,
 * which lags by design [ReplicaManager.checkpointHighWatermarks], and it serves nobody before the controller
 * unfences it. Only a simulator can see this: it reads each broker's own high watermark.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { result } from './report';

/** The highest HW of a (partition, epoch) so far: updated in place as it rises (a finding keeps a copy). */
interface Best {
  hw: number;
  broker: number;
  t: number;
}

export const highWatermarkRegression: CheckDefinition = {
  id: 'highWatermarkRegression',
  source: SIMULATOR_ONLY,
  make: (h) => {
    /** broker -> by partition (tp id): the epoch it leads (undefined when not leading). */
    const epochOf = new Map<number, (number | undefined)[]>();
    /** By partition (tp id): epoch -> the highest HW so far (arrays: every leader's HW advance reads them). */
    const highest: (Map<number, Best> | undefined)[] = [];
    const found: { tp: number; epoch: number; broker: number; what: string; hw: number; t: number; best: Readonly<Best> }[] = [];
    const note = (tp: number, epoch: number, broker: number, hw: number, t: number, what: string) => {
      let byEpoch = highest[tp];
      if (!byEpoch) highest[tp] = byEpoch = new Map();
      const best = byEpoch.get(epoch);
      if (best && hw < best.hw) {
        found.push({ tp, epoch, broker, what, hw, t, best: { ...best } });
        return;
      }
      if (!best) byEpoch.set(epoch, { hw, broker, t });
      else if (hw > best.hw) {
        best.hw = hw;
        best.broker = broker;
        best.t = t;
      }
    };
    const died = (e: { processes: readonly string[] }) => {
      // A dead broker leads nothing until it takes the role again, and its new incarnation starts over.
      for (const p of e.processes) {
        const m = /^broker-(\d+)$/.exec(p);
        if (!m) continue;
        const broker = Number(m[1]);
        epochOf.delete(broker);
        for (const byEpoch of highest) if (byEpoch !== undefined) for (const [epoch, best] of [...byEpoch]) if (best.broker === broker) byEpoch.delete(epoch);
      }
    };
    return {
      handlers: {
        'replica.hw': (e) => {
          if (e.role === 'follower') return; // a follower's HW follows its leader's; only leaders are judged
          const mine = epochOf.get(e.broker);
          if (mine === undefined) return;
          const tp = h.tps.id(e.topic, e.partition);
          const epoch = mine[tp];
          if (epoch !== undefined) note(tp, epoch, e.broker, e.hw, e.t, 'moved its high watermark to');
        },
        'replica.role': (e) => {
          const tp = h.tps.id(e.topic, e.partition);
          if (e.role !== 'leader') {
            const mine = epochOf.get(e.broker);
            if (mine !== undefined) mine[tp] = undefined;
            return;
          }
          let mine = epochOf.get(e.broker);
          if (!mine) epochOf.set(e.broker, (mine = []));
          mine[tp] = e.leaderEpoch;
          note(tp, e.leaderEpoch, e.broker, e.hw, e.t, 'took the leader role with high watermark');
        },
        'host.crash': died,
        'host.power-off': died,
        'process.exit': (e) => died({ processes: [e.process] }),
      },
      report: (out) => {
        out['high-watermark-regression'] = result(
          found.length,
          found.map((f) => `${h.where(f.tp)} epoch ${f.epoch}: broker ${f.broker} ${f.what} ${f.hw} at ${h.at(f.t)}, below ${f.best.hw} (broker ${f.best.broker}, ${h.at(f.best.t)})`),
        );
      },
    };
  },
};
