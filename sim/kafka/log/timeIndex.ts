import { widened } from '../../core/typedArrays';
import { relativeOffset } from './offsetIndex';

/**
 * The sparse time index of a segment: (max timestamp so far -> offset), appended alongside offset index
 * entries when the timestamp grew. Used by ListOffsets by timestamp. In memory, rebuilt on open.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java]
 */
export class TimeIndex {
  /**
   * Entry i: its timestamp and the offset it maps to, relative to the segment's base offset. Kafka's file holds
   * 8 + 4 bytes; here a timestamp is kept in 4 bytes as its difference from the first entry's (entries only grow,
   * and a segment spans far less than the 24 days an int32 of milliseconds holds), in 8 bytes as itself once one
   * does not fit (`baseTimestamp` NaN then). Typed: the collector never walks them.
   */
  private timestamps: Int32Array | Float64Array = NO_TIMES;
  private baseTimestamp = 0;
  private relativeOffsets: Int32Array = NO_OFFSETS;
  private n = 0;

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {}

  get entries(): number {
    return this.n;
  }

  /** 12 bytes per entry (timestamp, relative offset). */
  get sizeInBytes(): number {
    return this.n * 12;
  }

  get isFull(): boolean {
    return this.n >= this.maxEntries;
  }

  /** Appends only when the timestamp is larger than the last entry's. [src: TimeIndex.java `maybeAppend`] */
  maybeAppend(timestamp: number, offset: number): void {
    if (this.isFull) return;
    const n = this.n;
    if (n === 0) {
      if (this.timestamps instanceof Int32Array) this.baseTimestamp = timestamp;
    } else if (timestamp <= this.timestampAt(n - 1)) return;
    if (n === this.relativeOffsets.length) {
      const room = grownRoom(n, this.maxEntries);
      this.timestamps = widened(this.timestamps, room);
      this.relativeOffsets = widened(this.relativeOffsets, room);
    }
    let t = timestamp - this.baseTimestamp; // NaN once the timestamps are kept whole
    if (t !== (t | 0)) {
      if (this.timestamps instanceof Int32Array) this.keepWhole();
      t = timestamp;
    }
    this.timestamps[n] = t;
    this.relativeOffsets[n] = relativeOffset(this.baseOffset, offset);
    this.n++;
  }

  /** Entry i's timestamp. */
  private timestampAt(i: number): number {
    const t = this.timestamps[i]!;
    return this.timestamps instanceof Int32Array ? this.baseTimestamp + t : t;
  }

  /** From now on timestamps are kept whole, in 8 bytes (one did not fit in 4 as a difference). */
  private keepWhole(): void {
    const whole = new Float64Array(this.timestamps.length);
    for (let i = 0; i < this.n; i++) whole[i] = this.timestampAt(i);
    this.timestamps = whole;
    this.baseTimestamp = NaN;
  }

  /** Offset of the largest indexed timestamp <= target, or the base offset. [src: TimeIndex.java `lookup`] */
  lookup(targetTimestamp: number): number {
    const ts = this.timestamps;
    // Exact: both are integers well inside a double's 53 bits (or the entries are whole and so is the target).
    const target = ts instanceof Int32Array ? targetTimestamp - this.baseTimestamp : targetTimestamp;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid]! <= target) lo = mid + 1;
      else hi = mid;
    }
    return this.baseOffset + (lo === 0 ? 0 : this.relativeOffsets[lo - 1]!);
  }

  /** Removes entries with offset >= `offset`. [src: TimeIndex.java `truncateTo`] */
  truncateTo(offset: number): void {
    const rel = offset - this.baseOffset;
    let n = this.n;
    while (n > 0 && this.relativeOffsets[n - 1]! >= rel) n--;
    this.n = n;
  }
}

const NO_TIMES = new Int32Array(0);

/**
 * Room for an index that is full at `n` entries: half as much again (at least 8), never more than `maxEntries`.
 * Most segments stop growing at some size, so doubling would leave a quarter of the arrays empty on average.
 */
export function grownRoom(n: number, maxEntries: number): number {
  return Math.min(Math.max(8, n + (n >> 1)), Math.max(maxEntries, 1));
}
const NO_OFFSETS = new Int32Array(0);
