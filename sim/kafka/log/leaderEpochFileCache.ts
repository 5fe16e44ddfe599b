import type { Disk } from '../../world/disk';
import { CheckpointFile, checkpointBytes } from './checkpointFile';
import { LEADER_EPOCH_CHECKPOINT_FILENAME } from './logFileNames';
import type { TaskScheduler } from './taskScheduler';

/**
 * The leader-epoch cache: which offset each leader epoch started at, persisted in `leader-epoch-checkpoint`.
 * The rules are pure functions over a sorted entry list; the class keeps the list and the file.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/epoch/LeaderEpochFileCache.java; KIP-101, KIP-279]
 */

/** [src: clients/.../requests/OffsetsForLeaderEpochResponse.java] */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

export interface EpochEntry {
  readonly epoch: number;
  readonly startOffset: number;
}

/** What OffsetsForLeaderEpoch answers: the largest known epoch <= the requested one, and where it ended. */
export interface EpochEndOffset {
  readonly epoch: number;
  readonly endOffset: number;
}

// ---- the rules (entries sorted by epoch; start offsets strictly increasing too) ----

/** Index of the last entry with epoch <= `epoch`, or -1. */
function floorIndex(entries: readonly EpochEntry[], epoch: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.epoch <= epoch) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** [src: LeaderEpochFileCache.java `endOffsetFor`] */
export function endOffsetFor(entries: readonly EpochEntry[], requestedEpoch: number, logEndOffset: number): EpochEndOffset {
  if (requestedEpoch === UNDEFINED_EPOCH) return { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
  const latest = entries[entries.length - 1];
  // The latest epoch is still being written to: it ends at the log end offset.
  if (latest !== undefined && latest.epoch === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
  const floor = floorIndex(entries, requestedEpoch);
  const higher = entries[floor + 1];
  if (higher === undefined) return { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
  // Older than anything we know: the data is gone; answer with where the first known later epoch starts.
  if (floor < 0) return { epoch: requestedEpoch, endOffset: higher.startOffset };
  return { epoch: entries[floor]!.epoch, endOffset: higher.startOffset };
}

/**
 * The entries after assigning (epoch, startOffset), or null when nothing changes. A new entry first removes
 * tail entries with epoch >= it or start offset >= its own. [src: LeaderEpochFileCache.java `assign`, `isUpdateNeeded`, `maybeTruncateNonMonotonicEntries`]
 */
export function assignEpoch(entries: readonly EpochEntry[], epoch: number, startOffset: number): EpochEntry[] | null {
  if (epoch < 0 || startOffset < 0) throw new RangeError(`invalid partition leader epoch entry (epoch ${epoch}, start offset ${startOffset})`);
  const latest = entries[entries.length - 1];
  if (latest !== undefined && latest.epoch === epoch && startOffset >= latest.startOffset) return null;
  let keep = entries.length;
  while (keep > 0) {
    const e = entries[keep - 1]!;
    if (e.epoch >= epoch || e.startOffset >= startOffset) keep--;
    else break;
  }
  const out = entries.slice(0, keep);
  out.push({ epoch, startOffset });
  return out;
}

/** Removes entries starting at or after `endOffset`. [src: LeaderEpochFileCache.java `truncateFromEnd`] */
export function truncateEntriesFromEnd(entries: readonly EpochEntry[], endOffset: number): EpochEntry[] | null {
  const latest = entries[entries.length - 1];
  if (endOffset < 0 || latest === undefined || latest.startOffset < endOffset) return null;
  let keep = entries.length;
  while (keep > 0 && entries[keep - 1]!.startOffset >= endOffset) keep--;
  return entries.slice(0, keep);
}

/**
 * Drops entries starting at or before `startOffset`, keeping the last of them moved up to `startOffset`
 * (so truncateFromStart(6) keeps an entry at 6). [src: LeaderEpochFileCache.java `truncateFromStart`]
 */
export function truncateEntriesFromStart(entries: readonly EpochEntry[], startOffset: number): EpochEntry[] | null {
  let removed = 0;
  while (removed < entries.length && entries[removed]!.startOffset <= startOffset) removed++;
  if (removed === 0) return null;
  const last = entries[removed - 1]!;
  return [{ epoch: last.epoch, startOffset }, ...entries.slice(removed)];
}

/** The epoch the record at `offset` was written in, if known. [src: LeaderEpochFileCache.java `epochForOffset`] */
export function epochForOffsetIn(entries: readonly EpochEntry[], offset: number): number | undefined {
  let previous: number | undefined;
  for (const e of entries) {
    if (e.startOffset === offset) return e.epoch;
    if (e.startOffset > offset) return previous;
    previous = e.epoch;
  }
  return previous;
}

// ---- the cache ----

export class LeaderEpochFileCache {
  private entries: readonly EpochEntry[];
  /** The last entry's epoch, kept apart: every fetch asks for it. */
  private latest: number | undefined;

  constructor(
    private readonly checkpoint: CheckpointFile<readonly EpochEntry[]> | null,
    initial: readonly EpochEntry[] = [],
  ) {
    let e: EpochEntry[] = [];
    for (const x of initial) e = assignEpoch(e, x.epoch, x.startOffset) ?? e;
    this.entries = e;
    this.latest = e[e.length - 1]?.epoch;
  }

  /** Reads `<dir>/leader-epoch-checkpoint` (whatever survived) and keeps writing it there. */
  static load(disk: Disk, dir: string, tasks: TaskScheduler): LeaderEpochFileCache {
    const file = new CheckpointFile<readonly EpochEntry[]>(disk, `${dir}/${LEADER_EPOCH_CHECKPOINT_FILENAME}`, tasks);
    return new LeaderEpochFileCache(file, file.read() ?? []);
  }

  /** Records that `epoch` starts at `startOffset`; true if the cache changed. */
  assign(epoch: number, startOffset: number): boolean {
    const next = assignEpoch(this.entries, epoch, startOffset);
    if (next === null) return false;
    this.set(next);
    return true;
  }

  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEndOffset {
    return endOffsetFor(this.entries, requestedEpoch, logEndOffset);
  }

  /** Removes entries at or after `endOffset` (log truncation). */
  truncateFromEnd(endOffset: number): boolean {
    const next = truncateEntriesFromEnd(this.entries, endOffset);
    if (next === null) return false;
    this.set(next);
    return true;
  }

  /** Drops entries below the new log start offset. */
  truncateFromStart(startOffset: number): boolean {
    const next = truncateEntriesFromStart(this.entries, startOffset);
    if (next === null) return false;
    this.set(next);
    return true;
  }

  clear(): void {
    this.set([]);
  }

  epochForOffset(offset: number): number | undefined {
    return epochForOffsetIn(this.entries, offset);
  }

  /** The current leader epoch as this replica's log knows it (the latest entry), if any. */
  get latestEpoch(): number | undefined {
    return this.latest;
  }

  get latestEntry(): EpochEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  get earliestEntry(): EpochEntry | undefined {
    return this.entries[0];
  }

  /** The entry for exactly this epoch, if the cache has one. */
  epochEntry(epoch: number): EpochEntry | undefined {
    const i = floorIndex(this.entries, epoch);
    const e = this.entries[i];
    return e !== undefined && e.epoch === epoch ? e : undefined;
  }

  epochEntries(): readonly EpochEntry[] {
    return this.entries;
  }

  private set(next: readonly EpochEntry[]): void {
    this.entries = next;
    this.latest = next[next.length - 1]?.epoch;
    // Kafka fsyncs on assign and flushes truncations in the background; both are a CheckpointFile write here.
    this.checkpoint?.write(next, checkpointBytes(next.length, 16));
  }
}
