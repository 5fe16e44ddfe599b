import { describe, expect, it } from 'vitest';
import {
  BatchBuilder,
  CONTROL_FLAG_MASK,
  NO_DELETE_HORIZON,
  NULL_ID,
  PayloadTable,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  buildBatch,
  buildControlBatch,
  recordSize,
} from '../../../sim/kafka/records';

describe('RecordBatch', () => {
  it('sizes a batch as the v2 format does: the 61-byte header plus each record', () => {
    // A keyless record with a declared 50-byte value at offset delta 0: attributes 1, timestamp delta 1, offset
    // delta 1, key length -1 (1), value length 50 (1), the value 50, header count 1 = 56, plus its length: 57.
    const b = buildBatch([{ key: null, value: 'x', valueSize: 50, timestamp: 7 }]);
    expect(b.sizeInBytes).toBe(RECORD_BATCH_OVERHEAD + 57);
    expect(recordSize({ offsetDelta: 0, timestampDelta: 0, key: null, value: 'x', valueSize: 50, headers: [] })).toBe(57);
    const keyed = buildBatch([{ key: 'k1', value: 'v', timestamp: 0 }, { key: 'k2', value: null, timestamp: 3 }], { compression: 'gzip' });
    // gzip's modelled ratio 0.4 applies to the records section only.
    const section = recordSize({ offsetDelta: 0, timestampDelta: 0, key: 'k1', value: 'v', valueSize: 1, headers: [] }) + recordSize({ offsetDelta: 1, timestampDelta: 3, key: 'k2', value: null, valueSize: 0, headers: [] });
    expect(keyed.sizeInBytes).toBe(RECORD_BATCH_OVERHEAD + Math.ceil(section * 0.4));
    expect(keyed.compression).toBe('gzip');
    expect(keyed.attributes & 0x07).toBe(1);
  });

  it('reads its records from the slab: offsets, timestamps, keys, values, tombstones', () => {
    const b = buildBatch([
      { key: 'a', value: 'one', timestamp: 100 },
      { key: null, value: null, timestamp: 104 },
      { key: 'a', value: 'three', timestamp: 102 },
    ]);
    expect(b.recordCount).toBe(3);
    expect([b.baseTimestamp, b.maxTimestamp]).toEqual([100, 104]);
    expect([0, 1, 2].map((i) => [b.offsetAt(i), b.timestampAt(i), b.keyAt(i), b.valueAt(i), b.isTombstoneAt(i)])).toEqual([
      [0, 100, 'a', 'one', false],
      [1, 104, null, null, true],
      [2, 102, 'a', 'three', false],
    ]);
    expect(b.keyIdAt(0)).toBe(b.keyIdAt(2)); // one id per distinct key
    expect(b.values()).toEqual(['one', null, 'three']);
  });

  it("the leader's copy shares the records section and restamps only the header", () => {
    const produced = buildBatch([{ key: null, value: 'v', timestamp: 5 }], { producerId: 4, producerEpoch: 1, baseSequence: 9 });
    const stored = produced.withOffsets(42, 3);
    expect([stored.baseOffset, stored.partitionLeaderEpoch, stored.producerId, stored.producerEpoch, stored.baseSequence]).toEqual([42, 3, 4, 1, 9]);
    expect(stored.slab).toBe(produced.slab);
    expect(stored.slabAt).toBe(produced.slabAt);
    expect(stored.offsetAt(0)).toBe(42);
    const appendTime = produced.withOffsets(0, 3, 999);
    expect(appendTime.timestampType).toBe('LogAppendTime');
    expect(appendTime.attributes & TIMESTAMP_TYPE_MASK).toBe(TIMESTAMP_TYPE_MASK);
    expect(appendTime.timestampAt(0)).toBe(999);
    expect(produced.timestampAt(0)).toBe(5);
  });

  it('keeps its producer fields in a source its copies share, and serialises the same fields in the same order', () => {
    const t = new PayloadTable('p');
    const batches = [0, 1, 2].map((i) => buildBatch([{ key: null, value: null, timestamp: i }], { payloads: t, producerId: 4, producerEpoch: 300, baseSequence: i, isTransactional: true }));
    const copy = batches[1]!.withOffsets(7, 40_000);
    const fields = (b: object) => JSON.stringify(b);
    // Leader epoch and slab index share one field: both come back, also for an epoch past 32767 and for -1.
    expect([copy.partitionLeaderEpoch, copy.slabAt, copy.producerId, copy.producerEpoch, copy.baseSequence, copy.isTransactional]).toEqual([40_000, batches[1]!.slabAt, 4, 300, 1, true]);
    expect([batches[2]!.partitionLeaderEpoch, batches[2]!.slabAt]).toEqual([-1, 2 * 4]);
    // Either side of the int32 boundary of the packed field (shifts below it, division above): the same two numbers.
    for (const epoch of [0, 32_766, 32_767, 32_768]) expect([batches[2]!.withOffsets(9, epoch).partitionLeaderEpoch, batches[2]!.withOffsets(9, epoch).slabAt]).toEqual([epoch, 2 * 4]);
    expect(Object.keys(copy.toJSON())).toEqual(['baseOffset', 'partitionLeaderEpoch', 'lastOffsetDelta', 'attributes', 'baseTimestamp', 'maxTimestamp', 'producerId', 'producerEpoch', 'baseSequence', 'sizeInBytes', 'payloads', 'slab', 'slabAt', 'extras']);
    expect(fields(copy)).toBe(fields({ ...JSON.parse(fields(batches[1]!)), baseOffset: 7, partitionLeaderEpoch: 40_000 }));
    // One source for the three batches and the copy (same slab, same producer): one reference per batch, not five fields.
    const sourceOf = (b: object) => (b as { source: unknown }).source;
    expect(new Set([...batches, copy].map(sourceOf)).size).toBe(1);
    // Another producer's batch in the same table gets a source of its own; so does a LogAppendTime copy.
    const other = buildBatch([{ key: null, value: null, timestamp: 0 }], { payloads: t, producerId: 5 });
    expect([sourceOf(other) === sourceOf(copy), other.producerId, sourceOf(copy.withOffsets(0, 0, 9)) === sourceOf(copy)]).toEqual([false, 5, false]);
    expect(() => batches[0]!.withOffsets(0, -2)).toThrow(RangeError);
  });

  it('keeps a last offset delta and max timestamp that do not fit its packed field exactly', () => {
    const span = buildBatch([{ key: null, value: 'a', timestamp: 5 }, { key: null, value: 'b', timestamp: 5 + 100_000 }]);
    expect([span.lastOffsetDelta, span.maxTimestamp, span.timestampAt(1)]).toEqual([1, 100_005, 100_005]);
    const t = new PayloadTable('p');
    const many = new BatchBuilder(t);
    for (let i = 0; i < 40_000; i++) many.append(NULL_ID, t.nextCountedValue(), 1, 10 + (i % 3));
    const big = many.build().withOffsets(2 ** 40, 1);
    expect([big.lastOffsetDelta, big.maxTimestamp, big.recordCount, big.offsetAt(39_999), big.valueAt(39_999)]).toEqual([39_999, 12, 40_000, 2 ** 40 + 39_999, 'p:39999']);
    // LogAppendTime: the append time may be far after, or before, the records' own timestamps.
    const small = buildBatch([{ key: null, value: 'c', timestamp: 1_000_000 }]);
    expect([small.withOffsets(0, 0, 999).maxTimestamp, small.withOffsets(0, 0, 9_000_000).maxTimestamp, small.withOffsets(0, 0, 1_000_010).maxTimestamp]).toEqual([999, 9_000_000, 1_000_010]);
    // A wide batch's narrow copy and a narrow batch's wide copy keep the other fields.
    const back = span.withOffsets(3, 2, 6);
    expect([back.lastOffsetDelta, back.maxTimestamp, back.baseTimestamp, back.partitionLeaderEpoch, back.valueAt(1)]).toEqual([1, 6, 5, 2, 'b']);
  });

  it("the cleaner's copy keeps its survivors' offsets, the batch's last offset and a new delete horizon", () => {
    const b = buildBatch(['a', 'b', 'c', 'd'].map((k, i) => ({ key: k, value: i === 3 ? null : `v${i}`, timestamp: i }))).withOffsets(10, 0);
    const kept = b.retaining([1, 3], 5000);
    expect(kept.recordCount).toBe(2);
    expect([kept.offsetAt(0), kept.offsetAt(1), kept.baseOffset + kept.lastOffsetDelta]).toEqual([11, 13, 13]);
    expect([kept.keyAt(0), kept.valueAt(0), kept.keyAt(1), kept.valueAt(1)]).toEqual(['b', 'v1', 'd', null]);
    expect([kept.hasDeleteHorizon, kept.deleteHorizonMs]).toEqual([true, 5000]);
    expect(kept.sizeInBytes).toBeLessThan(b.sizeInBytes);
    const empty = b.retaining([], NO_DELETE_HORIZON);
    expect([empty.recordCount, empty.sizeInBytes, empty.hasDeleteHorizon, empty.lastOffsetDelta]).toEqual([0, RECORD_BATCH_OVERHEAD, false, 3]);
    expect(b.deleteHorizonMs).toBe(NO_DELETE_HORIZON);
  });

  it('keeps headers per record, and a control batch names its marker by its key', () => {
    const b = buildBatch([
      { key: null, value: 'a', timestamp: 0 },
      { key: null, value: 'b', timestamp: 0, headers: [{ key: 'trace', value: 'x1' }] },
    ]);
    expect(b.headersAt(0)).toEqual([]);
    expect(b.recordList()[1]!.headers).toEqual([{ key: 'trace', value: 'x1' }]);
    const marker = buildControlBatch('ABORT', 10, { producerId: 7, producerEpoch: 2 });
    expect([marker.isControl, marker.isTransactional, marker.controlType, marker.producerId]).toEqual([true, true, 'ABORT', 7]);
    expect(marker.attributes & (CONTROL_FLAG_MASK | TRANSACTIONAL_FLAG_MASK)).toBe(CONTROL_FLAG_MASK | TRANSACTIONAL_FLAG_MASK);
    expect(b.controlType).toBeUndefined();
  });
});

