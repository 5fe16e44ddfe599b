import { createRequire } from 'node:module';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fetch as fetchApi } from '../../../sim/kafka/wire/apis/fetch';
import { produce as produceApi, type ProduceRequestData } from '../../../sim/kafka/wire/apis/produce';
import { decodeRequest, encodeResponse } from '../../../sim/kafka/wire/codec/requests';
import { gunzip, gzip } from '../../../sim/kafka/wire/compression/gzip';
import { InflateError } from '../../../sim/kafka/wire/compression/inflate';
import { controlRecordKey, controlRecordType, decodeBatches, encodeBatches, endTxnMarkerValue, type WireRecordBatch } from '../../../sim/kafka/wire/records/recordBatch';

// kafkajs (a devDependency) is an independent implementation of the same formats: what it writes we must read,
// and what we write it must read.
const require = createRequire(import.meta.url);
const kjsRequest = require('kafkajs/src/protocol/request');
const kjsProduceV7 = require('kafkajs/src/protocol/requests/produce/v7/request');
const kjsFetchV11Response = require('kafkajs/src/protocol/requests/fetch/v11/response');
const { Types: KjsCompression } = require('kafkajs/src/protocol/message/compression');

const text = (s: string) => new TextEncoder().encode(s);

function batch(over: Partial<WireRecordBatch> = {}): WireRecordBatch {
  return {
    baseOffset: 0,
    partitionLeaderEpoch: -1,
    compression: 'none',
    timestampType: 'CreateTime',
    isTransactional: false,
    isControl: false,
    hasDeleteHorizonMs: false,
    lastOffsetDelta: 2,
    baseTimestamp: 1_700_000_000_000,
    maxTimestamp: 1_700_000_000_005,
    producerId: 4000,
    producerEpoch: 0,
    baseSequence: 17,
    records: [
      { timestampDelta: 0, offsetDelta: 0, key: text('k1'), value: text('v1'), headers: [{ key: 'h', value: text('x') }] },
      { timestampDelta: 3, offsetDelta: 1, key: null, value: null, headers: [] },
      { timestampDelta: 5, offsetDelta: 2, key: new Uint8Array(0), value: new Uint8Array([0, 255, 7]), headers: [{ key: 'null-value', value: null }] },
    ],
    ...over,
  };
}

