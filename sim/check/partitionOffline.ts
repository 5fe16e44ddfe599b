/**
 * partition.offline-ms: the longest a partition had no leader in the committed metadata, from the election
 * that left it leaderless to the next one that gave it a leader (still leaderless at the end counts to the end).
 * Over a window, a partition leaderless when the window opens counts from the window's start.
 */
import type { Handlers } from '../core/trace';
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const partitionOffline: CheckDefinition = {
  id: 'partitionOffline',
  source: FIGURE,
  make: (h) => {
    const since = new Map<number, number>();
    let worst = 0;
    let example: { tp: number; from: number; to: number } | null = null;
    const note = (tp: number, since: number, to: number) => {
      const from = Math.max(since, h.windowStartUs);
      if (to - from <= worst) return;
      worst = to - from;
      example = { tp, from, to };
    };
    const leadership: Handlers = {
      'controller.election': (e) => {
        const tp = h.tps.id(e.topic, e.partition);
        if (e.leader < 0) {
          if (!since.has(tp)) since.set(tp, e.t);
        } else {
          const from = since.get(tp);
          if (from !== undefined) note(tp, from, e.t);
          since.delete(tp);
        }
      },
    };
    return {
      beforeWindow: leadership,
      handlers: leadership,
      report: (out) => {
        for (const [tp, from] of since) note(tp, from, h.endUs);
        const x = example as { tp: number; from: number; to: number } | null;
        out['partition.offline-ms'] = result(Math.round(worst / 1000), x ? [`${h.where(x.tp)} had no leader from ${h.at(x.from)} to ${h.at(x.to)}`] : []);
      },
    };
  },
};
