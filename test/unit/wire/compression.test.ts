import { describe, expect, it } from 'vitest';
import { lz4FrameDecompress } from '../../../sim/kafka/wire/compression/lz4';
import { snappyDecompress } from '../../../sim/kafka/wire/compression/snappy';
import { InflateError } from '../../../sim/kafka/wire/compression/inflate';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const MAX = 1 << 20;

describe('snappy and LZ4, read as producers write them', () => {
  // "abc" as a literal, then a copy of 9 bytes from 3 back: "abcabcabcabc".
  const raw = Uint8Array.from([0x0c, 0x08, 0x61, 0x62, 0x63, 0x15, 0x03]);

  it('snappy: a plain stream, and the xerial framing Kafka\'s Java clients write', () => {
    expect(text(snappyDecompress(raw, MAX))).toBe('abcabcabcabc');
    const header = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1];
    const framed = Uint8Array.from([...header, 0, 0, 0, raw.length, ...raw, 0, 0, 0, raw.length, ...raw]);
    expect(text(snappyDecompress(framed, MAX))).toBe('abcabcabcabc'.repeat(2));
    // A two-byte-offset copy (tag kind 2) and a literal with its length in an extra byte.
    const long = Uint8Array.from([70, 60 << 2, 59, ...new TextEncoder().encode('x'.repeat(60)), ((10 - 1) << 2) | 2, 60, 0]);
    expect(text(snappyDecompress(long, MAX))).toBe('x'.repeat(70));
  });

  it('LZ4: a frame with a compressed block and a stored one', () => {
    const compressed = [0x35, 0x61, 0x62, 0x63, 0x03, 0x00, 0x10, 0x21]; // "abc", copy 9 from 3 back, "!"
    const frame = Uint8Array.from([
      0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x00, // magic, FLG (v1, independent blocks), BD, header checksum
      compressed.length, 0, 0, 0, ...compressed,
      3, 0, 0, 0x80, 0x78, 0x79, 0x7a, // a stored block: "xyz"
      0, 0, 0, 0,
    ]);
    expect(text(lz4FrameDecompress(frame, MAX))).toBe('abcabcabcabc!xyz');
  });

  it('refuses what does not decode, and what would inflate past the limit', () => {
    expect(() => snappyDecompress(Uint8Array.from([0x0c, 0x15, 0x03]), MAX)).toThrow(InflateError);
    expect(() => snappyDecompress(raw, 5)).toThrow(/more than 5 bytes/);
    expect(() => lz4FrameDecompress(Uint8Array.from([1, 2, 3, 4, 5, 6, 7]), MAX)).toThrow(/bad magic/);
    expect(() => lz4FrameDecompress(Uint8Array.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x00, 4, 0, 0, 0, 0x05, 0x61, 0x09, 0x00]), MAX)).toThrow(InflateError);
  });
});
