/**
 * DEFLATE decompression [RFC 1951], written for the wire codec so that it runs in Node and in the browser alike
 * (no node:zlib in the simulator's import graph). Stored, fixed-Huffman and dynamic-Huffman blocks; canonical
 * Huffman codes decoded by counting, as in the RFC's §3.2.2 construction. Bad input is an InflateError, never a
 * hang: every loop is bounded by the input or by `maxOutput`.
 */

export class InflateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InflateError';
  }
}

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order in which code-length code lengths are sent (RFC 1951 §3.2.7). */
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

export { LENGTH_BASE, LENGTH_EXTRA, DIST_BASE, DIST_EXTRA };

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
interface Huffman {
  readonly counts: Uint16Array;
  readonly symbols: Uint16Array;
}

function huffman(lengths: ArrayLike<number>, n: number): Huffman {
  const counts = new Uint16Array(16);
  for (let i = 0; i < n; i++) counts[lengths[i]!]!++;
  counts[0] = 0;
  let left = 1;
  for (let len = 1; len < 16; len++) {
    left = left * 2 - counts[len]!;
    if (left < 0) throw new InflateError('a Huffman code is over-subscribed');
  }
  const offs = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offs[len + 1] = offs[len]! + counts[len]!;
  const symbols = new Uint16Array(n);
  for (let i = 0; i < n; i++) if (lengths[i] !== 0) symbols[offs[lengths[i]!]!++] = i;
  return { counts, symbols };
}

class BitReader {
  pos: number;
  private bitBuf = 0;
  private bitCount = 0;
  constructor(
    private readonly input: Uint8Array,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }
  bits(n: number): number {
    let v = this.bitBuf;
    while (this.bitCount < n) {
      if (this.pos >= this.end) throw new InflateError('the compressed data ends early');
      v |= this.input[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    this.bitBuf = v >>> n;
    this.bitCount -= n;
    return v & ((1 << n) - 1);
  }
  /** Drops the bits left in the current byte (before a stored block). */
  alignToByte(): void {
    this.bitBuf = 0;
    this.bitCount = 0;
  }
  decode(h: Huffman): number {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= this.bits(1);
      const count = h.counts[len]!;
      if (code - count < first) return h.symbols[index + (code - first)]!;
      index += count;
      first += count;
      first <<= 1;
      code <<= 1;
    }
    throw new InflateError('an invalid Huffman code');
  }
}

let fixedLit: Huffman | undefined;
let fixedDist: Huffman | undefined;

function fixedCodes(): [Huffman, Huffman] {
  if (!fixedLit || !fixedDist) {
    const l = new Uint8Array(288);
    for (let i = 0; i < 144; i++) l[i] = 8;
    for (let i = 144; i < 256; i++) l[i] = 9;
    for (let i = 256; i < 280; i++) l[i] = 7;
    for (let i = 280; i < 288; i++) l[i] = 8;
    fixedLit = huffman(l, 288);
    fixedDist = huffman(new Uint8Array(30).fill(5), 30);
  }
  return [fixedLit, fixedDist];
}

class Output {
  buf: Uint8Array;
  len = 0;
  constructor(
    initial: number,
    private readonly max: number,
  ) {
    this.buf = new Uint8Array(Math.max(64, Math.min(initial, max)));
  }
  private grow(need: number): void {
    if (this.len + need > this.max) throw new InflateError(`the data inflates to more than ${this.max} bytes`);
    if (this.len + need <= this.buf.length) return;
    const next = new Uint8Array(Math.min(this.max, Math.max(this.buf.length * 2, this.len + need)));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  byte(b: number): void {
    this.grow(1);
    this.buf[this.len++] = b;
  }
  bytes(src: Uint8Array): void {
    this.grow(src.length);
    this.buf.set(src, this.len);
    this.len += src.length;
  }
  copy(dist: number, length: number): void {
    if (dist > this.len) throw new InflateError(`a back-reference of ${dist} bytes reaches before the start`);
    this.grow(length);
    for (let i = 0; i < length; i++) {
      this.buf[this.len] = this.buf[this.len - dist]!;
      this.len++;
    }
  }
}

/**
 * Inflates raw DEFLATE data from input[start, end). Returns the output and where the compressed data ended
 * (the gzip trailer follows it).
 */
export function inflateRaw(input: Uint8Array, start = 0, end = input.length, maxOutput = 1 << 30): { out: Uint8Array; end: number } {
  const br = new BitReader(input, start, end);
  const out = new Output((end - start) * 4, maxOutput);
  let last = 0;
  while (!last) {
    last = br.bits(1);
    const type = br.bits(2);
    if (type === 0) {
      br.alignToByte();
      if (br.pos + 4 > end) throw new InflateError('a stored block header ends early');
      const len = input[br.pos]! | (input[br.pos + 1]! << 8);
      const nlen = input[br.pos + 2]! | (input[br.pos + 3]! << 8);
      br.pos += 4;
      if (len !== (~nlen & 0xffff)) throw new InflateError('a stored block length does not match its complement');
      if (br.pos + len > end) throw new InflateError('a stored block ends early');
      out.bytes(input.subarray(br.pos, br.pos + len));
      br.pos += len;
    } else if (type === 1) {
      const [lit, dist] = fixedCodes();
      codes(br, out, lit, dist);
    } else if (type === 2) {
      const [lit, dist] = dynamicCodes(br);
      codes(br, out, lit, dist);
    } else {
      throw new InflateError('block type 3 is reserved');
    }
  }
  return { out: out.buf.slice(0, out.len), end: br.pos };
}

function codes(br: BitReader, out: Output, lit: Huffman, dist: Huffman): void {
  for (;;) {
    const sym = br.decode(lit);
    if (sym < 256) {
      out.byte(sym);
      continue;
    }
    if (sym === 256) return;
    const li = sym - 257;
    if (li >= 29) throw new InflateError(`length symbol ${sym} is invalid`);
    const length = LENGTH_BASE[li]! + br.bits(LENGTH_EXTRA[li]!);
    const di = br.decode(dist);
    if (di >= 30) throw new InflateError(`distance symbol ${di} is invalid`);
    const d = DIST_BASE[di]! + br.bits(DIST_EXTRA[di]!);
    out.copy(d, length);
  }
}

function dynamicCodes(br: BitReader): [Huffman, Huffman] {
  const nlen = br.bits(5) + 257;
  const ndist = br.bits(5) + 1;
  const ncode = br.bits(4) + 4;
  if (nlen > 286 || ndist > 30) throw new InflateError('too many length or distance codes');
  const lengths = new Uint8Array(320);
  for (let i = 0; i < ncode; i++) lengths[CLEN_ORDER[i]!] = br.bits(3);
  const lencode = huffman(lengths, 19);
  lengths.fill(0);
  let index = 0;
  while (index < nlen + ndist) {
    const sym = br.decode(lencode);
    if (sym < 16) {
      lengths[index++] = sym;
      continue;
    }
    let len = 0;
    let rep: number;
    if (sym === 16) {
      if (index === 0) throw new InflateError('a repeat code with no previous length');
      len = lengths[index - 1]!;
      rep = 3 + br.bits(2);
    } else if (sym === 17) rep = 3 + br.bits(3);
    else rep = 11 + br.bits(7);
    if (index + rep > nlen + ndist) throw new InflateError('code lengths repeat past their end');
    while (rep-- > 0) lengths[index++] = len;
  }
  if (lengths[256] === 0) throw new InflateError('the code has no end-of-block symbol');
  return [huffman(lengths.subarray(0, nlen), nlen), huffman(lengths.subarray(nlen, nlen + ndist), ndist)];
}
