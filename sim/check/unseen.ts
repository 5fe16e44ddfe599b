/**
 * unseen: acknowledged records of a topic some consumer reads that no consumer ever read — a loss, or just
 * lag at the end of the run (Jepsen reports these as "unseen" beside its lost writes). A write of a transaction
 * that never committed is owed to nobody.
 */
import type { CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const unseen: CheckDefinition = {
  id: 'unseen',
  source: 'Jepsen: unseen',
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      const consumed = h.reads.consumedTopics;
      const found: number[] = [];
      if (consumed.size > 0) {
        for (let i = h.unreadFrom(), n = s.orderSpan; i < n; i++) {
          const v = s.sentAt(i);
          if (v >= 0 && s.status(v) === Status.Ok && !h.wasRead(v) && consumed.has(h.tps.topic(s.tp(v))) && !h.transactions.isUncommitted(v)) found.push(v);
        }
      }
      out.unseen = result(
        found.length,
        found.slice(0, 5).map((v) => `${h.value(v)} (${h.where(s.tp(v))} offset ${s.offset(v)}) was acknowledged but never read`),
        { values: found.map((v) => h.value(v)) },
      );
    },
  }),
};
