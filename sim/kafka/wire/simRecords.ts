import type { KafkaRecord, RecordBatch, RecordHeader } from '../records';
import { utf8Encode } from './codec/bytes';
import { canCompress, compress } from './compression';
import { encodeRecords, type RecordsSection, type WireRecord, type WireRecordBatch } from './records/recordBatch';

/**
 * The one place where a client's record batches become the simulator's and back. The simulator keeps keys,
 * values and header values as text (the checkers compare values, the UI prints them); a client's bytes map to
 * text reversibly: UTF-8 as itself, anything else as a marked base64 string, so every byte survives the trip
 * through the log and back to a consumer. The batch also keeps the client's own records section, so a fetch
 * returns the very bytes (compressed ones included) that were produced.
 *
 * Timestamps: the simulated clock starts at 0; on the wire it reads `epochMs` later (a client's clock says 2026,
 * the simulator's says 0), so `wireTime = simTime + epochMs` for every timestamp that crosses.
 */

const BYTES_MARK = '\u0000b64:';
/** A header whose value is null (the simulator's header values are text). */
const NULL_HEADER_VALUE = '\u0000null';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The simulator's text for a client's bytes. */
export function bytesToText(b: Uint8Array): string {
  if (b.length === 0 || b[0] !== 0) {
    try {
      return strictUtf8.decode(b);
    } catch {
      // not UTF-8: fall through
    }
  }
  return BYTES_MARK + base64(b);
}

/** The client's bytes for the simulator's text. */
export function textToBytes(s: string): Uint8Array {
  if (s.startsWith(BYTES_MARK)) return fromBase64(s.slice(BYTES_MARK.length));
  return utf8Encode(s);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < b.length ? B64[(n >> 6) & 63]! : '=') + (i + 2 < b.length ? B64[n & 63]! : '=');
  }
  return out;
}

function fromBase64(s: string): Uint8Array {
  const clean = s.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (const c of clean) {
    const v = B64.indexOf(c);
    if (v < 0) continue;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

function shift(ts: number, by: number): number {
  return ts < 0 ? ts : ts + by;
}

/**
 * A client's batch as the simulator's RecordBatch (offsets from 0 until the leader assigns them). `section` is
 * the records section as it arrived; `sizeInBytes` the batch's size on the wire.
 */
export function toSimBatch(w: WireRecordBatch, section: RecordsSection, sizeInBytes: number, epochMs: number): RecordBatch {
  const records: KafkaRecord[] = w.records.map((r) => ({
    offsetDelta: r.offsetDelta,
    timestampDelta: r.timestampDelta,
    key: r.key === null ? null : bytesToText(r.key),
    value: r.value === null ? null : bytesToText(r.value),
    valueSize: r.value?.length ?? 0,
    headers: r.headers.map((h): RecordHeader => ({ key: h.key, value: h.value === null ? NULL_HEADER_VALUE : bytesToText(h.value) })),
  }));
  return {
    baseOffset: 0,
    lastOffsetDelta: w.lastOffsetDelta,
    partitionLeaderEpoch: -1,
    producerId: w.producerId,
    producerEpoch: w.producerEpoch,
    baseSequence: w.baseSequence,
    timestampType: w.timestampType,
    baseTimestamp: shift(w.baseTimestamp, -epochMs),
    maxTimestamp: shift(w.maxTimestamp, -epochMs),
    compression: w.compression,
    isTransactional: w.isTransactional,
    isControl: w.isControl,
    records,
    sizeInBytes,
    wireRecords: { records, compression: w.compression, bytes: section.bytes },
  };
}

function toWireRecord(r: KafkaRecord): WireRecord {
  return {
    timestampDelta: r.timestampDelta,
    offsetDelta: r.offsetDelta,
    key: r.key === null ? null : textToBytes(r.key),
    value: r.value === null ? null : textToBytes(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: h.value === NULL_HEADER_VALUE ? null : textToBytes(h.value) })),
  };
}

/**
 * The simulator's batch as a client reads it, with its records section: the client's own bytes when the batch
 * still holds the records they were decoded into, else the records encoded here (compressed with the batch's
 * codec when we have it, else sent uncompressed).
 */
export function toWireBatch(b: RecordBatch, epochMs: number): { batch: WireRecordBatch; section: RecordsSection } {
  const kept = b.wireRecords !== undefined && b.wireRecords.records === b.records && b.wireRecords.compression === b.compression;
  const compression = kept || canCompress(b.compression) ? b.compression : 'none';
  const horizon = b.deleteHorizonMs;
  const batch: WireRecordBatch = {
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression,
    timestampType: b.timestampType,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    hasDeleteHorizonMs: horizon !== undefined,
    lastOffsetDelta: b.lastOffsetDelta,
    baseTimestamp: shift(horizon ?? b.baseTimestamp, epochMs),
    maxTimestamp: shift(b.maxTimestamp, epochMs),
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    records: [],
  };
  const bytes = kept ? b.wireRecords!.bytes : compress(compression, encodeRecords(b.records.map(toWireRecord)));
  return { batch, section: { count: b.records.length, bytes } };
}
