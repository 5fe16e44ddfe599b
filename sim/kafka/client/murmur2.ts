/**
 * Kafka's murmur2 (a 32-bit MurmurHash2 with Kafka's seed), the hash behind key partitioning.
 * Every operation is on 32-bit two's-complement integers, as Java's `int`: `Math.imul` multiplies with
 * wraparound, `>>>` is the unsigned shift, `| 0` keeps a value signed.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** murmur2 of `bytes`, as a signed 32-bit int. [clients/.../common/utils/Utils.java `murmur2`] */
export function murmur2(bytes: Uint8Array): number {
  return murmur2Prefix(bytes, bytes.length);
}

/**
 * murmur2 of the first `length` bytes of `bytes`: lets a caller hash from a reused scratch buffer
 * without allocating per record.
 */
export function murmur2Prefix(bytes: Uint8Array, length: number): number {
  let h = (SEED ^ length) | 0;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    // Little-endian block; bytes are unsigned (Java masks with 0xff).
    let k = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  // The tail: Java's switch falls through, so a 3-byte tail applies all three steps.
  const t = length & ~3;
  const tail = length & 3;
  if (tail === 3) h ^= bytes[t + 2]! << 16;
  if (tail >= 2) h ^= bytes[t + 1]! << 8;
  if (tail >= 1) {
    h ^= bytes[t]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Clears the sign bit (not Math.abs: Integer.MIN_VALUE maps to 0). [clients/.../common/utils/Utils.java `toPositive`] */
export function toPositive(x: number): number {
  return x & 0x7fffffff;
}
