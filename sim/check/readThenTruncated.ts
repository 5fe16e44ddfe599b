/**
 * read-then-truncated: records a consumer read that later vanished from the log — the final log holds another
 * record, or none, at that offset (read above what became the final high watermark, after an unclean election
 * or a power loss). Every read counts; one example per position and value, in partition and offset order.
 * Compacted logs are left out (the cleaner removes records on purpose). Only a simulator can see this: it needs
 * the final logs.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { firstAbove } from './history/finals';
import { NOTHING, TOMBSTONE } from './history/reads';
import { result } from './report';
import { comparePartitionNames } from './describe';

/** No record at an offset of the final log. */
const NOT_THERE = -3;

interface Example {
  readonly tp: number;
  readonly offset: number;
  /** The value read (or TOMBSTONE), and what the final log has there (or NOT_THERE). */
  readonly value: number;
  readonly there: number;
}

export const readThenTruncated: CheckDefinition = {
  id: 'readThenTruncated',
  source: SIMULATOR_ONLY,
  make: (h) => {
    let count = 0;
    const examples: Example[] = [];
    const keep = (x: Example) => {
      // The five first in (partition, offset) order (a stable sort keeps the order read within one position).
      const last = examples[4];
      if (last && comparePartitionNames(h.where(last.tp), h.where(x.tp)) < 0) return;
      examples.push(x);
      examples.sort((a, b) => comparePartitionNames(h.where(a.tp), h.where(b.tp)) || a.offset - b.offset);
      if (examples.length > 5) examples.pop();
    };
    const text = (v: number) => (v === TOMBSTONE ? 'null' : h.value(v));
    const describe = (x: Example) => {
      const first = x.value === TOMBSTONE ? h.reads.byPartition.get(x.tp)!.tombstoneReads.get(x.offset) : h.reads.readAt(x.value, x.tp, x.offset);
      const who = first ? h.nodes.name(first.by) : '?';
      const when = first ? h.at(first.t) : '?';
      return `${who} read ${text(x.value)} at ${h.where(x.tp)} offset ${x.offset} (${when}); the final log has ${x.there === NOT_THERE ? 'nothing' : text(x.there)} there`;
    };
    return {
      handlers: {
        'final.partition': () => {
          const { final, offsets, values } = h.finals.current!;
          const table = h.reads.byPartition.get(final.tp);
          if (!table || final.compacted) return;
          const tp = final.tp;
          if (table.minOffset < 0) return;
          const others = table.others.size > 0 ? table.others : null;
          // Both ascending: the final log's index of each offset read moves one way (a walk, not a search each).
          let i = firstAbove(offsets, Math.max(table.minOffset, final.logStartOffset) - 1);
          for (let o = Math.max(table.minOffset, final.logStartOffset); o <= table.maxOffset; o++) {
            const first = table.first(o);
            if (first === NOTHING) continue;
            while (i < offsets.length && offsets[i]! < o) i++;
            // (The last of equal offsets, as a search for the last at or below o would find.)
            while (i + 1 < offsets.length && offsets[i + 1] === o) i++;
            const there = i < offsets.length && offsets[i] === o ? values[i]! : NOT_THERE;
            if (first !== there) {
              count += table.firstCount(o);
              keep({ tp, offset: o, value: first, there });
            }
            if (others === null) continue;
            for (const x of others.get(o) ?? []) {
              if (x.value === there) continue;
              count += x.count;
              keep({ tp, offset: o, value: x.value, there });
            }
          }
        },
      },
      report: (out) => {
        out['read-then-truncated'] = result(count, examples.map(describe));
      },
    };
  },
};
