import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { APIS } from '../../../sim/kafka/wire/apis';
import { FrameReader } from '../../../sim/kafka/wire/codec/frames';
import { decodeRequest, encodeRequest } from '../../../sim/kafka/wire/codec/requests';
import { gunzip } from '../../../sim/kafka/wire/compression/gzip';
import { InflateError } from '../../../sim/kafka/wire/compression/inflate';
import { lz4FrameDecompress } from '../../../sim/kafka/wire/compression/lz4';
import { snappyDecompress } from '../../../sim/kafka/wire/compression/snappy';
import { decodeBatches, encodeBatches } from '../../../sim/kafka/wire/records/recordBatch';
import { messageArb } from '../../support/wireArbitraries';

/** Random bytes, and random bytes behind a plausible header (a known API key and version), at every decoder. */
const anyBytes = fc.uint8Array({ maxLength: 300 });
const withHeader = fc
  .tuple(fc.constantFrom(...APIS), fc.integer({ min: -1, max: 20 }), fc.integer(), fc.uint8Array({ maxLength: 200 }))
  .map(([api, v, cid, rest]) => {
    const b = new Uint8Array(8 + rest.length);
    const dv = new DataView(b.buffer);
    dv.setInt16(0, api.key);
    dv.setInt16(2, v);
    dv.setInt32(4, cid);
    b.set(rest, 8);
    return b;
  });

/** A valid request of a random API and version with a few bytes flipped, cut or inserted. */
const mutated = fc
  .constantFrom(...APIS)
  .chain((api) => fc.integer({ min: api.minVersion, max: api.maxVersion }).chain((v) => messageArb(api.request, v).map((body) => encodeRequest(api, v, 1, 'fuzz', body))))
  .chain((frame) =>
    fc.tuple(fc.constant(frame), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.nat()).map(([f, flips, cut]) => {
      const b = f.slice();
      for (const [at, x] of flips) b[at % b.length] = x;
      return b.subarray(0, Math.max(0, b.length - (cut % 4)));
    }),
  );

describe('the decoders never throw', () => {
  it('decodeRequest answers random and mutated bytes with a value', () => {
    fc.assert(
      fc.property(fc.oneof(anyBytes, withHeader, mutated), (b) => {
        const d = decodeRequest(b);
        expect(['request', 'unsupported-api-versions', 'close']).toContain(d.kind);
        if (d.kind === 'close') expect(d.reason).not.toMatch(/unexpected/);
      }),
      { numRuns: 3000 },
    );
  });

  it('decodeBatches answers random and mutated batches with a value', () => {
    const valid = encodeBatches([
      {
        baseOffset: 0,
        partitionLeaderEpoch: 0,
        compression: 'gzip',
        timestampType: 'CreateTime',
        isTransactional: false,
        isControl: false,
        hasDeleteHorizonMs: false,
        lastOffsetDelta: 1,
        baseTimestamp: 0,
        maxTimestamp: 0,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        records: [
          { timestampDelta: 0, offsetDelta: 0, key: null, value: new Uint8Array([1, 2]), headers: [] },
          { timestampDelta: 0, offsetDelta: 1, key: new Uint8Array([3]), value: null, headers: [{ key: 'h', value: null }] },
        ],
      },
    ]);
    const flipped = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }).map((flips) => {
      const b = valid.slice();
      for (const [at, x] of flips) b[at % b.length] = x;
      return b;
    });
    fc.assert(
      fc.property(fc.oneof(anyBytes, flipped), (b) => {
        const d = decodeBatches(b, { maxUncompressedBytes: 1 << 20 });
        if (!d.ok) expect(d.message).not.toMatch(/unexpected/);
      }),
      { numRuns: 3000 },
    );
  });

  it('gunzip throws only InflateError on random input', () => {
    fc.assert(
      fc.property(fc.oneof(anyBytes, anyBytes.map((b) => Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, ...b]))), (b) => {
        try {
          gunzip(b, 1 << 20);
        } catch (e) {
          expect(e).toBeInstanceOf(InflateError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('snappy and LZ4 throw only InflateError on random input', () => {
    const lz4Head = anyBytes.map((b) => Uint8Array.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x00, ...b]));
    const xerial = anyBytes.map((b) => Uint8Array.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1, ...b]));
    fc.assert(
      fc.property(fc.oneof(anyBytes, lz4Head, xerial), (b) => {
        for (const decode of [lz4FrameDecompress, snappyDecompress]) {
          try {
            decode(b, 1 << 20);
          } catch (e) {
            expect(e).toBeInstanceOf(InflateError);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the frame reader takes any chunking and refuses negative and oversized sizes', () => {
    fc.assert(
      fc.property(fc.array(anyBytes, { maxLength: 8 }), (chunks) => {
        const r = new FrameReader(1000);
        for (const c of chunks) {
          const out = r.push(c);
          for (const f of out.frames) expect(f.length).toBeLessThanOrEqual(1000);
          if (out.error) break;
        }
      }),
      { numRuns: 2000 },
    );
    const r = new FrameReader();
    expect(r.push(new Uint8Array([0x06, 0x40, 0x00, 0x01])).error).toBe('Invalid receive (size = 104857601 larger than 104857600)');
    expect(new FrameReader().push(new Uint8Array([0xff, 0xff, 0xff, 0xfe])).error).toBe('Invalid receive (size = -2)');
  });
});
