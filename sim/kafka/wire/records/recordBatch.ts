import type { CompressionType, TimestampType } from '../../records';
import { ByteReader, ByteWriter, WireFormatError, utf8Encode } from '../codec/bytes';
import { crc32c } from '../codec/crc';
import { COMPRESSION_IDS, canDecompress, compress, decompress, InflateError } from '../compression';

/**
 * Record batches in magic v2 [clients/.../common/record/DefaultRecordBatch.java, DefaultRecord.java; docs:
 * "Record Batch"]:
 *
 *   baseOffset int64, batchLength int32, partitionLeaderEpoch int32, magic int8 (2), crc uint32,
 *   attributes int16, lastOffsetDelta int32, baseTimestamp int64, maxTimestamp int64, producerId int64,
 *   producerEpoch int16, baseSequence int32, recordCount int32, records...
 *
 * The CRC-32C covers everything from the attributes to the end, so a broker can rewrite the base offset and the
 * partition leader epoch without recomputing it. Attributes: bits 0-2 compression, bit 3 timestamp type
 * (1 = LogAppendTime), bit 4 transactional, bit 5 control, bit 6 "baseTimestamp is the delete horizon" (KIP-534).
 * A record: length varint, attributes int8 (unused), timestampDelta varlong, offsetDelta varint, key and value
 * as varint length (-1 = null) plus bytes, then headers (a varint count of key/value pairs).
 */

export const MAGIC_V2 = 2;
/** baseOffset + batchLength: the part of the batch not counted in batchLength [Records.LOG_OVERHEAD]. */
export const LOG_OVERHEAD = 12;
/** The batch header up to the first record [DefaultRecordBatch.RECORD_BATCH_OVERHEAD]. */
export const RECORD_BATCH_OVERHEAD = 61;
/** Where the CRC-covered part (attributes onward) starts. */
const ATTRIBUTES_OFFSET = 21;
const CRC_OFFSET = 17;

const COMPRESSION_MASK = 0x07;
const TIMESTAMP_TYPE_MASK = 0x08;
const TRANSACTIONAL_FLAG = 0x10;
const CONTROL_FLAG = 0x20;
const DELETE_HORIZON_FLAG = 0x40;

export interface WireRecordHeader {
  readonly key: string;
  readonly value: Uint8Array | null;
}

export interface WireRecord {
  readonly timestampDelta: number;
  readonly offsetDelta: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly WireRecordHeader[];
}

export interface WireRecordBatch {
  readonly baseOffset: number;
  readonly partitionLeaderEpoch: number;
  readonly compression: CompressionType;
  readonly timestampType: TimestampType;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  /** KIP-534: set on batches the cleaner rewrote with tombstones; baseTimestamp then holds the delete horizon. */
  readonly hasDeleteHorizonMs: boolean;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly records: readonly WireRecord[];
}

/** The records section of a batch as sent: its (possibly compressed) bytes and how many records they hold. */
export interface RecordsSection {
  readonly count: number;
  readonly bytes: Uint8Array;
}

export function attributesOf(b: Pick<WireRecordBatch, 'compression' | 'timestampType' | 'isTransactional' | 'isControl' | 'hasDeleteHorizonMs'>): number {
  let a = COMPRESSION_IDS.indexOf(b.compression);
  if (b.timestampType === 'LogAppendTime') a |= TIMESTAMP_TYPE_MASK;
  if (b.isTransactional) a |= TRANSACTIONAL_FLAG;
  if (b.isControl) a |= CONTROL_FLAG;
  if (b.hasDeleteHorizonMs) a |= DELETE_HORIZON_FLAG;
  return a;
}

/** The uncompressed bytes of the records, back to back. */
export function encodeRecords(records: readonly WireRecord[]): Uint8Array {
  const w = new ByteWriter(64 * records.length + 16);
  const body = new ByteWriter(64);
  for (const r of records) {
    const start = body.length;
    body.int8(0);
    body.varlong(r.timestampDelta);
    body.varint(r.offsetDelta);
    writeVarBytes(body, r.key);
    writeVarBytes(body, r.value);
    body.varint(r.headers.length);
    for (const h of r.headers) {
      writeVarBytes(body, utf8Encode(h.key));
      writeVarBytes(body, h.value);
    }
    w.varint(body.length - start);
    w.raw(body.peek(start, body.length));
  }
  return w.toBytes();
}

function writeVarBytes(w: ByteWriter, b: Uint8Array | null): void {
  if (b === null) w.varint(-1);
  else w.varint(b.length).raw(b);
}

/** The records section a batch would carry: its records encoded and compressed with its codec. */
export function recordsSection(b: WireRecordBatch): RecordsSection {
  return { count: b.records.length, bytes: compress(b.compression, encodeRecords(b.records)) };
}

/**
 * Writes one batch. `section` reuses records bytes already encoded (a batch kept as a client sent it); otherwise
 * the records are encoded and compressed here.
 */
