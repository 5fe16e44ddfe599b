/**
 * G1a (aborted read): a consumer read a value whose send definitely failed — the producer was told no attempt
 * could have been written, yet it was.
 */
import type { CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const abortedRead: CheckDefinition = {
  id: 'abortedRead',
  source: 'Jepsen (Adya): G1a, aborted read',
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      const found: number[] = [];
      if (h.reads.seenCount > 0 && s.byStatus[Status.Fail]! > 0) {
        s.forEach((v) => {
          if (s.status(v) === Status.Fail && s.definite(v) && h.reads.seen(v)) found.push(v);
        });
      }
      const inReadOrder = h.reads.seenInReadOrder(found);
      out.G1a = result(
        inReadOrder.length,
        inReadOrder.slice(0, 5).map((v) => `${h.value(v)} was read although its send failed with ${s.error(v)}`),
      );
    },
  }),
};
