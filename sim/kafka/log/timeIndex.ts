/**
 * The sparse time index of a segment: (max timestamp so far -> offset), appended alongside offset index
 * entries when the timestamp grew. Used by ListOffsets by timestamp. In memory, rebuilt on open.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java]
 */
export class TimeIndex {
  private readonly timestamps: number[] = [];
  private readonly offsets: number[] = [];

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {}

  get entries(): number {
    return this.timestamps.length;
  }

  /** 12 bytes per entry (timestamp, relative offset). */
  get sizeInBytes(): number {
    return this.timestamps.length * 12;
  }

  get isFull(): boolean {
    return this.timestamps.length >= this.maxEntries;
  }

  /** Appends only when the timestamp is larger than the last entry's. [src: TimeIndex.java `maybeAppend`] */
  maybeAppend(timestamp: number, offset: number): void {
    if (this.isFull) return;
    const n = this.timestamps.length;
    if (n > 0 && timestamp <= this.timestamps[n - 1]!) return;
    this.timestamps.push(timestamp);
    this.offsets.push(offset);
  }

  /** Offset of the largest indexed timestamp <= target, or the base offset. [src: TimeIndex.java `lookup`] */
  lookup(targetTimestamp: number): number {
    const ts = this.timestamps;
    let lo = 0;
    let hi = ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid]! <= targetTimestamp) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? this.baseOffset : this.offsets[lo - 1]!;
  }

  /** Removes entries with offset >= `offset`. [src: TimeIndex.java `truncateTo`] */
  truncateTo(offset: number): void {
    let n = this.offsets.length;
    while (n > 0 && this.offsets[n - 1]! >= offset) n--;
    this.timestamps.length = n;
    this.offsets.length = n;
  }
}
