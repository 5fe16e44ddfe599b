/**
 * inconsistent-offsets: one offset of a partition seen holding two different values. Every source of "offset
 * o holds v" counts: what consumers read, the offsets producers were told (acks=1 and all), the final logs, and
 * the replicas whose logs still disagree with the leader's at the end. The values of an example are listed in
 * that order.
 */
import type { CheckDefinition } from './check';
import { IntColumn } from './history/columns';
import type { History } from './history/history';
import { NOTHING, TOMBSTONE, type OffsetReads } from './history/reads';
import { Status } from './history/sends';
import { result } from './report';
import { comparePartitionNames } from './describe';

export const inconsistentOffsets: CheckDefinition = {
  id: 'inconsistentOffsets',
  source: 'Jepsen: inconsistent-offsets',
  make: (h) => {
    const seen = new Observed(h);
    let acksObserved = false;
    /** Reads first, then acknowledgements (in send order): done once, when the final logs begin. */
    const observeReadsAndAcks = () => {
      if (acksObserved) return;
      acksObserved = true;
      for (const [tp, table] of h.reads.byPartition) for (const [o, others] of table.others) seen.clash(tp, o, [table.first(o), ...others.map((x) => x.value)]);
      const s = h.sends;
      for (let i = 0, n = s.orderSpan; i < n; i++) {
        const v = s.sentAt(i);
        // A tombstone's offset holds a null value, whatever the trace names the record.
        if (v >= 0 && s.status(v) === Status.Ok && s.offset(v) >= 0 && s.acks(v) !== '0') seen.observe(s.tp(v), s.offset(v), s.tombstone(v) ? TOMBSTONE : v);
      }
    };
    return {
      handlers: {
        'final.partition': () => {
          observeReadsAndAcks();
          const { final, offsets, values } = h.finals.current!;
          for (let i = 0; i < offsets.length; i++) seen.observe(final.tp, offsets[i]!, values[i]!);
        },
      },
      report: (out) => {
        observeReadsAndAcks();
        // Replicas whose logs still disagree with the leader's at the end hold a second value at those offsets.
        for (const f of h.finals.byTp.values()) {
          for (const d of f.diverged) d.offsets.forEach((o, i) => seen.observe(f.tp, o, valueId(h, d.values[i] ?? null)));
        }
        const examples: string[] = [];
        let count = 0;
        for (const tp of [...seen.clashes.keys()].sort((a, b) => comparePartitionNames(h.where(a), h.where(b)))) {
          const byOffset = seen.clashes.get(tp)!;
          count += byOffset.size;
          if (examples.length >= 5) continue;
          for (const o of [...byOffset.keys()].sort((a, b) => a - b)) {
            if (examples.length >= 5) break;
            examples.push(`${h.where(tp)} offset ${o} held ${byOffset.get(o)!.map((v) => (v === TOMBSTONE ? 'null' : h.value(v))).join(' and ')}`);
          }
        }
        out['inconsistent-offsets'] = result(count, examples);
      },
    };
  },
};

function valueId(h: History, v: string | null): number {
  return v === null ? TOMBSTONE : h.values.id(v);
}

/** The first value known at each offset (from reads, else from what was observed since), and the offsets that held more than one. */
class Observed {
  /** Offsets not read by any consumer: the first value observed there, by partition (tp id). */
  private readonly unread: (IntColumn | undefined)[] = [];
  /** Partition -> offset -> the values it held, in the order observed. */
  readonly clashes = new Map<number, Map<number, number[]>>();
  /** The same by tp id, and each partition's reads once it has some: the acknowledgements come in send order, every partition in turn. */
  private readonly clashesOf: (Map<number, number[]> | undefined)[] = [];
  private readonly readsOf: (OffsetReads | undefined)[] = [];

  constructor(private readonly h: History) {}

  observe(tp: number, o: number, v: number): void {
    const clash = this.clashesOf[tp]?.get(o);
    if (clash) {
      if (!clash.includes(v)) clash.push(v);
      return;
    }
    // A partition no consumer had read may be read later (a table once made stays the same one).
    let reads = this.readsOf[tp];
    if (reads === undefined) {
      reads = this.h.reads.byPartition.get(tp);
      if (reads !== undefined) this.readsOf[tp] = reads;
    }
    const read = reads?.first(o) ?? NOTHING;
    if (read !== NOTHING) {
      if (read !== v) this.clash(tp, o, [read, v]);
      return;
    }
    let table = this.unread[tp];
    if (!table) this.unread[tp] = table = new IntColumn(NOTHING);
    const first = table.get(o);
    if (first === NOTHING) table.set(o, v);
    else if (first !== v) this.clash(tp, o, [first, v]);
  }

  clash(tp: number, o: number, values: number[]): void {
    let m = this.clashes.get(tp);
    if (!m) {
      this.clashes.set(tp, (m = new Map()));
      this.clashesOf[tp] = m;
    }
    const existing = m.get(o);
    if (existing) {
      for (const v of values) if (!existing.includes(v)) existing.push(v);
    } else m.set(o, [...new Set(values)]);
  }
}
