import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, WireFormatError, uuidBytes, uuidString } from '../../../sim/kafka/wire/codec/bytes';
import { crc32, crc32c } from '../../../sim/kafka/wire/codec/crc';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ascii = (s: string) => new TextEncoder().encode(s);

describe('wire primitives', () => {
  it('writes varints as Kafka does (zig-zag, then 7 bits a byte)', () => {
    const cases: [number, string][] = [
      [0, '00'],
      [-1, '01'],
      [1, '02'],
      [63, '7e'],
      [-64, '7f'],
      [64, '8001'],
      [150, 'ac02'],
      [2147483647, 'feffffff0f'],
      [-2147483648, 'ffffffff0f'],
    ];
    for (const [v, h] of cases) {
      expect(hex(new ByteWriter().varint(v).toBytes()), String(v)).toBe(h);
      expect(new ByteReader(Buffer.from(h, 'hex')).varint()).toBe(v);
    }
  });

  it('varlongs round-trip every value within 2^52 both ways', () => {
    for (const v of [0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 40 + 7, 2 ** 52, -(2 ** 52)]) {
      const b = new ByteWriter().varlong(v).toBytes();
      expect(new ByteReader(b).varlong(), String(v)).toBe(v);
    }
    expect(hex(new ByteWriter().varlong(-1).toBytes())).toBe('01');
    expect(hex(new ByteWriter().varlong(2 ** 32).toBytes())).toBe('8080808020');
  });

  it('int64 round-trips negative and large values big-endian', () => {
    const w = new ByteWriter().int64(-1).int64(2 ** 40 + 5).int64(-(2 ** 40) - 5);
    const b = w.toBytes();
    expect(hex(b.subarray(0, 8))).toBe('ffffffffffffffff');
    const r = new ByteReader(b);
    expect([r.int64(), r.int64(), r.int64()]).toEqual([-1, 2 ** 40 + 5, -(2 ** 40) - 5]);
  });

  it('classic and compact strings, bytes and nulls', () => {
    const w = new ByteWriter().string('héllo').string(null).compactString('x').compactString(null).bytes(null).compactBytes(new Uint8Array([9]));
    const r = new ByteReader(w.toBytes());
    expect(r.string()).toBe('héllo');
    expect(r.string()).toBeNull();
    expect(r.compactString()).toBe('x');
    expect(r.compactString()).toBeNull();
    expect(r.bytes()).toBeNull();
    expect([...r.compactBytes()!]).toEqual([9]);
    expect(r.remaining).toBe(0);
  });

  it('refuses lengths that run past the end instead of trusting them', () => {
    expect(() => new ByteReader(new Uint8Array([0x00, 0x05, 0x61])).string()).toThrow(WireFormatError);
    expect(() => new ByteReader(new Uint8Array([0x7f, 0xff, 0xff, 0xff])).arrayLength()).toThrow(/claims/);
    expect(() => new ByteReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0x01])).uvarint()).toThrow(/longer than 5 bytes/);
    expect(() => new ByteReader(new Uint8Array([0x00, 0x02, 0xc3, 0x28])).string()).toThrow(/UTF-8/);
  });

  it('prints a Uuid as Kafka does and reads it back', () => {
    const b = new Uint8Array(16).map((_, i) => i * 17);
    const s = uuidString(b);
    expect(s).toHaveLength(22);
    expect([...uuidBytes(s)]).toEqual([...b]);
    expect(uuidString(new Uint8Array(16))).toBe('AAAAAAAAAAAAAAAAAAAAAA');
  });

  it('CRC-32C and CRC-32 give their standard check values', () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283);
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
  });
});
