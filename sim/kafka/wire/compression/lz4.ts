import { InflateError } from './inflate';

/**
 * LZ4 frames [the LZ4 frame format, v1.6.x; Kafka's Lz4BlockOutputStream / KafkaLZ4BlockInputStream]: a magic
 * number, a frame descriptor, then blocks (a little-endian size, its high bit marking a block stored as is) up to
 * a zero end mark. Reading only: a batch keeps the bytes its producer compressed, so the simulator never has to
 * write LZ4. Checksums are skipped (the batch's CRC-32C already covers every byte).
 */

const MAGIC = 0x184d2204;

export function lz4FrameDecompress(input: Uint8Array, maxOutput: number): Uint8Array {
  const v = new DataView(input.buffer, input.byteOffset, input.byteLength);
  let out = new Uint8Array(Math.min(maxOutput, Math.max(64, input.length * 4)));
  let op = 0;
  /** Room for `need` more bytes at `at` (the write position, which a block decode advances). */
  const grow = (at: number, need: number) => {
    if (at + need > maxOutput) throw new InflateError(`the data decompresses to more than ${maxOutput} bytes`);
    if (at + need <= out.length) return;
    const next = new Uint8Array(Math.min(maxOutput, Math.max(out.length * 2, at + need)));
    next.set(out.subarray(0, at));
    out = next;
  };
  let ip = 0;
  const need = (n: number, what: string) => {
    if (ip + n > input.length) throw new InflateError(`an LZ4 ${what} ends early`);
  };
  while (ip < input.length) {
    need(7, 'frame header');
    if (v.getUint32(ip, true) !== MAGIC) throw new InflateError('not an LZ4 frame (bad magic)');
    const flg = input[ip + 4]!;
    if (flg >> 6 !== 1) throw new InflateError(`LZ4 frame version ${flg >> 6} is not 1`);
    const blockChecksum = (flg & 0x10) !== 0;
    const contentSize = (flg & 0x08) !== 0;
    const contentChecksum = (flg & 0x04) !== 0;
    const dictId = (flg & 0x01) !== 0;
    ip += 6 + (contentSize ? 8 : 0) + (dictId ? 4 : 0) + 1; // magic, FLG, BD, sizes, header checksum
    for (;;) {
      need(4, 'block size');
      const raw = v.getUint32(ip, true);
      ip += 4;
      if (raw === 0) break;
      const size = raw & 0x7fffffff;
      need(size, 'block');
      if (raw & 0x80000000) {
        grow(op, size);
        out.set(input.subarray(ip, ip + size), op);
        op += size;
      } else {
        op = decodeBlock(input, ip, ip + size, () => out, grow, op);
      }
      ip += size + (blockChecksum ? 4 : 0);
    }
    if (contentChecksum) ip += 4;
  }
  return out.slice(0, op);
}

/** One LZ4 block (sequences of literals and matches) appended at `op`; returns the new end. */
function decodeBlock(input: Uint8Array, ip: number, end: number, out: () => Uint8Array, grow: (at: number, n: number) => void, op: number): number {
  while (ip < end) {
    const token = input[ip++]!;
    let lit = token >> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (ip >= end) throw new InflateError('an LZ4 literal length ends early');
        b = input[ip++]!;
        lit += b;
      } while (b === 255);
    }
    if (ip + lit > end) throw new InflateError('LZ4 literals run past their block');
    grow(op, lit);
    out().set(input.subarray(ip, ip + lit), op);
    op += lit;
    ip += lit;
    if (ip >= end) break; // the last sequence has literals only
    if (ip + 2 > end) throw new InflateError('an LZ4 match offset ends early');
    const offset = input[ip]! | (input[ip + 1]! << 8);
    ip += 2;
    if (offset === 0 || offset > op) throw new InflateError(`an LZ4 match offset of ${offset} reaches before the start`);
    let len = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (ip >= end) throw new InflateError('an LZ4 match length ends early');
        b = input[ip++]!;
        len += b;
      } while (b === 255);
    }
    grow(op, len);
    const o = out();
    for (let i = 0; i < len; i++, op++) o[op] = o[op - offset]!;
  }
  return op;
}
