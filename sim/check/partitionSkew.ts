/**
 * partition.max-share-pct (and .most-even-topic): per topic, the busiest partition's share of the topic's
 * acknowledged records — in the most skewed topic, and in the least skewed one. A hot key or a skewed
 * partitioner shows here. Counted as sends are answered (from the final history when the sends changed after).
 */
import { FIGURE, type CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const partitionSkew: CheckDefinition = {
  id: 'partitionSkew',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    // Acknowledged records per partition, counted as the answers come (the sends' answers are final unless irregular).
    const acked = new Map<number, number>();
    let lastTp = -1;
    let lastCount = 0;
    const flush = () => {
      if (lastTp >= 0) acked.set(lastTp, lastCount);
    };
    s.onComplete((a) => {
      if (a.status !== Status.Ok) return;
      for (let k = 0; k < a.length; k++) {
        const tp = a.tp[k]!;
        if (tp !== lastTp) {
          flush();
          lastTp = tp;
          lastCount = acked.get(tp) ?? 0;
        }
        lastCount++;
      }
    });
    return {
      report: (out) => {
        flush();
        let perTp = acked;
        if (s.irregular) {
          perTp = new Map<number, number>();
          s.forEach((v) => {
            if (s.status(v) === Status.Ok) perTp.set(s.tp(v), (perTp.get(s.tp(v)) ?? 0) + 1);
          });
        }
        const perTopic = new Map<string, Map<number, number>>();
        for (const [tp, n] of perTp) {
          const topic = h.tps.topicName(tp);
          let m = perTopic.get(topic);
          if (!m) perTopic.set(topic, (m = new Map()));
          m.set(h.tps.partition(tp), n);
        }
        let most: { pct: number; example: string } | undefined;
        let least: { pct: number; example: string } | undefined;
        for (const [topic, m] of [...perTopic].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
          let total = 0;
          let top: [number, number] = [-1, 0];
          for (const [p, n] of [...m].sort((a, b) => a[0] - b[0])) {
            total += n;
            if (n > top[1]) top = [p, n];
          }
          const pct = Math.round((top[1] / total) * 1000) / 10;
          const example = `${h.where(h.tps.id(topic, top[0]))} took ${top[1]} of ${total} records of ${topic} (${m.size} partition(s) used)`;
          if (!most || pct > most.pct) most = { pct, example };
          if (!least || pct < least.pct) least = { pct, example };
        }
        out['partition.max-share-pct'] = result(most?.pct ?? 0, most ? [most.example] : []);
        out['partition.max-share-pct.most-even-topic'] = result(least?.pct ?? 0, least ? [least.example] : []);
      },
    };
  },
};