export function writeBatch(w: ByteWriter, b: WireRecordBatch, section: RecordsSection = recordsSection(b)): void {
  const start = w.length;
  w.int64(b.baseOffset);
  w.int32(0); // batchLength, patched below
  w.int32(b.partitionLeaderEpoch);
  w.int8(MAGIC_V2);
  w.uint32(0); // crc, patched below
  w.int16(attributesOf(b));
  w.int32(b.lastOffsetDelta);
  w.int64(b.baseTimestamp);
  w.int64(b.maxTimestamp);
  w.int64(b.producerId);
  w.int16(b.producerEpoch);
  w.int32(b.baseSequence);
  w.int32(section.count);
  w.raw(section.bytes);
  w.patchInt32(start + 8, w.length - start - LOG_OVERHEAD);
  w.patchUint32(start + CRC_OFFSET, crc32c(w.peek(start + ATTRIBUTES_OFFSET, w.length)));
}

export function encodeBatches(batches: readonly WireRecordBatch[]): Uint8Array {
  const w = new ByteWriter(256);
  for (const b of batches) writeBatch(w, b);
  return w.toBytes();
}

/** Why a records field was refused, named as the Kafka error a broker answers with. */
export type RecordsError = 'CORRUPT_MESSAGE' | 'INVALID_RECORD' | 'UNSUPPORTED_COMPRESSION_TYPE';

export type DecodedBatches =
  | {
      readonly ok: true;
      readonly batches: readonly WireRecordBatch[];
      /** Each batch's records section as it arrived (compressed bytes kept as they are). */
      readonly sections: readonly RecordsSection[];
      /** Bytes at the end too short to be a whole batch (a fetch response may end that way; a produce must not). */
      readonly partialTail: number;
    }
  | { readonly ok: false; readonly error: RecordsError; readonly message: string };

export interface DecodeOptions {
  /** The most a compressed records section may inflate to. */
  readonly maxUncompressedBytes?: number;
}

/**
 * Reads the batches of a records field [DefaultRecordBatch.ensureValid: size, magic, CRC]. Never throws: bytes
 * that do not parse come back as CORRUPT_MESSAGE or INVALID_RECORD, a codec we lack as UNSUPPORTED_COMPRESSION_TYPE.
 */
export function decodeBatches(bytes: Uint8Array, opts: DecodeOptions = {}): DecodedBatches {
  const batches: WireRecordBatch[] = [];
  const sections: RecordsSection[] = [];
  let pos = 0;
  try {
    while (bytes.length - pos >= LOG_OVERHEAD) {
      const r = new ByteReader(bytes, pos);
      r.int64();
      const batchLength = r.int32();
      if (batchLength < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
        return { ok: false, error: 'CORRUPT_MESSAGE', message: `a record batch length of ${batchLength} is below the minimum ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}` };
      }
      const end = pos + LOG_OVERHEAD + batchLength;
      if (end > bytes.length) break; // a partial batch at the end
      const decoded = decodeOneBatch(bytes, pos, end, opts);
      if (!decoded.ok) return decoded;
      batches.push(decoded.batch);
      sections.push(decoded.section);
      pos = end;
    }
  } catch (e) {
    // A WireFormatError is bytes that do not parse; anything else would be a bug here, named so that the fuzz test
    // (and a trace reader) can tell the two apart.
    const message = e instanceof WireFormatError ? e.message : `unexpected ${e instanceof Error ? e.name : 'error'}: ${String(e)}`;
    return { ok: false, error: 'CORRUPT_MESSAGE', message };
  }
  return { ok: true, batches, sections, partialTail: bytes.length - pos };
}

