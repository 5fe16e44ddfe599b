/**
 * poll-skip: a consumer jumped over records between two polls of a partition without a reassignment, seek or
 * offset reset in between. A jump counts only if the final log holds records in the gap (offsets a compaction or
 * a transaction marker left empty are no skip, nor are records of a transaction that never committed), so jumps are kept as they happen and judged when the partition's
 * final log goes by.
 */
import type { CheckDefinition } from './check';
import { countBetween, firstAbove } from './history/finals';
import { result } from './report';

interface Jump {
  readonly node: string;
  readonly tp: number;
  readonly from: number;
  readonly to: number;
  readonly t: number;
  skipped: number;
}

export const pollSkip: CheckDefinition = {
  id: 'pollSkip',
  source: 'Jepsen: poll-skip',
  make: (h) => {
    /** Jumps of more than one offset, in poll order, with what they skipped once the final log is known. */
    const jumps: Jump[] = [];
    const byTp = new Map<number, Jump[]>();
    h.positions.onRead((e, tp, first, prev) => {
      if (first <= prev + 1) return;
      const j: Jump = { node: e.node, tp, from: prev, to: first, t: e.t, skipped: 0 };
      jumps.push(j);
      let list = byTp.get(tp);
      if (!list) byTp.set(tp, (list = []));
      list.push(j);
    });
    return {
      handlers: {
        'final.partition': () => {
          const { final, offsets, values } = h.finals.current!;
          for (const j of byTp.get(final.tp) ?? []) {
            j.skipped = countBetween(offsets, j.from, j.to);
            // A read_committed consumer steps over aborted (and never committed) records.
            if (j.skipped > 0 && h.transactions.any) j.skipped -= uncommittedBetween(offsets, values, j.from, j.to, (v) => h.transactions.isUncommitted(v));
          }
        },
      },
      report: (out) => {
        const skips = jumps.filter((j) => j.skipped > 0);
        out['poll-skip'] = result(
          skips.length,
          skips.slice(0, 5).map((j) => `${j.node} jumped from offset ${j.from} to ${j.to} in ${h.where(j.tp)} at ${h.at(j.t)}, skipping ${j.skipped} record(s)`),
        );
      },
    };
  },
};

/** How many of the final log's records strictly between `lo` and `hi` hold an uncommitted value. */
function uncommittedBetween(offsets: readonly number[], values: Int32Array, lo: number, hi: number, uncommitted: (v: number) => boolean): number {
  let n = 0;
  for (let i = firstAbove(offsets, lo); i < offsets.length && offsets[i]! < hi; i++) {
    const v = values[i]!;
    if (v >= 0 && uncommitted(v)) n++;
  }
  return n;
}
