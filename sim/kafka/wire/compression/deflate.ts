import { DIST_BASE, DIST_EXTRA, LENGTH_BASE, LENGTH_EXTRA } from './inflate';

/**
 * DEFLATE compression [RFC 1951]: greedy LZ77 matching over a 32 KiB window (a hash of the next three bytes finds
 * the last place they occurred) coded in one fixed-Huffman block. Simple rather than tight: its output is valid
 * for every inflater and, being a pure function of the input, the same on every run (no timestamps, no levels).
 */

const WINDOW = 32 * 1024;
const MIN_MATCH = 3;
const MAX_MATCH = 258;
const HASH_BITS = 15;

class BitWriter {
  buf: Uint8Array;
  len = 0;
  private bitBuf = 0;
  private bitCount = 0;
  constructor(capacity: number) {
    this.buf = new Uint8Array(Math.max(64, capacity));
  }
  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  /** Writes the low `n` bits of `v`, least significant first. */
  bits(v: number, n: number): void {
    this.bitBuf |= v << this.bitCount;
    this.bitCount += n;
    while (this.bitCount >= 8) {
      this.ensure(1);
      this.buf[this.len++] = this.bitBuf & 0xff;
      this.bitBuf >>>= 8;
      this.bitCount -= 8;
    }
  }
  /** A Huffman code goes out most significant bit first. */
  code(c: number, n: number): void {
    let r = 0;
    for (let i = 0; i < n; i++) r |= ((c >> i) & 1) << (n - 1 - i);
    this.bits(r, n);
  }
  flush(): Uint8Array {
    if (this.bitCount > 0) {
      this.ensure(1);
      this.buf[this.len++] = this.bitBuf & 0xff;
      this.bitBuf = 0;
      this.bitCount = 0;
    }
    return this.buf.slice(0, this.len);
  }
}

/** The fixed literal/length code of RFC 1951 §3.2.6. */
function literal(w: BitWriter, sym: number): void {
  if (sym < 144) w.code(0x30 + sym, 8);
  else if (sym < 256) w.code(0x190 + sym - 144, 9);
  else if (sym < 280) w.code(sym - 256, 7);
  else w.code(0xc0 + sym - 280, 8);
}

function lengthSymbol(length: number): number {
  let i = LENGTH_BASE.length - 1;
  while (LENGTH_BASE[i]! > length) i--;
  return i;
}

function distanceSymbol(dist: number): number {
  let i = DIST_BASE.length - 1;
  while (DIST_BASE[i]! > dist) i--;
  return i;
}

/** Raw DEFLATE of `input`. */
export function deflateRaw(input: Uint8Array): Uint8Array {
  const w = new BitWriter(input.length / 2 + 16);
  w.bits(1, 1); // the last block
  w.bits(1, 2); // fixed Huffman codes
  const head = new Int32Array(1 << HASH_BITS).fill(-1);
  const hash = (i: number) => ((input[i]! << 10) ^ (input[i + 1]! << 5) ^ input[i + 2]!) & ((1 << HASH_BITS) - 1);
  let i = 0;
  while (i < input.length) {
    let matchLen = 0;
    let matchDist = 0;
    if (i + MIN_MATCH <= input.length) {
      const h = hash(i);
      const cand = head[h]!;
      head[h] = i;
      if (cand >= 0 && i - cand <= WINDOW) {
        const max = Math.min(MAX_MATCH, input.length - i);
        let n = 0;
        while (n < max && input[cand + n] === input[i + n]) n++;
        if (n >= MIN_MATCH) {
          matchLen = n;
          matchDist = i - cand;
        }
      }
    }
    if (matchLen === 0) {
      literal(w, input[i]!);
      i++;
      continue;
    }
    const ls = lengthSymbol(matchLen);
    literal(w, 257 + ls);
    w.bits(matchLen - LENGTH_BASE[ls]!, LENGTH_EXTRA[ls]!);
    const ds = distanceSymbol(matchDist);
    w.code(ds, 5);
    w.bits(matchDist - DIST_BASE[ds]!, DIST_EXTRA[ds]!);
    // Index the positions the match covered, so later data can refer into it.
    for (let j = i + 1; j < i + matchLen && j + MIN_MATCH <= input.length; j++) head[hash(j)] = j;
    i += matchLen;
  }
  literal(w, 256);
  return w.flush();
}
