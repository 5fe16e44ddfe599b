import { widened } from '../../core/typedArrays';
import { grownRoom } from './timeIndex';

/**
 * The sparse offset index of a segment: (last offset of a batch -> position of that batch), one entry per
 * index.interval.bytes appended. Kept in memory and rebuilt when a segment is opened (Kafka rebuilds it on
 * unclean recovery too). A position here is the batch's ordinal in the segment file (one disk chunk per
 * batch), not a byte offset. [src: storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java]
 */
export class OffsetIndex {
  /** Entry i: its offset relative to the segment's base offset (4 bytes, as Kafka's file has it) and its position. Typed: the collector never walks them. */
  private relativeOffsets: Int32Array = NO_ENTRIES;
  private positions: Int32Array = NO_ENTRIES;
  private n = 0;

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {}

  get entries(): number {
    return this.n;
  }

  /** 8 bytes per entry (relative offset, position). */
  get sizeInBytes(): number {
    return this.n * 8;
  }

  get isFull(): boolean {
    return this.n >= this.maxEntries;
  }

  get lastOffset(): number {
    return this.n === 0 ? this.baseOffset : this.baseOffset + this.relativeOffsets[this.n - 1]!;
  }

  /** [src: OffsetIndex.java `append`] entries must grow. */
  append(offset: number, position: number): void {
    if (this.isFull) throw new RangeError(`offset index of segment ${this.baseOffset} is full`);
    if (this.n > 0 && offset <= this.lastOffset) {
      throw new RangeError(`offset index entry ${offset} is not larger than the last entry ${this.lastOffset}`);
    }
    if (this.n === this.positions.length) {
      const room = grownRoom(this.n, this.maxEntries);
      this.relativeOffsets = widened(this.relativeOffsets, room);
      this.positions = widened(this.positions, room);
    }
    this.relativeOffsets[this.n] = relativeOffset(this.baseOffset, offset);
    this.positions[this.n] = position;
    this.n++;
  }

  /** Position of the largest indexed offset <= target, or 0. [src: OffsetIndex.java `lookup`] */
  lookup(targetOffset: number): number {
    const rel = targetOffset - this.baseOffset;
    const offsets = this.relativeOffsets;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (offsets[mid]! <= rel) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.positions[lo - 1]!;
  }

  /** Removes entries with offset >= `offset`. [src: OffsetIndex.java `truncateTo`] */
  truncateTo(offset: number): void {
    const rel = offset - this.baseOffset;
    let n = this.n;
    while (n > 0 && this.relativeOffsets[n - 1]! >= rel) n--;
    this.n = n;
  }
}

const NO_ENTRIES = new Int32Array(0);

/**
 * An offset as an index entry holds it: relative to the segment's base, in 4 bytes; a segment rolls before an
 * offset would not fit. [src: AbstractIndex.java `relativeOffset`, `toRelative` (IndexOffsetOverflowException)]
 */
export function relativeOffset(baseOffset: number, offset: number): number {
  const rel = offset - baseOffset;
  if (rel < 0 || rel > 0x7fffffff) throw new RangeError(`offset ${offset} does not fit in the index of segment ${baseOffset} (relative offset ${rel})`);
  return rel;
}
