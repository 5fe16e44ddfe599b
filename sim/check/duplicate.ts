/**
 * duplicate: a value written at more than one offset of a final log (a producer retry without idempotence),
 * or read at more than one place.
 */
import type { CheckDefinition } from './check';
import { BitSet } from './history/columns';
import { result } from './report';

export const duplicate: CheckDefinition = {
  id: 'duplicate',
  source: 'Jepsen: duplicate',
  make: (h) => {
    /** Values found more than once, in the order found: in the final logs (by first offset), then by reads. */
    const dups: number[] = [];
    const isDup = new BitSet();
    const examples: string[] = [];
    /** The values of the final log being read (cleared after each). */
    const inLog = new BitSet();
    return {
      handlers: {
        'final.partition': () => {
          const { final, offsets, values, ascending } = h.finals.current!;
          // The usual log: one producer's values in ascending ids (Finals saw it reading the log): none is there twice.
          if (ascending) return;
          const repeated = new Map<number, number[]>();
          for (let i = 0; i < values.length; i++) {
            const v = values[i]!;
            if (v >= 0 && !inLog.add(v)) repeated.set(v, []);
          }
          for (let i = 0; i < values.length; i++) {
            const v = values[i]!;
            if (v < 0) continue;
            inLog.delete(v);
            repeated.get(v)?.push(offsets[i]!);
          }
          if (repeated.size === 0) return;
          // In the order of each value's first offset.
          for (const [v, offs] of [...repeated].sort((a, b) => a[1][0]! - b[1][0]!)) {
            if (!isDup.add(v)) continue;
            dups.push(v);
            if (examples.length < 5) examples.push(`${h.value(v)} is at offsets ${offs.join(', ')} of ${h.where(final.tp)}`);
          }
        },
      },
      report: (out) => {
        const found = [...dups];
        const readTwice = h.reads.seenInReadOrder(h.reads.places.keys());
        for (const v of readTwice) {
          if (!isDup.add(v)) continue;
          found.push(v);
          if (examples.length < 5) examples.push(`${h.value(v)} was read at ${h.reads.places.get(v)!.map((p) => `${h.where(p.tp)}@${p.offset}`).join(' and ')}`);
        }
        out.duplicate = result(found.length, examples, { values: found.map((v) => h.value(v)) });
      },
    };
  },
};
