import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toSimBatch, toWireBatch } from '../../../sim/kafka/wire/simRecords';
import { NO_DELETE_HORIZON } from '../../../sim/kafka/records';
import { payloadText } from '../../../sim/kafka/payloadTable';
import { decodeBatches, encodeBatches, writeBatch, type WireRecordBatch } from '../../../sim/kafka/wire/records/recordBatch';
import { ByteWriter } from '../../../sim/kafka/wire/codec/bytes';
import { assignOffsets } from '../../../sim/kafka/records';

describe("a client's record bytes as the simulator shows them", () => {
  it('distinct byte strings show as distinct text, and UTF-8 text is itself', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
        const same = a.length === b.length && a.every((x, i) => x === b[i]);
        expect(payloadText(a) === payloadText(b)).toBe(same);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !s.startsWith('\u0000')), (s) => {
        expect(payloadText(new TextEncoder().encode(s))).toBe(s);
      }),
      { numRuns: 300 },
    );
  });

  it("a batch keeps the client's own bytes while its records are untouched, and is re-encoded equal when they are not", () => {
    const bytes = fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null });
    fc.assert(
      fc.property(fc.array(fc.record({ key: bytes, value: bytes }), { minLength: 1, maxLength: 5 }), fc.constantFrom('none' as const, 'gzip' as const), (rs, compression) => {
        const w: WireRecordBatch = {
          baseOffset: 0,
          partitionLeaderEpoch: -1,
          compression,
          timestampType: 'CreateTime',
          isTransactional: false,
          isControl: false,
          hasDeleteHorizonMs: false,
          lastOffsetDelta: rs.length - 1,
          baseTimestamp: 5_000_000,
          maxTimestamp: 5_000_000 + rs.length - 1, // the records' own maximum, as a producer writes it
          producerId: 7,
          producerEpoch: 0,
          baseSequence: 3,
          records: rs.map((r, i) => ({ timestampDelta: i, offsetDelta: i, key: r.key, value: r.value, headers: [{ key: 'h', value: r.value }] })),
        };
        const d = decodeBatches(encodeBatches([w]));
        if (!d.ok) throw new Error(d.message);
        const sim = assignOffsets(toSimBatch(d.batches[0]!, d.sections[0]!, 100, 1_000_000), 40, 2);
        const kept = toWireBatch(sim, 1_000_000);
        expect(kept.section.bytes).toEqual(d.sections[0]!.bytes);
        // A cleaner's rewrite keeping every record drops the client's section: encoded afresh, it reads back the same records.
        const rewritten = toWireBatch(sim.retaining(rs.map((_, i) => i), NO_DELETE_HORIZON), 1_000_000);
        const out = new ByteWriter();
        writeBatch(out, rewritten.batch, rewritten.section);
        const back = decodeBatches(out.toBytes());
        if (!back.ok) throw new Error(back.message);
        expect(back.batches[0]).toEqual({ ...w, baseOffset: 40, partitionLeaderEpoch: 2 });
      }),
      { numRuns: 100 },
    );
  });
});
