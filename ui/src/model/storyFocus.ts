import type { TraceModel } from './traceModel';
import type { BatchNode } from './replicaLog';

/**
 * Where the partition view looks when it follows the story: the moments that change what a partition's offsets
 * mean (a truncation, an election, a power loss, a caption about one of them), and, between them, any offsets at
 * which two replicas hold different records. The view frames those offsets instead of the log's tail.
 */
export type StoryMoment =
  /** A replica cut its log back from `from` to `to`: offsets to..from-1 were removed. */
  | { readonly kind: 'truncate'; readonly i: number; readonly t: number; readonly broker: number; readonly lo: number; readonly hi: number }
  /** A new leader: the offsets the others hold beyond its log end are the ones at stake. */
  | { readonly kind: 'election'; readonly i: number; readonly t: number; readonly broker: number }
  /** A broker lost power: its page-cache-only offsets are gone. */
  | { readonly kind: 'power'; readonly i: number; readonly t: number; readonly broker: number };

/** How long (scenario time) a moment holds the view before the tail takes over again. */
export const MOMENT_HOLD_US = 20_000_000;

/** The story moments of one partition ("orders-0"), in trace order. */
export function storyMoments(model: TraceModel, key: string): StoryMoment[] {
  const out: StoryMoment[] = [];
  const info = model.partitions.find((p) => p.key === key);
  const replicas = new Set(info?.replicas ?? []);
  const events = model.events;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]! as unknown as Record<string, unknown> & { kind: string; t: number; node: string };
    const k = e.kind;
    if (k === 'replica.truncate' || k === 'controller.election') {
      if (`${String(e['topic'])}-${String(e['partition'])}` !== key) continue;
      if (k === 'replica.truncate') {
        const from = e['from'] as number;
        const to = e['to'] as number;
        if (from > to) out.push({ kind: 'truncate', i, t: e.t, broker: e['broker'] as number, lo: to, hi: from - 1 });
      } else if ((e['leader'] as number) >= 0) out.push({ kind: 'election', i, t: e.t, broker: e['leader'] as number });
    } else if (k === 'host.power-off') {
      const m = /^broker-(\d+)$/.exec(e.node);
      if (m && replicas.has(Number(m[1]))) out.push({ kind: 'power', i, t: e.t, broker: Number(m[1]) });
    }
  }
  return out;
}

/** The latest moment at or before event `i` that still holds the view at time `now`, or null. */
export function currentMoment(moments: readonly StoryMoment[], i: number, now: number): StoryMoment | null {
  let lo = 0;
  let hi = moments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (moments[mid]!.i <= i) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const m = found >= 0 ? moments[found]! : null;
  return m && now - m.t <= MOMENT_HOLD_US ? m : null;
}

/** One replica's log as the divergence check reads it. */
export interface LogView {
  readonly batches: readonly BatchNode[];
  readonly logStart: number;
  readonly leo: number;
}

/**
 * The offsets at which two replicas both hold a record but of different leader epochs (the replicas disagree: a
 * divergence that leader epochs exist to repair), as one range from the first to the last such offset; null when
 * every pair agrees where both have records.
 */
export function divergence(logs: readonly LogView[]): { lo: number; hi: number } | null {
  let lo = Infinity;
  let hi = -1;
  for (let a = 0; a < logs.length; a++) {
    for (let b = a + 1; b < logs.length; b++) {
      const x = logs[a]!;
      const y = logs[b]!;
      const from = Math.max(x.logStart, y.logStart);
      const to = Math.min(x.leo, y.leo);
      let i = 0;
      let j = 0;
      // Walk both batch lists by offset ranges.
      while (i < x.batches.length && j < y.batches.length) {
        const bx = x.batches[i]!;
        const by = y.batches[j]!;
        const s = Math.max(bx.base, by.base, from);
        const e = Math.min(bx.last, by.last, to - 1);
        if (s <= e && bx.epoch !== by.epoch) {
          lo = Math.min(lo, s);
          hi = Math.max(hi, e);
        }
        if (bx.last < by.last) i++;
        else j++;
      }
    }
  }
  return hi >= 0 ? { lo, hi } : null;
}
