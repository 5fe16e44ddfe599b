/**
 * Kafka's primitive wire types [docs: protocol.html#protocol_types; clients/.../common/protocol/types/Type.java,
 * ByteUtils.java]: big-endian fixed-width integers, unsigned and zig-zag varints, and the length-prefixed strings,
 * bytes and arrays in their classic (int16/int32 length) and compact (unsigned varint length + 1) forms.
 *
 * int64 values are JavaScript numbers: exact up to 2^53, which covers every offset, timestamp and producer id a
 * simulated cluster hands out. A reader never trusts a length: one that runs past the end of the buffer is a
 * WireFormatError, so a malformed frame is refused instead of allocating what it claims.
 */

/** A frame or message that does not parse: its bytes end early, a length is negative, a string is not UTF-8. */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

import { uuidFromString, uuidToString } from '../../metadata/uuid';

const TWO_32 = 0x1_0000_0000;
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 bytes of a string. */
export function utf8Encode(s: string): Uint8Array {
  return utf8.encode(s);
}

/** A growable byte buffer written front to back. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** The bytes written so far (a copy, so the writer may go on). */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  int8(v: number): this {
    this.ensure(1);
    this.view.setInt8(this.pos, v);
    this.pos += 1;
    return this;
  }

  uint8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  bool(v: boolean): this {
    return this.uint8(v ? 1 : 0);
  }

  int16(v: number): this {
    this.ensure(2);
    this.view.setInt16(this.pos, v);
    this.pos += 2;
    return this;
  }

  uint16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v);
    this.pos += 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.view.setInt32(this.pos, v);
    this.pos += 4;
    return this;
  }

  uint32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v >>> 0);
    this.pos += 4;
    return this;
  }

  int64(v: number): this {
    this.ensure(8);
    const hi = Math.floor(v / TWO_32);
    const lo = v - hi * TWO_32;
    this.view.setInt32(this.pos, hi);
    this.view.setUint32(this.pos + 4, lo);
    this.pos += 8;
    return this;
  }

  float64(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, v);
    this.pos += 8;
    return this;
  }

  /** Unsigned LEB128 of a 32-bit value (Kafka's writeUnsignedVarint). */
  uvarint(v: number): this {
    let x = v >>> 0;
    this.ensure(5);
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
    return this;
  }

  /** Zig-zag varint of a 32-bit signed value (writeVarint). */
  varint(v: number): this {
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Zig-zag varint of a 64-bit signed value (writeVarlong), exact within ±2^52 (zig-zag doubles it). */
  varlong(v: number): this {
    // zig-zag without 32-bit wrap: 2v for v >= 0, -2v - 1 for v < 0
    let x = v >= 0 ? v * 2 : -v * 2 - 1;
    this.ensure(10);
    while (x >= 0x80) {
      this.buf[this.pos++] = (x % 0x80) | 0x80;
      x = Math.floor(x / 0x80);
    }
    this.buf[this.pos++] = x;
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  /** STRING / NULLABLE_STRING: int16 length (-1 = null) then UTF-8. */
  string(s: string | null): this {
    if (s === null) return this.int16(-1);
    const b = utf8.encode(s);
    if (b.length > 0x7fff) throw new RangeError(`a string of ${b.length} bytes is longer than an int16 length allows`);
    return this.int16(b.length).raw(b);
  }

  /** COMPACT_STRING / COMPACT_NULLABLE_STRING: unsigned varint length + 1 (0 = null) then UTF-8. */
  compactString(s: string | null): this {
    if (s === null) return this.uvarint(0);
    const b = utf8.encode(s);
    return this.uvarint(b.length + 1).raw(b);
  }

  /** BYTES / NULLABLE_BYTES: int32 length (-1 = null). */
  bytes(b: Uint8Array | null): this {
    if (b === null) return this.int32(-1);
    return this.int32(b.length).raw(b);
  }

  compactBytes(b: Uint8Array | null): this {
    if (b === null) return this.uvarint(0);
    return this.uvarint(b.length + 1).raw(b);
  }

  /** UUID: 16 bytes, from Kafka's printed form (22 characters of URL-safe base64). */
  uuid(id: string): this {
    this.ensure(16);
    this.buf.set(uuidFromString(id), this.pos);
    this.pos += 16;
    return this;
  }

  /** Overwrites an int32 written earlier (a length or a CRC filled in once known). */
  patchInt32(at: number, v: number): void {
    this.view.setInt32(at, v);
  }

  patchUint32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0);
  }

  /** A view of bytes already written (no copy; valid until the next write). */
  peek(from: number, to: number): Uint8Array {
    return this.buf.subarray(from, to);
  }
}

