import { crc32 } from '../codec/crc';
import { deflateRaw } from './deflate';
import { InflateError, inflateRaw } from './inflate';

/**
 * gzip members [RFC 1952]: what Kafka's GZIP compression codec puts in a batch's records section
 * (GZIPOutputStream / GZIPInputStream). Our header has no timestamp and no name, so the same records always
 * compress to the same bytes. Reading accepts the optional header fields and concatenated members.
 */

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

export function gzip(data: Uint8Array): Uint8Array {
  const body = deflateRaw(data);
  const out = new Uint8Array(10 + body.length + 8);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]); // no flags, mtime 0, OS unknown
  out.set(body, 10);
  const v = new DataView(out.buffer);
  v.setUint32(10 + body.length, crc32(data), true);
  v.setUint32(14 + body.length, data.length >>> 0, true);
  return out;
}

export function gunzip(input: Uint8Array, maxOutput = 1 << 30): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  do {
    if (input.length - pos < 18) throw new InflateError('a gzip member is shorter than its header and trailer');
    if (input[pos] !== 0x1f || input[pos + 1] !== 0x8b) throw new InflateError('not gzip data (bad magic)');
    if (input[pos + 2] !== 8) throw new InflateError(`gzip compression method ${input[pos + 2]} is not deflate`);
    const flags = input[pos + 3]!;
    let p = pos + 10;
    if (flags & FEXTRA) {
      if (p + 2 > input.length) throw new InflateError('a gzip extra field ends early');
      p += 2 + (input[p]! | (input[p + 1]! << 8));
    }
    if (flags & FNAME) p = skipZeroTerminated(input, p);
    if (flags & FCOMMENT) p = skipZeroTerminated(input, p);
    if (flags & FHCRC) p += 2;
    if (p > input.length) throw new InflateError('a gzip header ends early');
    const { out, end } = inflateRaw(input, p, input.length, maxOutput - total);
    if (end + 8 > input.length) throw new InflateError('a gzip trailer ends early');
    const v = new DataView(input.buffer, input.byteOffset, input.byteLength);
    if (v.getUint32(end, true) !== crc32(out)) throw new InflateError('the gzip CRC-32 does not match the data');
    if (v.getUint32(end + 4, true) !== out.length >>> 0) throw new InflateError('the gzip length does not match the data');
    parts.push(out);
    total += out.length;
    pos = end + 8;
  } while (pos < input.length && input[pos] === 0x1f);
  if (parts.length === 1) return parts[0]!;
  const all = new Uint8Array(total);
  let o = 0;
  for (const part of parts) {
    all.set(part, o);
    o += part.length;
  }
  return all;
}

function skipZeroTerminated(b: Uint8Array, p: number): number {
  while (p < b.length && b[p] !== 0) p++;
  return p + 1;
}
