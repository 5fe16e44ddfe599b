/**
 * The sparse offset index of a segment: (last offset of a batch -> position of that batch), one entry per
 * index.interval.bytes appended. Kept in memory and rebuilt when a segment is opened (Kafka rebuilds it on
 * unclean recovery too). A position here is the batch's ordinal in the segment file (one disk chunk per
 * batch), not a byte offset. [src: storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java]
 */
export class OffsetIndex {
  private readonly offsets: number[] = [];
  private readonly positions: number[] = [];

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {}

  get entries(): number {
    return this.offsets.length;
  }

  /** 8 bytes per entry (relative offset, position). */
  get sizeInBytes(): number {
    return this.offsets.length * 8;
  }

  get isFull(): boolean {
    return this.offsets.length >= this.maxEntries;
  }

  get lastOffset(): number {
    return this.offsets.length === 0 ? this.baseOffset : this.offsets[this.offsets.length - 1]!;
  }

  /** [src: OffsetIndex.java `append`] entries must grow. */
  append(offset: number, position: number): void {
    if (this.isFull) throw new RangeError(`offset index of segment ${this.baseOffset} is full`);
    if (this.offsets.length > 0 && offset <= this.lastOffset) {
      throw new RangeError(`offset index entry ${offset} is not larger than the last entry ${this.lastOffset}`);
    }
    this.offsets.push(offset);
    this.positions.push(position);
  }

  /** Position of the largest indexed offset <= target, or 0. [src: OffsetIndex.java `lookup`] */
  lookup(targetOffset: number): number {
    const offsets = this.offsets;
    let lo = 0;
    let hi = offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (offsets[mid]! <= targetOffset) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.positions[lo - 1]!;
  }

  /** Removes entries with offset >= `offset`. [src: OffsetIndex.java `truncateTo`] */
  truncateTo(offset: number): void {
    let n = this.offsets.length;
    while (n > 0 && this.offsets[n - 1]! >= offset) n--;
    this.offsets.length = n;
    this.positions.length = n;
  }
}
