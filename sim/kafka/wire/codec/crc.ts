/**
 * The two CRCs the wire needs: CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) over a record batch from its
 * attributes to its end [clients/.../common/utils/Crc32C.java; DefaultRecordBatch.computeChecksum], and CRC-32
 * (IEEE, 0xEDB88320) in a gzip member's trailer [RFC 1952 §2.3.1]. Slicing-by-8: eight tables let the loop take
 * eight bytes a step (a fetch checks every batch it returns, so this is on a hot path).
 */

function tables(poly: number): Uint32Array[] {
  const t: Uint32Array[] = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[0]![n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[0]![n]!;
    for (let k = 1; k < 8; k++) {
      c = t[0]![c & 0xff]! ^ (c >>> 8);
      t[k]![n] = c >>> 0;
    }
  }
  return t;
}

const CASTAGNOLI = tables(0x82f63b78);
const IEEE = tables(0xedb88320);

function crc(t: Uint32Array[], bytes: Uint8Array, from: number, to: number, seed: number): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = t as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let c = ~seed >>> 0;
  let i = from;
  for (; i + 8 <= to; i += 8) {
    const lo = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    c =
      t7[lo & 0xff]! ^
      t6[(lo >>> 8) & 0xff]! ^
      t5[(lo >>> 16) & 0xff]! ^
      t4[lo >>> 24]! ^
      t3[bytes[i + 4]!]! ^
      t2[bytes[i + 5]!]! ^
      t1[bytes[i + 6]!]! ^
      t0[bytes[i + 7]!]!;
  }
  for (; i < to; i++) c = t0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** CRC-32C of bytes[from, to). */
export function crc32c(bytes: Uint8Array, from = 0, to = bytes.length): number {
  return crc(CASTAGNOLI, bytes, from, to, 0);
}

/** CRC-32 (IEEE) of bytes[from, to); `seed` continues an earlier CRC. */
export function crc32(bytes: Uint8Array, from = 0, to = bytes.length, seed = 0): number {
  return crc(IEEE, bytes, from, to, seed);
}
