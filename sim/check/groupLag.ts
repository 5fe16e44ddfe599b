import type { Handlers } from '../core/trace';
import type { History } from './history/history';

/**
 * Lag per group over time: high watermark minus committed offset, summed over the partitions the group has
 * committed, evaluated at each of its commits and at each advance of those partitions' high watermark (the
 * leader's; followers report theirs too, and those are skipped), so a lag that builds up while nobody commits
 * (a member down, a stuck partition) is seen as it builds, not only at the next commit.
 */
export class GroupLag {
  /** Group -> partition -> committed offset. */
  readonly commits = new Map<string, Map<number, number>>();
  /** Group -> the largest lag seen. */
  readonly max = new Map<string, number>();
  /**
   * By partition (tp id): the leader's latest high watermark, and the groups that committed it with their
   * committed offsets there: arrays, since every leader's high watermark advance (a few per batch) reads them.
   */
  private readonly hwOf: (number | undefined)[] = [];
  private readonly readersOf: (Reader[] | undefined)[] = [];
  private readonly byGroup = new Map<string, Reader>();

  constructor(private readonly h: History) {}

  /** The leader's latest high watermark of the partition, if one was seen. */
  hw(tp: number): number | undefined {
    return this.hwOf[tp];
  }

  private bump(r: Reader, delta: number): void {
    const v = (r.sum += delta);
    if (v > (this.max.get(r.group) ?? 0)) this.max.set(r.group, v);
  }

  readonly handlers: Handlers = {
    'replica.hw': (e) => {
      if (e.role === 'follower') return;
      const tp = this.h.tps.id(e.topic, e.partition);
      const before = this.hwOf[tp] ?? 0;
      const after = e.hw;
      this.hwOf[tp] = after;
      const readers = this.readersOf[tp];
      if (readers === undefined) return;
      for (let i = 0; i < readers.length; i++) {
        const r = readers[i]!;
        const c = r.committed[tp]!;
        this.bump(r, Math.max(0, after - c) - Math.max(0, before - c));
      }
    },
    'consumer.commit': (e) => {
      if (!e.ok) return;
      const g = e.group;
      let m = this.commits.get(g);
      if (!m) this.commits.set(g, (m = new Map()));
      let r = this.byGroup.get(g);
      if (!r) this.byGroup.set(g, (r = { group: g, sum: 0, committed: [] }));
      for (const o of e.offsets) {
        const tp = this.h.tps.id(o.topic, o.partition);
        const hw = this.hwOf[tp] ?? 0;
        const prev = m.get(tp);
        if (prev === undefined) (this.readersOf[tp] ??= []).push(r);
        m.set(tp, o.offset);
        r.committed[tp] = o.offset;
        this.bump(r, Math.max(0, hw - o.offset) - (prev === undefined ? 0 : Math.max(0, hw - prev)));
      }
    },
  };

  /** The group's lag now, against `hwOf` (the final high watermarks at the end of a run). */
  lagOf(g: string, hwOf: (tp: number) => number): number {
    let sum = 0;
    for (const [tp, c] of this.commits.get(g) ?? []) sum += Math.max(0, hwOf(tp) - c);
    return sum;
  }
}

/** A group that committed offsets: its lag summed over its partitions now, and its committed offset by tp id. */
interface Reader {
  readonly group: string;
  sum: number;
  readonly committed: number[];
}
