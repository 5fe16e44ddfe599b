/**
 * The two CRCs the wire needs: CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) over a record batch from its
 * attributes to its end [clients/.../common/utils/Crc32C.java; DefaultRecordBatch.computeChecksum], and CRC-32
 * (IEEE, 0xEDB88320) in a gzip member's trailer [RFC 1952 §2.3.1]. Table-driven, one byte at a time.
 */

function table(poly: number): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

const CASTAGNOLI = table(0x82f63b78);
const IEEE = table(0xedb88320);

function crc(t: Uint32Array, bytes: Uint8Array, from: number, to: number, seed: number): number {
  let c = ~seed >>> 0;
  for (let i = from; i < to; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
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
