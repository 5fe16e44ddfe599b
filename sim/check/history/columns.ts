/**
 * Typed columns keyed by dense ids or offsets: the checkers keep one number per record per fact in them instead
 * of an object per record. Each column is a list of fixed-size chunks allocated on first write, so growing
 * copies nothing, unused ranges cost nothing (an offset of 10^9 allocates one chunk), and a run holds only
 * the chunks it touched (value ids come in blocks of the same size, values.ts).
 */

const BITS = 12;
const SIZE = 1 << BITS;
const MASK = SIZE - 1;

/**
 * Whole numbers (offsets, times in microseconds, epochs): Int32 chunks, each turning into Float64 the first time
 * a value does not fit (a time past 35 simulated minutes, an offset past 2^31), so it stays exact.
 */
export class IntColumn {
  private readonly chunks: (Int32Array | Float64Array | undefined)[] = [];
  /**
   * The chunk last read or written and its index: a column is read in runs of nearby ids, and between the
   * checkers' events the simulator evicts it from the caches, so each object fewer on the way to a number is a
   * cache miss fewer.
   */
  private lastK = -1;
  private last: Int32Array | Float64Array | undefined = undefined;

  constructor(private readonly fill = -1) {}

  get(i: number): number {
    const k = i >>> BITS;
    if (k === this.lastK) return this.last![i & MASK]!;
    const c = this.chunks[k];
    if (c === undefined) return this.fill;
    this.lastK = k;
    this.last = c;
    return c[i & MASK]!;
  }

  set(i: number, v: number): void {
    const k = i >>> BITS;
    let c = k === this.lastK ? this.last : this.chunks[k];
    if (c === undefined) {
      c = new Int32Array(SIZE);
      if (this.fill !== 0) c.fill(this.fill);
      this.chunks[k] = c;
    }
    if ((v | 0) !== v && c instanceof Int32Array) this.chunks[k] = c = Float64Array.from(c);
    this.lastK = k;
    this.last = c;
    c[i & MASK] = v;
  }

  /** Entries [0, n) into `out`, a chunk at a time (the fill where no chunk was made). */
  copyTo(n: number, out: Float64Array): void {
    for (let from = 0; from < n; from += SIZE) {
      const length = Math.min(SIZE, n - from);
      const c = this.chunks[from >>> BITS];
      if (c === undefined) out.fill(this.fill, from, from + length);
      else out.set(length === SIZE ? c : c.subarray(0, length), from);
    }
  }
}

/**
 * Rows of a few whole numbers per id (a send's partition, key, times, offset): the facts of one id side by side
 * in one chunk, so a fold touching several of them reaches one place in memory (one cache line) instead of one
 * chunk per fact. Int32 chunks of 4,096 rows turning into Float64 as IntColumn's do; each word has its own fill.
 */
export class RowColumn {
  private readonly chunks: (Int32Array | Float64Array | undefined)[] = [];
  /** A fresh chunk: every row at the fills. */
  private readonly blank: Int32Array;
  /** The chunk last read or written and its index (as IntColumn's). */
  private lastK = -1;
  private last: Int32Array | Float64Array | undefined = undefined;

  constructor(
    private readonly width: number,
    private readonly fills: readonly number[],
  ) {
    this.blank = new Int32Array(SIZE * width);
    for (let i = 0; i < this.blank.length; i++) this.blank[i] = fills[i % width]!;
  }

  get(i: number, word: number): number {
    const k = i >>> BITS;
    if (k === this.lastK) return this.last![(i & MASK) * this.width + word]!;
    const c = this.chunks[k];
    if (c === undefined) return this.fills[word]!;
    this.lastK = k;
    this.last = c;
    return c[(i & MASK) * this.width + word]!;
  }

  set(i: number, word: number, v: number): void {
    const k = i >>> BITS;
    let c = k === this.lastK ? this.last : this.chunks[k];
    if (c === undefined) this.chunks[k] = c = this.blank.slice();
    if ((v | 0) !== v && c instanceof Int32Array) this.chunks[k] = c = Float64Array.from(c);
    this.lastK = k;
    this.last = c;
    c[(i & MASK) * this.width + word] = v;
  }
}

