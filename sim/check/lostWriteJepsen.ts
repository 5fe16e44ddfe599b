/**
 * lost-write-jepsen: Jepsen's black-box lost write — acknowledged at an offset below the highest offset some
 * consumer read in its partition, and never read by anyone. Needs no final logs, so it can be wrong both ways
 * (a slow reader, a record read before it was lost); lostWrite.ts has the simulator's truth. A write of a
 * transaction that never committed is owed to nobody (a read_committed reader steps over it).
 */
import type { CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const lostWriteJepsen: CheckDefinition = {
  id: 'lostWriteJepsen',
  source: 'Jepsen: lost-write (its black-box form)',
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      const lost: number[] = [];
      for (let i = h.unreadFrom(), n = s.orderSpan; i < n; i++) {
        const v = s.sentAt(i);
        if (v < 0 || s.status(v) !== Status.Ok) continue;
        const o = s.offset(v);
        if (o >= 0 && !h.wasRead(v) && o < h.reads.maxReadOffset(s.tp(v)) && !h.transactions.isUncommitted(v)) lost.push(v);
      }
      out['lost-write-jepsen'] = result(
        lost.length,
        lost.slice(0, 5).map((v) => `${h.value(v)} at ${h.where(s.tp(v))} offset ${s.offset(v)} was never read, though later offsets were`),
        { values: lost.map((v) => h.value(v)) },
      );
    },
  }),
};
