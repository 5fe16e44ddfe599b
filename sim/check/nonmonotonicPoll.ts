/**
 * nonmonotonic-poll: a consumer read an offset at or before one it had already read in that partition, without
 * a reassignment, seek or offset reset in between (a poison pill retried, a position moved back by a fetch).
 */
import type { CheckDefinition } from './check';
import { result } from './report';

export const nonmonotonicPoll: CheckDefinition = {
  id: 'nonmonotonicPoll',
  source: 'Jepsen: nonmonotonic-poll',
  make: (h) => {
    let count = 0;
    const found: { node: string; tp: number; first: number; prev: number; t: number }[] = [];
    h.positions.onRead((e, tp, first, prev) => {
      if (first > prev) return;
      count++;
      if (found.length < 5) found.push({ node: e.node, tp, first, prev, t: e.t });
    });
    return {
      report: (out) => {
        out['nonmonotonic-poll'] = result(
          count,
          found.map((x) => `${x.node} read ${h.where(x.tp)} offset ${x.first} at ${h.at(x.t)} after having read up to ${x.prev}`),
        );
      },
    };
  },
};