/** The first of the first `count` entries of an ascending column that is at or after `t` (binary search). */
export function firstAtOrAfter(column: IntColumn, count: number, t: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (column.get(mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Small whole numbers (flags, codes, small ids): byte or 16-bit chunks, 0 when never set. */
export class SmallColumn {
  private readonly chunks: (Uint8Array | Uint16Array | undefined)[] = [];
  /** The chunk last read or written and its index (as IntColumn's). */
  private lastK = -1;
  private last: Uint8Array | Uint16Array | undefined = undefined;

  constructor(private readonly bits: 8 | 16) {}

  /** The largest value it holds. */
  get max(): number {
    return this.bits === 8 ? 0xff : 0xffff;
  }

  get(i: number): number {
    const k = i >>> BITS;
    if (k === this.lastK) return this.last![i & MASK]!;
    const c = this.chunks[k];
    if (c === undefined) return 0;
    this.lastK = k;
    this.last = c;
    return c[i & MASK]!;
  }

  set(i: number, v: number): void {
    const k = i >>> BITS;
    let c = k === this.lastK ? this.last : this.chunks[k];
    if (c === undefined) this.chunks[k] = c = this.bits === 8 ? new Uint8Array(SIZE) : new Uint16Array(SIZE);
    this.lastK = k;
    this.last = c;
    c[i & MASK] = v;
  }
}

/** A set of whole numbers >= 0 (the offsets a group read, the values it saw), as bitmap chunks. */
export class BitSet {
  private readonly chunks: (Uint32Array | undefined)[] = [];

  has(i: number): boolean {
    const c = this.chunks[i >>> BITS];
    return c !== undefined && (c[(i & MASK) >>> 5]! & (1 << (i & 31))) !== 0;
  }

  /** Adds `i`; true when it was not there yet. */
  add(i: number): boolean {
    const k = i >>> BITS;
    let c = this.chunks[k];
    if (c === undefined) this.chunks[k] = c = new Uint32Array(SIZE >>> 5);
    const w = (i & MASK) >>> 5;
    const bit = 1 << (i & 31);
    if ((c[w]! & bit) !== 0) return false;
    c[w]! |= bit;
    return true;
  }

  delete(i: number): void {
    const c = this.chunks[i >>> BITS];
    if (c !== undefined) c[(i & MASK) >>> 5]! &= ~(1 << (i & 31));
  }

  /** Every member, ascending. */
  forEach(f: (i: number) => void): void {
    this.chunks.forEach((c, k) => {
      if (c === undefined) return;
      for (let w = 0; w < c.length; w++) {
        let x = c[w]!;
        while (x !== 0) {
          const low = x & -x;
          f((k << BITS) + w * 32 + 31 - Math.clz32(low));
          x ^= low;
        }
      }
    });
  }
}

/**
 * Whole numbers appended one by one (latencies, times in microseconds): one Int32Array that doubles when full,
 * turning into a Float64Array the first time a number does not fit (as IntColumn's chunks do), so it stays exact.
 */
export class NumberList {
  private data: Int32Array | Float64Array = new Int32Array(1024);
  length = 0;

  push(x: number): void {
    const widen = (x | 0) !== x && this.data instanceof Int32Array;
    if (this.length === this.data.length || widen) this.data = this.grown(this.length === this.data.length ? this.data.length * 2 : this.data.length, widen);
    this.data[this.length++] = x;
  }

  /** Pushes `src[0, n)` in order (one capacity check and one type check for all of them). */
  pushAll(src: Float64Array, n: number): void {
    let wide = this.data instanceof Float64Array;
    if (!wide) {
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        if ((x | 0) !== x) {
          wide = true;
          break;
        }
      }
    }
    let size = this.data.length;
    while (size < this.length + n) size *= 2;
    if (size !== this.data.length || (wide && this.data instanceof Int32Array)) this.data = this.grown(size, wide);
    const data = this.data;
    const at = this.length;
    for (let i = 0; i < n; i++) data[at + i] = src[i]!;
    this.length = at + n;
  }

  private grown(size: number, wide: boolean): Int32Array | Float64Array {
    const next = wide || this.data instanceof Float64Array ? new Float64Array(size) : new Int32Array(size);
    next.set(this.data.subarray(0, this.length));
    return next;
  }

  /** Drops the first `k` numbers. */
  dropFirst(k: number): void {
    this.data.copyWithin(0, k, this.length);
    this.length -= k;
  }

  /** The last number pushed (call only when not empty). */
  last(): number {
    return this.data[this.length - 1]!;
  }

  /** Adds `x` to the last number pushed (call only when not empty). */
  addToLast(x: number): void {
    const y = this.data[this.length - 1]! + x;
    if ((y | 0) !== y && this.data instanceof Int32Array) this.data = this.grown(this.data.length, true);
    this.data[this.length - 1] = y;
  }

  /** The numbers so far (a view: it changes with the list, and sorting it sorts the list). */
  view(): Int32Array | Float64Array {
    return this.data.subarray(0, this.length);
  }
}
