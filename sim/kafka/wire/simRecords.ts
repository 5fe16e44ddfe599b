import { BatchBuilder, PayloadTable, type Payload, type RecordBatch } from '../records';
import { utf8Encode } from './codec/bytes';
import { canCompress, compress } from './compression';
import { encodeRecords, type RecordsSection, type WireRecord, type WireRecordBatch } from './records/recordBatch';

/**
 * The one place where a client's record batches become the simulator's and back. A client's keys, values and
 * header values are kept as its bytes, in a payload table of the batch's own (the trace and the UI show them as
 * text: UTF-8, or marked base64 when they are not, see PayloadTable); text the simulator's own clients wrote goes
 * out as UTF-8. The batch also keeps the client's own records section, so a fetch returns the very bytes
 * (compressed ones included) that were produced.
 *
 * Timestamps: the simulated clock starts at 0; on the wire it reads `epochMs` later (a client's clock says 2026,
 * the simulator's says 0), so `wireTime = simTime + epochMs` for every timestamp that crosses.
 */

function shift(ts: number, by: number): number {
  return ts < 0 ? ts : ts + by;
}

function bytesOf(p: Payload | null): Uint8Array | null {
  return p === null ? null : typeof p === 'string' ? utf8Encode(p) : p;
}

/**
 * A client's batch as the simulator's RecordBatch (offsets from 0 until the leader assigns them; produce.ts has
 * checked they run 0..n-1). `section` is the records section as it arrived; `sizeInBytes` the batch's size on
 * the wire.
 */
export function toSimBatch(w: WireRecordBatch, section: RecordsSection, sizeInBytes: number, epochMs: number): RecordBatch {
  const table = new PayloadTable();
  const b = new BatchBuilder(table);
  const base = shift(w.baseTimestamp, -epochMs);
  for (const r of w.records) {
    b.append(table.internKey(r.key), table.addValue(r.value), r.value?.length ?? 0, base + r.timestampDelta, r.headers);
  }
  return b.build({
    compression: w.compression,
    producerId: w.producerId,
    producerEpoch: w.producerEpoch,
    baseSequence: w.baseSequence,
    isTransactional: w.isTransactional,
    wire: { sizeInBytes, records: { compression: w.compression, bytes: section.bytes } },
  });
}

function toWireRecords(b: RecordBatch): WireRecord[] {
  const out: WireRecord[] = [];
  const t = b.payloads;
  for (let i = 0; i < b.recordCount; i++) {
    out.push({
      timestampDelta: b.timestampDeltaAt(i),
      offsetDelta: b.offsetDeltaAt(i),
      key: bytesOf(t.key(b.keyIdAt(i))),
      value: bytesOf(t.value(b.valueIdAt(i))),
      headers: b.headersAt(i).map((h) => ({ key: h.key, value: bytesOf(h.value) })),
    });
  }
  return out;
}

/**
 * The simulator's batch as a client reads it, with its records section: the client's own bytes when the batch
 * still holds the records they were decoded into (the leader's copy does, a cleaned one does not), else the
 * records encoded here (compressed with the batch's codec when we have it, else sent uncompressed).
 */
export function toWireBatch(b: RecordBatch, epochMs: number): { batch: WireRecordBatch; section: RecordsSection } {
  const wire = b.extras?.wireRecords;
  const kept = wire !== undefined && wire.compression === b.compression;
  const compression = kept || canCompress(b.compression) ? b.compression : 'none';
  const horizon = b.hasDeleteHorizon;
  const batch: WireRecordBatch = {
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression,
    timestampType: b.timestampType,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    hasDeleteHorizonMs: horizon,
    lastOffsetDelta: b.lastOffsetDelta,
    baseTimestamp: shift(horizon ? b.deleteHorizonMs : b.baseTimestamp, epochMs),
    maxTimestamp: shift(b.maxTimestamp, epochMs),
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    records: [],
  };
  const bytes = kept ? wire.bytes : compress(compression, encodeRecords(toWireRecords(b)));
  return { batch, section: { count: b.recordCount, bytes } };
}
