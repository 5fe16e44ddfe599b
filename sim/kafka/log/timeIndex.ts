import { widened } from '../../core/typedArrays';
import { relativeOffset } from './offsetIndex';

/**
 * The sparse time index of a segment: (max timestamp so far -> offset), appended alongside offset index
 * entries when the timestamp grew. Used by ListOffsets by timestamp. In memory, rebuilt on open.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java]
 */
export class TimeIndex {
  /** Entry i: a timestamp and the offset it maps to, relative to the segment's base (Kafka's 8 + 4 bytes). Typed: the collector never walks them. */
  private timestamps: Float64Array = NO_TIMES;
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
    if (n > 0 && timestamp <= this.timestamps[n - 1]!) return;
    if (n === this.timestamps.length) {
      const room = Math.min(Math.max(8, n * 2), this.maxEntries);
      this.timestamps = widened(this.timestamps, room);
      this.relativeOffsets = widened(this.relativeOffsets, room);
    }
    this.timestamps[n] = timestamp;
    this.relativeOffsets[n] = relativeOffset(this.baseOffset, offset);
    this.n++;
  }

  /** Offset of the largest indexed timestamp <= target, or the base offset. [src: TimeIndex.java `lookup`] */
  lookup(targetTimestamp: number): number {
    const ts = this.timestamps;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid]! <= targetTimestamp) lo = mid + 1;
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

const NO_TIMES = new Float64Array(0);
const NO_OFFSETS = new Int32Array(0);
