import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { murmur2, toPositive } from '../../../sim/kafka/client/murmur2';
import { partitionForKey, serializeStringKey } from '../../../sim/kafka/client/partitioner';

/**
 * A second murmur2, written independently: BigInt arithmetic modulo 2^32 instead of Math.imul and int32
 * wraparound, bytes read one by one, the tail handled by a loop rather than a fall-through.
 */
function murmur2BigInt(bytes: Uint8Array): number {
  const MASK = 0xffffffffn;
  const m = 0x5bd1e995n;
  const mul = (a: bigint, b: bigint) => (a * b) & MASK;
  const len = BigInt(bytes.length);
  let h = (0x9747b28cn ^ len) & MASK;
  const blocks = Math.floor(bytes.length / 4);
  for (let i = 0; i < blocks; i++) {
    let k = 0n;
    for (let j = 3; j >= 0; j--) k = (k << 8n) | BigInt(bytes[4 * i + j]!);
    k = mul(k, m);
    k ^= k >> 24n;
    k = mul(k, m);
    h = mul(h, m) ^ k;
  }
  const tail = bytes.length % 4;
  if (tail > 0) {
    for (let j = tail - 1; j >= 0; j--) h ^= BigInt(bytes[4 * blocks + j]!) << BigInt(8 * j);
    h = mul(h, m);
  }
  h ^= h >> 13n;
  h = mul(h, m);
  h ^= h >> 15n;
  return Number(BigInt.asIntN(32, h));
}

// Java's String.getBytes(UTF_8): lone surrogates become '?'; everything else is plain UTF-8 (TextEncoder).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const javaUtf8 = (s: string) => new TextEncoder().encode(s.replace(LONE_SURROGATE, '?'));

const utf16 = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }).map((u) => String.fromCharCode(...u));

describe('murmur2 properties', () => {
  it('agrees with an independent BigInt implementation on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(murmur2(bytes)).toBe(murmur2BigInt(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns a signed 32-bit integer whose toPositive is in [0, 2^31)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const h = murmur2(bytes);
        expect(h | 0).toBe(h);
        expect(toPositive(h)).toBeGreaterThanOrEqual(0);
        expect(toPositive(h)).toBeLessThan(2 ** 31);
        expect(toPositive(h) === h).toBe(h >= 0);
      }),
    );
  });

  it('puts every key in [0, n), the same one every time, as its UTF-8 bytes would', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), utf16), fc.integer({ min: 1, max: 1000 }), (key, n) => {
        const p = partitionForKey(key, n);
        expect(Number.isInteger(p) && p >= 0 && p < n).toBe(true);
        expect(partitionForKey(key, n)).toBe(p);
        const bytes = javaUtf8(key);
        expect(serializeStringKey(key)).toEqual(bytes);
        expect(p).toBe(toPositive(murmur2BigInt(bytes)) % n);
      }),
      { numRuns: 1000 },
    );
  });
});