/** Reads a buffer front to back; every read checks that the bytes are there. */
export class ByteReader {
  private readonly view: DataView;
  pos: number;
  readonly end: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number, what: string): void {
    if (n > this.end - this.pos) throw new WireFormatError(`${what} needs ${n} bytes at position ${this.pos}, only ${this.end - this.pos} remain`);
  }

  int8(): number {
    this.need(1, 'an int8');
    return this.view.getInt8(this.pos++);
  }

  uint8(): number {
    this.need(1, 'a uint8');
    return this.buf[this.pos++]!;
  }

  bool(): boolean {
    return this.uint8() !== 0;
  }

  int16(): number {
    this.need(2, 'an int16');
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }

  uint16(): number {
    this.need(2, 'a uint16');
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4, 'an int32');
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4, 'a uint32');
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  int64(): number {
    this.need(8, 'an int64');
    const hi = this.view.getInt32(this.pos);
    const lo = this.view.getUint32(this.pos + 4);
    this.pos += 8;
    return hi * TWO_32 + lo;
  }

  float64(): number {
    this.need(8, 'a float64');
    const v = this.view.getFloat64(this.pos);
    this.pos += 8;
    return v;
  }

  uvarint(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      this.need(1, 'a varint');
      const b = this.buf[this.pos++]!;
      if (shift === 28 && b > 0x0f) throw new WireFormatError(`a varint at position ${this.pos - 5} is longer than 5 bytes`);
      v |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v >>> 0;
      shift += 7;
    }
  }

  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  varlong(): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; ; i++) {
      if (i >= 10) throw new WireFormatError(`a varlong at position ${this.pos - 10} is longer than 10 bytes`);
      this.need(1, 'a varlong');
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) break;
      mul *= 0x80;
    }
    // undo zig-zag: even -> v/2, odd -> -(v+1)/2
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  raw(n: number, what = 'bytes'): Uint8Array {
    if (n < 0) throw new WireFormatError(`${what} has a negative length ${n}`);
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(n: number, what = 'a skipped field'): void {
    this.raw(n, what);
  }

  private text(n: number): string {
    const b = this.raw(n, 'a string');
    try {
      return utf8Strict.decode(b);
    } catch {
      throw new WireFormatError(`a string at position ${this.pos - n} is not valid UTF-8`);
    }
  }

  string(): string | null {
    const n = this.int16();
    if (n === -1) return null;
    if (n < 0) throw new WireFormatError(`a string has length ${n}`);
    return this.text(n);
  }

  compactString(): string | null {
    const n = this.uvarint();
    if (n === 0) return null;
    return this.text(n - 1);
  }

  bytes(): Uint8Array | null {
    const n = this.int32();
    if (n === -1) return null;
    if (n < 0) throw new WireFormatError(`bytes have length ${n}`);
    return this.raw(n);
  }

  compactBytes(): Uint8Array | null {
    const n = this.uvarint();
    if (n === 0) return null;
    return this.raw(n - 1);
  }

  uuid(): string {
    return uuidToString(this.raw(16, 'a uuid'));
  }

  /** An array length (int32, -1 = null), refused when even one byte per element would not fit. */
  arrayLength(): number {
    const n = this.int32();
    if (n < -1) throw new WireFormatError(`an array has length ${n}`);
    if (n > this.remaining) throw new WireFormatError(`an array claims ${n} elements but only ${this.remaining} bytes remain`);
    return n;
  }

  /** A compact array length (unsigned varint n + 1, 0 = null), returned as n (-1 = null). */
  compactArrayLength(): number {
    const n = this.uvarint() - 1;
    if (n > this.remaining) throw new WireFormatError(`an array claims ${n} elements but only ${this.remaining} bytes remain`);
    return n;
  }
}

export { uuidToString as uuidString, uuidFromString as uuidBytes, ZERO_UUID } from '../../metadata/uuid';
