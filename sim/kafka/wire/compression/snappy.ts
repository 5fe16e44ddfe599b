import { InflateError } from './inflate';

/**
 * Snappy [the Snappy format description; Kafka's SnappyCompression over snappy-java]: Kafka's Java clients write
 * xerial framing (a 16-byte header starting 0x82 "SNAPPY" 0, then chunks each preceded by a big-endian int32
 * length), others may write a plain Snappy stream; both are read. Reading only, as for LZ4.
 */

const XERIAL = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];

export function snappyDecompress(input: Uint8Array, maxOutput: number): Uint8Array {
  if (input.length >= 16 && XERIAL.every((b, i) => input[i] === b)) {
    const parts: Uint8Array[] = [];
    let total = 0;
    const v = new DataView(input.buffer, input.byteOffset, input.byteLength);
    let p = 16;
    while (p < input.length) {
      if (p + 4 > input.length) throw new InflateError('a snappy chunk length ends early');
      const n = v.getInt32(p);
      p += 4;
      if (n < 0 || p + n > input.length) throw new InflateError(`a snappy chunk claims ${n} bytes`);
      const chunk = snappyRaw(input.subarray(p, p + n), maxOutput - total);
      parts.push(chunk);
      total += chunk.length;
      p += n;
    }
    const out = new Uint8Array(total);
    let o = 0;
    for (const c of parts) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
  return snappyRaw(input, maxOutput);
}

function snappyRaw(input: Uint8Array, maxOutput: number): Uint8Array {
  let ip = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (ip >= input.length || shift > 28) throw new InflateError('a snappy length ends early');
    const b = input[ip++]!;
    length += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
  }
  if (length > maxOutput) throw new InflateError(`the data decompresses to more than ${maxOutput} bytes`);
  const out = new Uint8Array(length);
  let op = 0;
  const le = (n: number) => {
    if (ip + n > input.length) throw new InflateError('a snappy element ends early');
    let x = 0;
    for (let i = 0; i < n; i++) x += input[ip + i]! * 2 ** (8 * i);
    ip += n;
    return x;
  };
  while (ip < input.length) {
    const tag = input[ip++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >> 2;
      if (len >= 60) len = le(len - 59);
      len += 1;
      if (ip + len > input.length || op + len > length) throw new InflateError('a snappy literal runs past its end');
      out.set(input.subarray(ip, ip + len), op);
      ip += len;
      op += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      len = ((tag >> 2) & 7) + 4;
      offset = ((tag >> 5) << 8) | le(1);
    } else {
      len = (tag >> 2) + 1;
      offset = le(kind === 2 ? 2 : 4);
    }
    if (offset === 0 || offset > op || op + len > length) throw new InflateError(`a snappy copy of ${len} bytes from ${offset} back is out of range`);
    for (let i = 0; i < len; i++, op++) out[op] = out[op - offset]!;
  }
  if (op !== length) throw new InflateError(`snappy data gave ${op} bytes, ${length} declared`);
  return out;
}