function decodeOneBatch(
  bytes: Uint8Array,
  start: number,
  end: number,
  opts: DecodeOptions,
): { ok: true; batch: WireRecordBatch; section: RecordsSection } | { ok: false; error: RecordsError; message: string } {
  const r = new ByteReader(bytes, start, end);
  const baseOffset = r.int64();
  r.int32();
  const partitionLeaderEpoch = r.int32();
  const magic = r.int8();
  if (magic !== MAGIC_V2) return { ok: false, error: 'INVALID_RECORD', message: `record batch magic ${magic} is not 2 (Kafka 4 accepts only v2 batches)` };
  const crc = r.uint32();
  const computed = crc32c(bytes, start + ATTRIBUTES_OFFSET, end);
  if (crc !== computed) return { ok: false, error: 'CORRUPT_MESSAGE', message: `record batch CRC ${crc} does not match the computed ${computed}` };
  const attributes = r.int16();
  const codecId = attributes & COMPRESSION_MASK;
  const compression = COMPRESSION_IDS[codecId];
  if (compression === undefined) return { ok: false, error: 'CORRUPT_MESSAGE', message: `compression codec id ${codecId} is unknown` };
  const lastOffsetDelta = r.int32();
  const baseTimestamp = r.int64();
  const maxTimestamp = r.int64();
  const producerId = r.int64();
  const producerEpoch = r.int16();
  const baseSequence = r.int32();
  const count = r.int32();
  if (count < 0) return { ok: false, error: 'CORRUPT_MESSAGE', message: `a record count of ${count}` };
  const sectionBytes = bytes.slice(r.pos, end);
  if (!canDecompress(compression)) {
    return { ok: false, error: 'UNSUPPORTED_COMPRESSION_TYPE', message: `records compressed with ${compression} cannot be read by this simulated broker (none, gzip, snappy and lz4 can)` };
  }
  let plain: Uint8Array;
  try {
    plain = decompress(compression, sectionBytes, opts.maxUncompressedBytes ?? 1 << 28);
  } catch (e) {
    if (e instanceof InflateError) return { ok: false, error: 'CORRUPT_MESSAGE', message: `the ${compression} records do not decompress: ${e.message}` };
    throw e;
  }
  const rr = new ByteReader(plain);
  if (count > rr.remaining) return { ok: false, error: 'CORRUPT_MESSAGE', message: `a batch claims ${count} records in ${rr.remaining} bytes` };
  const records: WireRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const len = rr.varint();
    if (len < 0 || len > rr.remaining) return { ok: false, error: 'CORRUPT_MESSAGE', message: `record ${i} claims ${len} bytes, ${rr.remaining} remain` };
    const recEnd = rr.pos + len;
    const one = new ByteReader(plain, rr.pos, recEnd);
    one.int8();
    const timestampDelta = one.varlong();
    const offsetDelta = one.varint();
    const key = readVarBytes(one);
    const value = readVarBytes(one);
    const nh = one.varint();
    if (nh < 0 || nh > one.remaining) return { ok: false, error: 'CORRUPT_MESSAGE', message: `record ${i} claims ${nh} headers` };
    const headers: WireRecordHeader[] = [];
    for (let h = 0; h < nh; h++) {
      const hk = readVarBytes(one);
      if (hk === null) return { ok: false, error: 'CORRUPT_MESSAGE', message: `record ${i} has a header with a null key` };
      let name: string;
      try {
        name = new TextDecoder('utf-8', { fatal: true }).decode(hk);
      } catch {
        return { ok: false, error: 'CORRUPT_MESSAGE', message: `record ${i} has a header key that is not UTF-8` };
      }
      headers.push({ key: name, value: readVarBytes(one) });
    }
    if (one.pos !== recEnd) return { ok: false, error: 'CORRUPT_MESSAGE', message: `record ${i} has ${recEnd - one.pos} bytes left over` };
    rr.pos = recEnd;
    records[i] = { timestampDelta, offsetDelta, key: key?.slice() ?? null, value: value?.slice() ?? null, headers: headers.map((h) => ({ key: h.key, value: h.value?.slice() ?? null })) };
  }
  if (rr.remaining !== 0) return { ok: false, error: 'CORRUPT_MESSAGE', message: `${rr.remaining} bytes follow the batch's ${count} records` };
  return {
    ok: true,
    batch: {
      baseOffset,
      partitionLeaderEpoch,
      compression,
      timestampType: attributes & TIMESTAMP_TYPE_MASK ? 'LogAppendTime' : 'CreateTime',
      isTransactional: (attributes & TRANSACTIONAL_FLAG) !== 0,
      isControl: (attributes & CONTROL_FLAG) !== 0,
      hasDeleteHorizonMs: (attributes & DELETE_HORIZON_FLAG) !== 0,
      lastOffsetDelta,
      baseTimestamp,
      maxTimestamp,
      producerId,
      producerEpoch,
      baseSequence,
      records,
    },
    section: { count, bytes: sectionBytes },
  };
}

function readVarBytes(r: ByteReader): Uint8Array | null {
  const n = r.varint();
  if (n === -1) return null;
  if (n < -1) throw new WireFormatError(`a length of ${n}`);
  return r.raw(n);
}

// ---- control records (transaction markers) [ControlRecordType.java, EndTransactionMarker.java] ----

export type ControlRecordType = 'ABORT' | 'COMMIT';

/** The key of a control record: version int16 (0), type int16 (0 abort, 1 commit). */
export function controlRecordKey(type: ControlRecordType): Uint8Array {
  return new ByteWriter(4).int16(0).int16(type === 'ABORT' ? 0 : 1).toBytes();
}

/** The value of an end-transaction marker: version int16 (0), coordinator epoch int32. */
export function endTxnMarkerValue(coordinatorEpoch: number): Uint8Array {
  return new ByteWriter(6).int16(0).int32(coordinatorEpoch).toBytes();
}

/** The type of a control record from its key, or null when it is not one this version knows. */
export function controlRecordType(key: Uint8Array | null): ControlRecordType | null {
  if (key === null || key.length < 4) return null;
  const r = new ByteReader(key);
  r.int16();
  const t = r.int16();
  return t === 0 ? 'ABORT' : t === 1 ? 'COMMIT' : null;
}
