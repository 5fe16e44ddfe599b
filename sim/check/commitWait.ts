/**
 * commit.max-wait-ms: the longest time between a leader's append and the moment its high watermark covered the
 * appended batch (records wait there for min.insync.replicas followers). Appends a leader gave up (it lost
 * leadership, or truncated them) are left out; appends still waiting at the end count until the end of the run.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const commitWait: CheckDefinition = {
  id: 'commitWait',
  source: FIGURE,
  make: (h) => {
    /** Per leader broker, then per partition: appended batches not yet covered, as (last offset, time) pairs in offset order. */
    const pending = new Map<number, Map<number, number[]>>();
    /** The same lists by broker, then by tp id (what each leader HW advance looks up; the maps keep the order the report goes in). */
    const pendingOf = new Map<number, (number[] | undefined)[]>();
    let worst = 0;
    let example: { broker: number; tp: number; appendedUs: number; untilUs: number } | null = null;
    const note = (broker: number, tp: number, appendedUs: number, untilUs: number) => {
      if (untilUs - appendedUs <= worst) return;
      worst = untilUs - appendedUs;
      example = { broker, tp, appendedUs, untilUs };
    };
    const gaveUp = (e: { broker: number; topic: string; partition: number }) => {
      const tp = h.tps.id(e.topic, e.partition);
      pending.get(e.broker)?.delete(tp);
      const byTp = pendingOf.get(e.broker);
      if (byTp !== undefined) byTp[tp] = undefined;
    };
    const died = (e: { node: string }) => {
      const id = /^broker-(\d+)$/.exec(e.node);
      if (id) {
        pending.delete(Number(id[1]));
        pendingOf.delete(Number(id[1]));
      }
    };
    return {
      handlers: {
        'replica.append': (e) => {
          if (e.role !== 'leader') return;
          let byTp = pendingOf.get(e.broker);
          if (!byTp) pendingOf.set(e.broker, (byTp = []));
          const tp = h.tps.id(e.topic, e.partition);
          let q = byTp[tp];
          if (!q) {
            let m = pending.get(e.broker);
            if (!m) pending.set(e.broker, (m = new Map()));
            m.set(tp, (q = []));
            byTp[tp] = q;
          }
          q.push(e.last, e.t);
        },
        'replica.hw': (e) => {
          if (e.role === 'follower') return; // a follower's HW is what its leader told it
          const tp = h.tps.id(e.topic, e.partition);
          const q = pendingOf.get(e.broker)?.[tp];
          if (!q) return;
          let i = 0;
          while (i < q.length && q[i]! < e.hw) {
            note(e.broker, tp, q[i + 1]!, e.t);
            i += 2;
          }
          if (i > 0) q.splice(0, i);
        },
        // No longer its leader (or its log was cut back): what it had pending is not its to commit any more.
        'replica.role': (e) => {
          if (e.role !== 'leader') gaveUp(e);
        },
        'replica.truncate': gaveUp,
        'host.crash': died,
        'host.power-off': died,
        'process.exit': (e) => died({ node: e.process }),
      },
      report: (out) => {
        for (const [broker, m] of pending) for (const [tp, q] of m) for (let i = 0; i < q.length; i += 2) note(broker, tp, q[i + 1]!, h.endUs);
        const x = example as { broker: number; tp: number; appendedUs: number; untilUs: number } | null;
        out['commit.max-wait-ms'] = result(
          Math.round(worst / 1000),
          x ? [`${h.where(x.tp)} on broker ${x.broker}: a batch appended at ${h.at(x.appendedUs)} waited until ${h.at(x.untilUs)} to be committed`] : [],
        );
      },
    };
  },
};