describe('PayloadTable', () => {
  it("names a workload's counted values without storing them, and refuses to store in such a table", () => {
    const t = new PayloadTable('producer-1');
    expect([t.nextCountedValue(), t.nextCountedValue()]).toEqual([0, 1]);
    expect(t.valueText(1)).toBe('producer-1:1');
    expect(t.addValue(null)).toBe(NULL_ID);
    expect(() => t.addValue('x')).toThrow(/counts its values/);
    expect(() => new PayloadTable().nextCountedValue()).toThrow(/stores its values/);
  });

  it("holds a real client's bytes and null, and sizes keys in UTF-8 bytes", () => {
    const t = new PayloadTable();
    const bytes = new Uint8Array([0xc3, 0xa9, 0x21]);
    const v = t.addValue(bytes);
    expect(t.value(v)).toBe(bytes);
    expect(t.valueText(v)).toBe('é!');
    expect(t.storedValueSize(v)).toBe(3);
    expect(t.valueText(NULL_ID)).toBeNull();
    const k = t.internKey('é');
    expect([t.keySize(k), t.keySize(NULL_ID), t.internKey('é')]).toEqual([2, -1, k]);
    const kb = t.internKey(new Uint8Array([1, 2]));
    expect([t.internKey(new Uint8Array([1, 2])), t.keySize(kb)]).toEqual([kb, 2]);
    // Bytes that are not UTF-8 show as marked base64: distinct bytes, distinct text.
    expect(t.valueText(t.addValue(new Uint8Array([0xff, 0x00])))).toBe('\u0000b64:/wA=');
    expect(t.keyText(t.internKey(new Uint8Array([0, 0x41])))).toBe('\u0000b64:AEE=');
  });

  it("numbers a key `<prefix><n>` for the trace's readers only where prefix + n spells the key again", () => {
    const t = new PayloadTable();
    const numbered = (key: string | null) => {
      const id = key === null ? NULL_ID : t.internKey(key);
      return [t.keyPrefix(id), t.keyNumber(id)];
    };
    expect(numbered('k42')).toEqual(['k', 42]);
    expect(numbered('order-0')).toEqual(['order-', 0]);
    expect(numbered('7')).toEqual(['', 7]);
    // A leading zero, ten digits, no digits, no key: the text is the key.
    for (const key of ['k007', 'k1234567890', 'hot', null]) expect(numbered(key)).toEqual([null, -1]);
    expect([t.keyPrefix(t.internKey(new Uint8Array([0x6b, 0x31]))), t.keyNumber(t.internKey(new Uint8Array([0x6b, 0x31])))]).toEqual([null, -1]);
  });

  it('batches built after a slab fills keep their own records intact', () => {
    const t = new PayloadTable('p');
    const built = Array.from({ length: 300 }, (_, i) => {
      const b = new BatchBuilder(t);
      for (let r = 0; r < 50; r++) b.append(t.internKey(`k${r}`), t.nextCountedValue(), 10, i);
      return b.build();
    });
    expect(new Set(built.map((b) => b.slab)).size).toBeGreaterThan(1);
    expect(built.every((b, i) => b.valueAt(0) === `p:${i * 50}` && b.valueAt(49) === `p:${i * 50 + 49}` && b.keyAt(7) === 'k7')).toBe(true);
  });
});
