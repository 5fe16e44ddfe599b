/**
 * G1a (aborted read): a consumer read a value whose send definitely failed — the producer was told no attempt
 * could have been written, yet it was — or a read_committed consumer read a write of a transaction that
 * aborted or never committed (it must stop at the last stable offset and drop aborted ranges).
 */
import type { CheckDefinition } from './check';
import { Status } from './history/sends';
import { result } from './report';

export const abortedRead: CheckDefinition = {
  id: 'abortedRead',
  source: 'Jepsen (Adya): G1a, aborted read',
  make: (h) => {
    const tx = h.transactions;
    /** Transactional values read by a read_committed consumer: value id -> its first such read (judged at the end). */
    const committedReads = new Map<number, { t: number; by: string }>();
    h.reads.onRecords((e, _tp, offsets, values) => {
      if (tx.readCommitted.size === 0 || !tx.readCommitted.has(h.nodes.id(e.node))) return;
      for (let i = 0; i < offsets.length; i++) {
        const v = values[i]!;
        if (v < 0 || committedReads.has(v) || !tx.isTransactional(v)) continue;
        committedReads.set(v, { t: e.t, by: e.node });
      }
    });
    return {
      report: (out) => {
        const s = h.sends;
        const found: number[] = [];
        if (h.reads.seenCount > 0 && s.byStatus[Status.Fail]! > 0) {
          s.forEach((v) => {
            if (s.status(v) === Status.Fail && s.definite(v) && h.reads.seen(v)) found.push(v);
          });
        }
        const examples = h.reads.seenInReadOrder(found).map((v) => `${h.value(v)} was read although its send failed with ${s.error(v)}`);
        const reported = new Set(found);
        for (const [v, r] of committedReads) {
          if (reported.has(v) || !tx.isUncommitted(v)) continue;
          found.push(v);
          examples.push(`${r.by} (read_committed) read ${h.value(v)} at ${h.at(r.t)}, a write of a transaction that ${tx.isAborted(v) ? 'aborted' : 'never committed'}`);
        }
        out.G1a = result(found.length, examples.slice(0, 5));
      },
    };
  },
};