describe('record batch v2', () => {
  it('round-trips every attribute bit and both codecs', () => {
    for (const compression of ['none', 'gzip'] as const) {
      for (const flags of [{}, { isTransactional: true }, { timestampType: 'LogAppendTime' as const }, { hasDeleteHorizonMs: true }]) {
        const b = batch({ compression, ...flags, baseOffset: 1234, partitionLeaderEpoch: 7 });
        const d = decodeBatches(encodeBatches([b, { ...b, baseOffset: 1237 }]));
        expect(d.ok).toBe(true);
        if (!d.ok) return;
        expect(d.batches).toEqual([b, { ...b, baseOffset: 1237 }]);
        expect(d.partialTail).toBe(0);
      }
    }
  });

  it('round-trips random batches', () => {
    const bytes = fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null });
    const rec = fc.record({
      timestampDelta: fc.integer({ min: 0, max: 1e6 }),
      key: bytes,
      value: bytes,
      headers: fc.array(fc.record({ key: fc.string({ maxLength: 6 }), value: bytes }), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(rec, { minLength: 1, maxLength: 6 }), fc.constantFrom('none' as const, 'gzip' as const), (rs, compression) => {
        const records = rs.map((r, i) => ({ ...r, offsetDelta: i }));
        const b = batch({ compression, records, lastOffsetDelta: records.length - 1 });
        const d = decodeBatches(encodeBatches([b]));
        expect(d.ok && d.batches[0]).toEqual(b);
      }),
      { numRuns: 100 },
    );
  });

  it('a flipped bit in the CRC-covered part is CORRUPT_MESSAGE; a cut-off batch is a partial tail', () => {
    const bytes = encodeBatches([batch()]);
    const bad = bytes.slice();
    bad[40]! ^= 0x10;
    const d = decodeBatches(bad);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toBe('CORRUPT_MESSAGE');
    const cut = decodeBatches(bytes.subarray(0, bytes.length - 3));
    expect(cut.ok && cut.batches.length === 0 && cut.partialTail === bytes.length - 3).toBe(true);
    // the base offset and leader epoch are outside the CRC: a broker may rewrite them
    const moved = bytes.slice();
    moved[7] = 99;
    moved.set([0, 0, 0, 3], 12);
    const m = decodeBatches(moved);
    expect(m.ok && m.batches[0]!.baseOffset === 99 && m.batches[0]!.partitionLeaderEpoch === 3).toBe(true);
  });

  it('control records carry their type in the key', () => {
    expect(controlRecordType(controlRecordKey('COMMIT'))).toBe('COMMIT');
    expect(controlRecordType(controlRecordKey('ABORT'))).toBe('ABORT');
    const b = batch({ isControl: true, isTransactional: true, lastOffsetDelta: 0, records: [{ timestampDelta: 0, offsetDelta: 0, key: controlRecordKey('ABORT'), value: endTxnMarkerValue(5), headers: [] }] });
    const d = decodeBatches(encodeBatches([b]));
    expect(d.ok && d.batches[0]!.isControl && controlRecordType(d.batches[0]!.records[0]!.key)).toBe('ABORT');
  });

  it('reads a Produce v7 request as kafkajs writes it, gzip included', async () => {
    for (const compression of [KjsCompression.None, KjsCompression.GZIP]) {
      const req = kjsProduceV7({
        acks: -1,
        timeout: 30000,
        transactionalId: null,
        producerId: 42,
        producerEpoch: 1,
        compression,
        topicData: [
          {
            topic: 'orders',
            partitions: [
              {
                partition: 2,
                firstSequence: 5,
                messages: [
                  { key: 'a', value: 'first', timestamp: 1_700_000_000_000, headers: { trace: 'abc' } },
                  { key: null, value: Buffer.from([1, 2, 3]), timestamp: 1_700_000_000_009 },
                ],
              },
            ],
          },
        ],
      });
      const framed = (await kjsRequest({ correlationId: 77, clientId: 'kjs', request: req })).buffer as Buffer;
      const d = decodeRequest(new Uint8Array(framed.subarray(4)));
      expect(d.kind).toBe('request');
      if (d.kind !== 'request') return;
      expect(d.header).toEqual({ requestApiKey: 0, requestApiVersion: 7, correlationId: 77, clientId: 'kjs' });
      const body = d.body as ProduceRequestData;
      expect(body.acks).toBe(-1);
      const part = body.topicData[0]!.partitionData[0]!;
      expect(part.index).toBe(2);
      const recs = decodeBatches(part.records!);
      expect(recs.ok).toBe(true);
      if (!recs.ok) return;
      const b = recs.batches[0]!;
      expect(b.compression).toBe(compression === KjsCompression.GZIP ? 'gzip' : 'none');
      expect([b.producerId, b.producerEpoch, b.baseSequence, b.lastOffsetDelta]).toEqual([42, 1, 5, 1]);
      expect(new TextDecoder().decode(b.records[0]!.value!)).toBe('first');
      expect(b.records[0]!.headers).toEqual([{ key: 'trace', value: text('abc') }]);
      expect([...b.records[1]!.value!]).toEqual([1, 2, 3]);
      expect(b.records[1]!.timestampDelta).toBe(9);
    }
    void produceApi;
  });

  it('writes Fetch v11 responses that kafkajs reads, gzip included', async () => {
    for (const compression of ['none', 'gzip'] as const) {
      const records = encodeBatches([batch({ compression, baseOffset: 500, partitionLeaderEpoch: 3 })]);
      const body = {
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 9,
        responses: [{ topic: 'orders', partitions: [{ partitionIndex: 1, errorCode: 0, highWatermark: 503, lastStableOffset: 503, logStartOffset: 0, abortedTransactions: null, preferredReadReplica: -1, records }] }],
      };
      const frame = encodeResponse(fetchApi, 11, 5, body);
      const decoded = await kjsFetchV11Response.decode(Buffer.from(frame.subarray(4)));
      const msgs = decoded.responses[0].partitions[0].messages;
      expect(msgs.map((m: { offset: string }) => m.offset)).toEqual(['500', '501', '502']);
      expect(msgs[0].key.toString()).toBe('k1');
      expect(msgs[0].value.toString()).toBe('v1');
      expect(msgs[1].value).toBeNull();
      expect([...msgs[2].value]).toEqual([0, 255, 7]);
      expect(decoded.responses[0].partitions[0].highWatermark).toBe('503');
    }
  });
});

describe('gzip', () => {
  it('our gzip is what zlib reads, zlib\'s is what we read, and both are byte-identical run to run', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.string({ maxLength: 2000 }).map((s) => text(s.repeat(3)))), (data) => {
        const ours = gzip(data);
        expect(new Uint8Array(gunzipSync(ours))).toEqual(data);
        expect(gzip(data)).toEqual(ours);
        expect(gunzip(new Uint8Array(gzipSync(data, { level: 9 })))).toEqual(data);
        expect(gunzip(new Uint8Array(gzipSync(data, { level: 1 })))).toEqual(data);
      }),
      { numRuns: 60 },
    );
  });

  it('compresses repetitive data and refuses a bad checksum or an inflation bomb', () => {
    const data = text('abcdefgh'.repeat(2000));
    const z = gzip(data);
    expect(z.length).toBeLessThan(data.length / 10);
    const bad = z.slice();
    bad[bad.length - 6]! ^= 1;
    expect(() => gunzip(bad)).toThrow(InflateError);
    expect(() => gunzip(z, 1000)).toThrow(/more than 1000 bytes/);
  });
});
