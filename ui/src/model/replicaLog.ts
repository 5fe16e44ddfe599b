/**
 * A replica's log as a persistent chain of batches: each node points at the batch before it, so a state
 * snapshot holds one pointer per replica (keyframes stay small however long the log), and a truncation
 * walks back only over the batches it removes.
 */
export interface BatchNode {
  readonly base: number;
  readonly last: number;
  /** The leader epoch the batch was written in (its partitionLeaderEpoch). */
  readonly epoch: number;
  /** When this replica appended it (us). */
  readonly t: number;
  /** A transaction marker (a control batch of one offset). */
  readonly control?: 'COMMIT' | 'ABORT';
  /** A follower's append: what one fetch response brought for this partition (it may hold several record batches). */
  readonly fetched?: true;
  readonly prev: BatchNode | null;
}

export interface RemovedBatch {
  readonly base: number;
  readonly last: number;
  readonly epoch: number;
}

/** Records removed from a replica's log (newest first), so views can show what a truncation took. */
export interface Removal {
  readonly t: number;
  /** The event that removed them. */
  readonly i: number;
  readonly from: number;
  readonly to: number;
  readonly reason: string;
  readonly batches: readonly RemovedBatch[];
  readonly prev: Removal | null;
}

export function appendBatch(tip: BatchNode | null, base: number, last: number, epoch: number, t: number, control?: 'COMMIT' | 'ABORT', fetched = false): BatchNode {
  const node: BatchNode = control ? { base, last, epoch, t, control, prev: tip } : { base, last, epoch, t, prev: tip };
  return fetched ? { ...node, fetched: true } : node;
}

/** Cuts the chain so that it ends below `offset`; returns the new tip and the batches removed (ascending). */
export function truncateChain(tip: BatchNode | null, offset: number): { tip: BatchNode | null; removed: RemovedBatch[] } {
  const removed: RemovedBatch[] = [];
  let n = tip;
  while (n && n.base >= offset) {
    removed.push({ base: n.base, last: n.last, epoch: n.epoch });
    n = n.prev;
  }
  if (n && n.last >= offset) {
    removed.push({ base: offset, last: n.last, epoch: n.epoch });
    n = { ...n, last: offset - 1 };
  }
  removed.reverse();
  return { tip: n, removed };
}

/** The chain as an array in offset order, from `fromOffset` on (batches wholly below it are left out). */
export function chainToArray(tip: BatchNode | null, fromOffset = 0): BatchNode[] {
  const out: BatchNode[] = [];
  for (let n = tip; n && n.last >= fromOffset; n = n.prev) out.push(n);
  out.reverse();
  return out;
}

/** Index of the batch holding `offset` in an ascending batch array, or -1. */
export function findBatch(batches: readonly { base: number; last: number }[], offset: number): number {
  let lo = 0;
  let hi = batches.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = batches[mid]!;
    if (offset < b.base) hi = mid - 1;
    else if (offset > b.last) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * The end of the durable prefix of a log at time `now`: what an fsync completed, or what the OS wrote
 * back once a page was dirty for `writebackUs` (an approximation: the kernel flusher's periodic wake-up
 * is ignored). Appends on one replica happen in offset order, so append times rise along the chain and
 * the durable part is a prefix.
 */
export function durableEnd(batches: readonly BatchNode[], logEnd: number, flushedUpTo: number, now: number, writebackUs: number | null): number {
  let wb = -1;
  if (writebackUs !== null) {
    let lo = 0;
    let hi = batches.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (batches[mid]!.t + writebackUs <= now) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    wb = found >= 0 ? batches[found]!.last + 1 : batches.length > 0 ? batches[0]!.base : -1;
  }
  return Math.min(logEnd, Math.max(flushedUpTo, wb));
}
