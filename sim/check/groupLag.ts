import type { Handlers } from '../core/trace';
import type { History } from './history/history';

/**
 * Lag per group over time: high watermark minus committed offset, summed over the partitions the group has
 * committed, evaluated at each of its commits and at each advance of those partitions' high watermark (the
 * leader's; followers report theirs too, and those are skipped), so a lag that builds up while nobody commits
 * (a member down, a stuck partition) is seen as it builds, not only at the next commit.
 */
export class GroupLag {
  /** Partition -> the leader's latest high watermark. */
  readonly hw = new Map<number, number>();
  /** Group -> partition -> committed offset. */
  readonly commits = new Map<string, Map<number, number>>();
  /** Group -> the largest lag seen. */
  readonly max = new Map<string, number>();
  /** Partition -> groups that committed it. */
  private readonly readers = new Map<number, string[]>();
  private readonly sum = new Map<string, number>();

  constructor(private readonly h: History) {}

  private bump(g: string, delta: number): void {
    const v = (this.sum.get(g) ?? 0) + delta;
    this.sum.set(g, v);
    if (v > (this.max.get(g) ?? 0)) this.max.set(g, v);
  }

  readonly handlers: Handlers = {
    'replica.hw': (e) => {
      if (e.role === 'follower') return;
      const tp = this.h.tps.id(e.topic, e.partition);
      const before = this.hw.get(tp) ?? 0;
      const after = e.hw;
      this.hw.set(tp, after);
      const readers = this.readers.get(tp);
      if (readers === undefined) return;
      for (const g of readers) {
        const c = this.commits.get(g)!.get(tp)!;
        this.bump(g, Math.max(0, after - c) - Math.max(0, before - c));
      }
    },
    'consumer.commit': (e) => {
      if (!e.ok) return;
      const g = e.group;
      let m = this.commits.get(g);
      if (!m) this.commits.set(g, (m = new Map()));
      for (const o of e.offsets) {
        const tp = this.h.tps.id(o.topic, o.partition);
        const hw = this.hw.get(tp) ?? 0;
        const prev = m.get(tp);
        if (prev === undefined) {
          let list = this.readers.get(tp);
          if (!list) this.readers.set(tp, (list = []));
          list.push(g);
        }
        m.set(tp, o.offset);
        this.bump(g, Math.max(0, hw - o.offset) - (prev === undefined ? 0 : Math.max(0, hw - prev)));
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
