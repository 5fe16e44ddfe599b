/**
 * Record batches as Kafka's magic v2 format has them (DefaultRecordBatch / DefaultRecord): one immutable object
 * per batch with the v2 header fields, its records as ids and int32 fields in a slab, and the payload table that
 * turns those ids into keys and values. Sizes follow the wire format so that segment.bytes, batch.size,
 * retention.bytes and the fetch byte limits act as they do in Kafka.
 *
 * A batch is shared by everything that holds it, as the same bytes would be: the leader builds its copy when it
 * assigns offsets (the records section stays the producer's), followers append that object verbatim, disk chunks
 * and the page cache hold it, consumers read it. No per-record objects exist on these paths; `recordList()`
 * builds some for inspection and tests.
 */
import type { NumberedTexts } from '../core/numberedText';
import {
  NULL_ID,
  PayloadTable,
  SLAB_KEY,
  SLAB_STRIDE,
  SLAB_TIMESTAMP_DELTA,
  SLAB_VALUE,
  SLAB_VALUE_SIZE,
  utf8Length,
  type Payload,
} from './payloadTable';

export { NULL_ID, PayloadTable, utf8Length, type Payload };

export type CompressionType = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export const COMPRESSION_TYPES: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/**
 * Modelled size after compression, as a fraction of the uncompressed records section. Our payloads are
 * synthetic, so these are typical ratios for JSON-like text rather than measurements of real bytes.
 */
export const COMPRESSION_RATIO: Readonly<Record<CompressionType, number>> = {
  none: 1,
  gzip: 0.4,
  snappy: 0.6,
  lz4: 0.6,
  zstd: 0.35,
};

export type TimestampType = 'CreateTime' | 'LogAppendTime';

/** A record header: a text key and a value of bytes (text here, a real client's bytes from the wire) or null. */
export interface RecordHeader {
  readonly key: string;
  readonly value: Payload | null;
}

/** One record, built for inspection (`RecordBatch.recordList`): the hot paths read the batch's slab instead. */
export interface KafkaRecord {
  /** Offset of this record = batch.baseOffset + offsetDelta. */
  readonly offsetDelta: number;
  /** Milliseconds relative to the batch's base timestamp. */
  readonly timestampDelta: number;
  /** null = no key. */
  readonly key: string | null;
  /** null = tombstone (on a compacted topic: delete the key). */
  readonly value: string | null;
  /** Size of the value in bytes (the payload a workload models); 0 for a tombstone. */
  readonly valueSize: number;
  readonly headers: readonly RecordHeader[];
}

/** Producer id, epoch and sequence when a batch has none (a non-idempotent producer). */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
/** No delete horizon on the batch. */
export const NO_DELETE_HORIZON = -1;

/** Control record types (transaction markers): a control batch's one record has the type as its key. */
export type ControlType = 'COMMIT' | 'ABORT';

/**
 * The v2 attributes bits. [src: clients/.../record/DefaultRecordBatch.java COMPRESSION_CODEC_MASK,
 * TIMESTAMP_TYPE_MASK, TRANSACTIONAL_FLAG_MASK, CONTROL_FLAG_MASK, DELETE_HORIZON_FLAG_MASK; CompressionType ids]
 */
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;
const COMPRESSION_IDS: Readonly<Record<CompressionType, number>> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

export interface BatchFlags {
  readonly compression?: CompressionType;
  readonly timestampType?: TimestampType;
  readonly isTransactional?: boolean;
  readonly isControl?: boolean;
  readonly hasDeleteHorizon?: boolean;
}

/** The attributes int16 of a v2 batch. */
export function batchAttributes(f: BatchFlags): number {
  return (
    COMPRESSION_IDS[f.compression ?? 'none'] |
    (f.timestampType === 'LogAppendTime' ? TIMESTAMP_TYPE_MASK : 0) |
    (f.isTransactional ? TRANSACTIONAL_FLAG_MASK : 0) |
    (f.isControl ? CONTROL_FLAG_MASK : 0) |
    (f.hasDeleteHorizon ? DELETE_HORIZON_FLAG_MASK : 0)
  );
}

/** What a batch holds beyond the common case (most batches have none: one field less on millions of them). */
export interface BatchExtras {
  /** Each record's offsetDelta when they are not 0, 1, 2, ... (a cleaned batch keeps its survivors' offsets). */
  readonly offsetDeltas: Int32Array | null;
  /** Each record's headers; null when no record has any. */
  readonly headers: readonly (readonly RecordHeader[])[] | null;
  /** Set by the log cleaner the first time it rewrites a batch with tombstones (KIP-534); NO_DELETE_HORIZON otherwise. */
  readonly deleteHorizonMs: number;
  /**
   * The records section exactly as a real client sent it over the wire (sim/kafka/wire), compressed as the
   * batch's compression says: a fetch returns these very bytes. The leader's copy keeps it (same records); the
   * cleaner's copy, which drops records, does not.
   */
  readonly wireRecords?: { readonly compression: CompressionType; readonly bytes: Uint8Array };
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** RECORD_BATCH_OVERHEAD in DefaultRecordBatch. */
export const RECORD_BATCH_OVERHEAD = 61;

/**
 * Where a batch's records are and who wrote them (see payloadTable.ts `SlabSource`): shared by a slab's batches
 * from one producer incarnation without extras, and by every copy of a batch (leader, followers, disk chunks).
 */
interface BatchSource {
  readonly payloads: PayloadTable;
  readonly slab: Int32Array;
  readonly extras: BatchExtras | null;
  readonly producerId: number;
  /** producerEpoch << 16 | attributes. */
  readonly epochAndAttributes: number;
  /** A batch's own last offset delta and max timestamp when they do not fit its packed field (then its source is its own). */
  readonly wide: { readonly lastOffsetDelta: number; readonly maxTimestamp: number } | null;
}

/** A batch's producer epoch and attributes (both int16) as one number. */
function epochAndAttributesOf(producerEpoch: number, attributes: number): number {
  if (producerEpoch !== (producerEpoch << 16) >> 16) throw new RangeError(`producer epoch ${producerEpoch} is not an int16`);
  return (producerEpoch << 16) | (attributes & 0xffff);
}

/** The source of a batch built into `table`'s slab `slab`, with `extras` and its producer fields. */
function sourceOf(table: PayloadTable, slab: Int32Array, extras: BatchExtras | null, producerId: number, epochAndAttributes: number): BatchSource {
  return extras === null && table.slab === slab ? table.sourceFor(producerId, epochAndAttributes) : { payloads: table, slab, extras, producerId, epochAndAttributes, wide: null };
}

/**
 * A batch keeps its last offset delta and its max timestamp (as a difference from its base timestamp) in one int32,
 * lastOffsetDelta << 16 | (maxTimestamp - baseTimestamp), when they fit (fewer than 2^15 records' offsets, a span
 * under 65.5 s: nearly every batch); else the field is WIDE and its own source holds them.
 */
const OFFSET_DELTA_LIMIT = 0x8000;
const TIME_DELTA_LIMIT = 0x10000;
const WIDE = -1;

/**
 * Slab indexes are below this (a slab holds at most 2^16 ints, or one batch's from index 0), so a batch keeps its
 * slab index and its leader epoch in one number: (leaderEpoch + 1) * SLAB_AT_LIMIT + slabAt. A small integer while
 * the epoch is below 32767; exact beyond.
 */
const SLAB_AT_LIMIT = 0x10000;
/** Below this the packed field is a small integer, read with shifts and masks (a division and a floor cost ~1.5% of big). */
const INT32_MAX = 0x7fffffff;

/**
 * One v2 record batch [src: clients/.../record/DefaultRecordBatch.java]. Record i's key id, value id, timestamp
 * delta and value size are `slab[slabAt + 4i ..]`; its key and value are `payloads`'.
 *
 * A log holds one per batch (about one per record in a big run), so it is kept small (80 bytes): the producer id,
 * epoch and attributes (the same for a producer's batches) live in the shared source with the payload table, slab
 * and extras; the leader epoch and slab index share one field, the last offset delta and time span another.
 */
export class RecordBatch {
  /** (partitionLeaderEpoch + 1) * SLAB_AT_LIMIT + slabAt. */
  private readonly epochAndSlabAt: number;
  /** lastOffsetDelta << 16 | (maxTimestamp - baseTimestamp), or WIDE (see OFFSET_DELTA_LIMIT). */
  private readonly deltas: number;
  private readonly source: BatchSource;

  constructor(
    readonly baseOffset: number,
    /** The leader epoch of the leader that appended it (-1 until a leader has). */
    partitionLeaderEpoch: number,
    lastOffsetDelta: number,
    /** Milliseconds. */
    readonly baseTimestamp: number,
    maxTimestamp: number,
    readonly baseSequence: number,
    /** Bytes on disk and on the wire. */
    readonly sizeInBytes: number,
    /** Its producer id, epoch and attributes (compression, timestamp type, transactional, control, delete horizon) with its records. */
    source: BatchSource,
    slabAt: number,
  ) {
    if (!(partitionLeaderEpoch >= -1) || !Number.isInteger(partitionLeaderEpoch)) throw new RangeError(`leader epoch ${partitionLeaderEpoch} is not -1 or more`);
    if (!(slabAt >= 0 && slabAt < SLAB_AT_LIMIT)) throw new RangeError(`slab index ${slabAt} is out of range`);
    this.epochAndSlabAt = (partitionLeaderEpoch + 1) * SLAB_AT_LIMIT + slabAt;
    const span = maxTimestamp - baseTimestamp;
    if (lastOffsetDelta >= 0 && lastOffsetDelta < OFFSET_DELTA_LIMIT && span >= 0 && span < TIME_DELTA_LIMIT && (lastOffsetDelta | 0) === lastOffsetDelta && (span | 0) === span) {
      this.deltas = (lastOffsetDelta << 16) | span;
    } else {
      this.deltas = WIDE;
      const { payloads, slab, extras, producerId, epochAndAttributes } = source;
      source = { payloads, slab, extras, producerId, epochAndAttributes, wide: { lastOffsetDelta, maxTimestamp } };
    }
    this.source = source;
  }

  /** Offset of the last record relative to the base offset (kept when compaction removes records). */
  get lastOffsetDelta(): number {
    const d = this.deltas;
    return d !== WIDE ? d >>> 16 : this.source.wide!.lastOffsetDelta;
  }

  /** Milliseconds: the largest record timestamp, or the append time with LogAppendTime. */
  get maxTimestamp(): number {
    const d = this.deltas;
    return d !== WIDE ? this.baseTimestamp + (d & 0xffff) : this.source.wide!.maxTimestamp;
  }

  /** The leader epoch of the leader that appended it (-1 until a leader has). */
  get partitionLeaderEpoch(): number {
    const v = this.epochAndSlabAt;
    return (v <= INT32_MAX ? v >>> 16 : Math.floor(v / SLAB_AT_LIMIT)) - 1;
  }

  /** Where record 0's fields start in the slab. */
  get slabAt(): number {
    const v = this.epochAndSlabAt;
    return v <= INT32_MAX ? v & 0xffff : v % SLAB_AT_LIMIT;
  }

  get producerId(): number {
    return this.source.producerId;
  }

  /** Compression, timestamp type, transactional, control and delete-horizon bits (`batchAttributes`). */
  get attributes(): number {
    return this.source.epochAndAttributes & 0xffff;
  }

  get producerEpoch(): number {
    return this.source.epochAndAttributes >> 16;
  }

  get payloads(): PayloadTable {
    return this.source.payloads;
  }

  get slab(): Int32Array {
    return this.source.slab;
  }

  get extras(): BatchExtras | null {
    return this.source.extras;
  }

  /** The batch as JSON (a trace that keeps messages writes them): its fields by their names, as it always has. */
  toJSON(): object {
    return {
      baseOffset: this.baseOffset,
      partitionLeaderEpoch: this.partitionLeaderEpoch,
      lastOffsetDelta: this.lastOffsetDelta,
      attributes: this.attributes,
      baseTimestamp: this.baseTimestamp,
      maxTimestamp: this.maxTimestamp,
      producerId: this.producerId,
      producerEpoch: this.producerEpoch,
      baseSequence: this.baseSequence,
      sizeInBytes: this.sizeInBytes,
      payloads: this.payloads,
      slab: this.slab,
      slabAt: this.slabAt,
      extras: this.extras,
    };
  }

  get compression(): CompressionType {
    return COMPRESSION_TYPES[this.attributes & COMPRESSION_CODEC_MASK]!;
  }

  get timestampType(): TimestampType {
    return (this.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 'LogAppendTime' : 'CreateTime';
  }

  get isTransactional(): boolean {
    return (this.attributes & TRANSACTIONAL_FLAG_MASK) !== 0;
  }

  get isControl(): boolean {
    return (this.attributes & CONTROL_FLAG_MASK) !== 0;
  }

  /** A control batch's type: its record's key. [src: ControlRecordType.parse] */
  get controlType(): ControlType | undefined {
    if (!this.isControl || this.recordCount === 0) return undefined;
    return this.keyAt(0) as ControlType;
  }

  get hasDeleteHorizon(): boolean {
    return (this.attributes & DELETE_HORIZON_FLAG_MASK) !== 0;
  }

  /** The KIP-534 delete horizon (Kafka keeps it in baseTimestamp under the flag), NO_DELETE_HORIZON when none. */
  get deleteHorizonMs(): number {
    return this.extras?.deleteHorizonMs ?? NO_DELETE_HORIZON;
  }

  /** Records in the batch: lastOffsetDelta + 1, or fewer once compaction removed some. */
  get recordCount(): number {
    const d = this.extras?.offsetDeltas;
    return d ? d.length : this.lastOffsetDelta + 1;
  }

  // ---- records ----

  offsetAt(i: number): number {
    const d = this.extras?.offsetDeltas;
    return this.baseOffset + (d ? d[i]! : i);
  }

  offsetDeltaAt(i: number): number {
    const d = this.extras?.offsetDeltas;
    return d ? d[i]! : i;
  }

  timestampDeltaAt(i: number): number {
    return this.slab[this.slabAt + i * SLAB_STRIDE + SLAB_TIMESTAMP_DELTA]!;
  }

  /** The record's timestamp: its own (CreateTime) or the batch's append time (LogAppendTime). */
  timestampAt(i: number): number {
    return (this.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? this.maxTimestamp : this.baseTimestamp + this.timestampDeltaAt(i);
  }

  keyIdAt(i: number): number {
    return this.slab[this.slabAt + i * SLAB_STRIDE + SLAB_KEY]!;
  }

  valueIdAt(i: number): number {
    return this.slab[this.slabAt + i * SLAB_STRIDE + SLAB_VALUE]!;
  }

  /** The value's declared size in bytes (0 for a tombstone). */
  valueSizeAt(i: number): number {
    return this.slab[this.slabAt + i * SLAB_STRIDE + SLAB_VALUE_SIZE]!;
  }

  /** The key as text, or null. */
  keyAt(i: number): string | null {
    return this.payloads.keyText(this.keyIdAt(i));
  }

  /** The value as text, or null for a tombstone. */
  valueAt(i: number): string | null {
    return this.payloads.valueText(this.valueIdAt(i));
  }

  isTombstoneAt(i: number): boolean {
    return this.valueIdAt(i) === NULL_ID;
  }

  headersAt(i: number): readonly RecordHeader[] {
    return this.extras?.headers?.[i] ?? NO_HEADERS;
  }

  /** Every record's value as text (the trace's lists of values). */
  values(): (string | null)[] {
    const n = this.recordCount;
    const out = new Array<string | null>(n);
    for (let i = 0; i < n; i++) out[i] = this.valueAt(i);
    return out;
  }

  /** The numbers of `values()` when the values are counted (handed to the trace's readers beside it), else undefined. */
  valueNumbers(): NumberedTexts | undefined {
    const prefix = this.payloads.countedPrefix;
    if (prefix === null) return undefined;
    const n = this.recordCount;
    const numbers = new Int32Array(n);
    for (let i = 0; i < n; i++) numbers[i] = this.valueIdAt(i);
    return { prefixes: [prefix], prefixOf: null, n: numbers };
  }

  /** The records as objects: for inspection and tests, never on a hot path. */
  recordList(): KafkaRecord[] {
    const out: KafkaRecord[] = [];
    const n = this.recordCount;
    for (let i = 0; i < n; i++) {
      out.push({
        offsetDelta: this.offsetDeltaAt(i),
        timestampDelta: this.timestampDeltaAt(i),
        key: this.keyAt(i),
        value: this.valueAt(i),
        valueSize: this.valueSizeAt(i),
        headers: this.headersAt(i),
      });
    }
    return out;
  }

  // ---- copies ----

  /**
   * The leader's copy: offsets assigned from `baseOffset`, stamped with its leader epoch, and with LogAppendTime
   * its append time as the max timestamp. The records section is the same. [src: LogValidator
   * `assignOffsetsNonCompressed` / `validateMessagesAndAssignOffsetsCompressed` (in-place header rewrite)]
   */
  withOffsets(baseOffset: number, leaderEpoch: number, logAppendTimeMs?: number): RecordBatch {
    const appendTime = logAppendTimeMs !== undefined;
    const src = this.source;
    return new RecordBatch(
      baseOffset,
      leaderEpoch,
      this.lastOffsetDelta,
      this.baseTimestamp,
      appendTime ? logAppendTimeMs : this.maxTimestamp,
      this.baseSequence,
      this.sizeInBytes,
      appendTime && (src.epochAndAttributes & TIMESTAMP_TYPE_MASK) === 0
        ? sourceOf(src.payloads, src.slab, src.extras, src.producerId, src.epochAndAttributes | TIMESTAMP_TYPE_MASK)
        : src,
      this.slabAt,
    );
  }

  /**
   * The cleaner's copy: only the records at `keep` (indexes, ascending), with their offsets, the same base and
   * last offset, and `deleteHorizonMs` (NO_DELETE_HORIZON for none). [src: MemoryRecords `filterTo`,
   * `buildRetainedRecordsInto`]
   */
  retaining(keep: readonly number[], deleteHorizonMs: number): RecordBatch {
    const n = keep.length;
    const table = this.payloads;
    const at = n === 0 ? 0 : table.allocate(n);
    const slab = n === 0 ? EMPTY_SLAB : table.slab;
    const offsetDeltas = new Int32Array(n);
    const srcHeaders = this.extras?.headers ?? null;
    const headers: (readonly RecordHeader[])[] | null = srcHeaders ? [] : null;
    let body = 0;
    for (let j = 0; j < n; j++) {
      const i = keep[j]!;
      const from = this.slabAt + i * SLAB_STRIDE;
      const to = at + j * SLAB_STRIDE;
      for (let f = 0; f < SLAB_STRIDE; f++) slab[to + f] = this.slab[from + f]!;
      offsetDeltas[j] = this.offsetDeltaAt(i);
      headers?.push(srcHeaders![i]!);
      const valueId = this.valueIdAt(i);
      body += recordSizeOf(offsetDeltas[j]!, this.timestampDeltaAt(i), table.keySize(this.keyIdAt(i)), valueId === NULL_ID ? -1 : this.valueSizeAt(i), headers?.[j] ?? NO_HEADERS);
    }
    const horizon = deleteHorizonMs >= 0;
    const attributes = horizon ? this.attributes | DELETE_HORIZON_FLAG_MASK : this.attributes & ~DELETE_HORIZON_FLAG_MASK;
    return new RecordBatch(
      this.baseOffset,
      this.partitionLeaderEpoch,
      this.lastOffsetDelta,
      this.baseTimestamp,
      this.maxTimestamp,
      this.baseSequence,
      n === 0 ? RECORD_BATCH_OVERHEAD : RECORD_BATCH_OVERHEAD + Math.ceil(body * COMPRESSION_RATIO[this.compression]),
      sourceOf(table, slab, { offsetDeltas, headers, deleteHorizonMs: horizon ? deleteHorizonMs : NO_DELETE_HORIZON }, this.producerId, epochAndAttributesOf(this.producerEpoch, attributes)),
      at,
    );
  }
}

const EMPTY_SLAB = new Int32Array(0);

/** Bytes of a zig-zag varint (Kafka's ByteUtils.sizeOfVarint / sizeOfVarlong). */
export function sizeOfVarint(value: number): number {
  // zig-zag, then 7 bits per byte
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  let bytes = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    bytes++;
  }
  return bytes;
}

const encoder = new TextEncoder();

export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/**
 * Size of one record in the v2 format, from its parts: key and value lengths in bytes, -1 for null.
 * [src: DefaultRecord.sizeInBytes]
 */
export function recordSizeOf(offsetDelta: number, timestampDelta: number, keySize: number, valueSize: number, headers: readonly RecordHeader[]): number {
  let body = 1; // attributes
  body += sizeOfVarint(timestampDelta);
  body += sizeOfVarint(offsetDelta);
  body += sizeOfVarint(keySize) + (keySize > 0 ? keySize : 0);
  body += sizeOfVarint(valueSize) + (valueSize > 0 ? valueSize : 0);
  body += sizeOfVarint(headers.length);
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    const hk = utf8Length(h.key);
    const hv = h.value === null ? -1 : typeof h.value === 'string' ? utf8Length(h.value) : h.value.length;
    body += sizeOfVarint(hk) + hk + sizeOfVarint(hv) + Math.max(0, hv);
  }
  return sizeOfVarint(body) + body;
}

/** Size of one record given as text, with the value at its declared size. */
export function recordSize(r: Pick<KafkaRecord, 'offsetDelta' | 'timestampDelta' | 'key' | 'valueSize' | 'value' | 'headers'>): number {
  return recordSizeOf(r.offsetDelta, r.timestampDelta, r.key === null ? -1 : utf8Length(r.key), r.value === null ? -1 : r.valueSize, r.headers);
}

export function lastOffset(b: RecordBatch): number {
  return b.baseOffset + b.lastOffsetDelta;
}

/** The offset after the batch (what the log end offset becomes when it is the last batch). */
export function nextOffset(b: RecordBatch): number {
  return b.baseOffset + b.lastOffsetDelta + 1;
}

export function recordCount(b: RecordBatch): number {
  return b.recordCount;
}

/** Producer fields a batch is built with. */
export interface BatchProducerFields {
  readonly compression?: CompressionType;
  readonly producerId?: number;
  readonly producerEpoch?: number;
  readonly baseSequence?: number;
  readonly isTransactional?: boolean;
}

/**
 * Accumulates records for one batch and builds it: offsets relative, base offset 0 until the leader assigns
 * them. The records' fields are copied into the payload table's slab once, at `build`.
 * [src: clients/.../record/MemoryRecordsBuilder.java]
 */
export class BatchBuilder {
  private readonly keys: number[] = [];
  private readonly values: number[] = [];
  private readonly valueSizes: number[] = [];
  private readonly timestamps: number[] = [];
  private headers: (readonly RecordHeader[])[] | null = null;
  /** Bytes of the records section before compression. */
  private body = 0;

  constructor(readonly payloads: PayloadTable) {}

  get count(): number {
    return this.keys.length;
  }

  /** Bytes of the records section before compression. */
  get uncompressedBytes(): number {
    return this.body;
  }

  /** The size record `keyId`/`valueId` would have as the next one. */
  nextRecordSize(keyId: number, valueId: number, valueSize: number, timestampMs: number, headers: readonly RecordHeader[] = NO_HEADERS): number {
    const n = this.keys.length;
    const delta = n === 0 ? 0 : timestampMs - this.timestamps[0]!;
    return recordSizeOf(n, delta, this.payloads.keySize(keyId), valueId === NULL_ID ? -1 : valueSize, headers);
  }

  /** Appends a record; returns its size in the records section. */
  append(keyId: number, valueId: number, valueSize: number, timestampMs: number, headers: readonly RecordHeader[] = NO_HEADERS): number {
    const size = this.nextRecordSize(keyId, valueId, valueSize, timestampMs, headers);
    if (headers.length > 0 && this.headers === null) this.headers = this.keys.map(() => NO_HEADERS);
    this.keys.push(keyId);
    this.values.push(valueId);
    this.valueSizes.push(valueId === NULL_ID ? 0 : valueSize);
    this.timestamps.push(timestampMs);
    this.headers?.push(headers);
    this.body += size;
    return size;
  }

  valueIdAt(i: number): number {
    return this.values[i]!;
  }

  /**
   * The batch, ready for a produce request [src: MemoryRecordsBuilder `build`]. `wire`: a batch a real client
   * sent, with its size on the wire and its records section as it came.
   */
  build(
    f: BatchProducerFields & {
      readonly isControl?: boolean;
      readonly wire?: { readonly sizeInBytes: number; readonly records: NonNullable<BatchExtras['wireRecords']> };
    } = {},
  ): RecordBatch {
    const n = this.keys.length;
    if (n === 0) throw new RangeError('a record batch needs at least one record');
    const table = this.payloads;
    const at = table.allocate(n);
    const slab = table.slab;
    const base = this.timestamps[0]!;
    let max = base;
    for (let i = 0; i < n; i++) {
      const ts = this.timestamps[i]!;
      if (ts > max) max = ts;
      const o = at + i * SLAB_STRIDE;
      slab[o + SLAB_KEY] = this.keys[i]!;
      slab[o + SLAB_VALUE] = this.values[i]!;
      slab[o + SLAB_TIMESTAMP_DELTA] = ts - base;
      slab[o + SLAB_VALUE_SIZE] = this.valueSizes[i]!;
    }
    const compression = f.compression ?? 'none';
    const attributes = batchAttributes({ compression, isTransactional: f.isTransactional === true, isControl: f.isControl === true });
    return new RecordBatch(
      0,
      -1,
      n - 1,
      base,
      max,
      f.baseSequence ?? NO_SEQUENCE,
      f.wire?.sizeInBytes ?? RECORD_BATCH_OVERHEAD + Math.ceil(this.body * COMPRESSION_RATIO[compression]),
      sourceOf(
        table,
        slab,
        this.headers === null && f.wire === undefined
          ? null
          : { offsetDeltas: null, headers: this.headers, deleteHorizonMs: NO_DELETE_HORIZON, ...(f.wire && { wireRecords: f.wire.records }) },
        f.producerId ?? NO_PRODUCER_ID,
        epochAndAttributesOf(f.producerEpoch ?? NO_PRODUCER_EPOCH, attributes),
      ),
      at,
    );
  }
}

/** A record given as text (tests, the coordinator's writes, a dead-letter record). */
export interface ProducerRecordInput {
  readonly key: string | null;
  readonly value: string | null;
  /** Declared payload size; defaults to the value's UTF-8 length. */
  readonly valueSize?: number;
  readonly headers?: readonly RecordHeader[];
  /** Milliseconds (CreateTime). */
  readonly timestamp: number;
}

/**
 * Builds a batch from records given as text, storing keys and values in `payloads` (a table of its own when
 * none is given).
 */
export function buildBatch(inputs: readonly ProducerRecordInput[], opts: BatchProducerFields & { readonly payloads?: PayloadTable } = {}): RecordBatch {
  if (inputs.length === 0) throw new RangeError('a record batch needs at least one record');
  const table = opts.payloads ?? new PayloadTable();
  const b = new BatchBuilder(table);
  for (const r of inputs) {
    const valueId = table.addValue(r.value);
    b.append(table.internKey(r.key), valueId, r.valueSize ?? (r.value === null ? 0 : utf8Length(r.value)), r.timestamp, r.headers ?? NO_HEADERS);
  }
  return b.build(opts);
}

/**
 * A control batch holding one transaction marker (COMMIT or ABORT as its record's key). [src: EndTransactionMarker;
 * MemoryRecords `withEndTransactionMarker`]
 */
export function buildControlBatch(type: ControlType, timestampMs: number, producer: { producerId: number; producerEpoch: number }, payloads: PayloadTable = new PayloadTable()): RecordBatch {
  const b = new BatchBuilder(payloads);
  b.append(payloads.internKey(type), payloads.addValue(null), 0, timestampMs);
  return b.build({ producerId: producer.producerId, producerEpoch: producer.producerEpoch, isTransactional: true, isControl: true });
}

/** The leader's copy of a batch: offsets assigned from `baseOffset`, stamped with its leader epoch. */
export function assignOffsets(b: RecordBatch, baseOffset: number, leaderEpoch: number, logAppendTimeMs?: number): RecordBatch {
  return b.withOffsets(baseOffset, leaderEpoch, logAppendTimeMs);
}

/** The last sequence number a batch covers (sequences wrap from Integer.MAX_VALUE to 0). */
export function lastSequence(b: RecordBatch): number {
  if (b.baseSequence === NO_SEQUENCE) return NO_SEQUENCE;
  const last = b.baseSequence + b.lastOffsetDelta;
  return last > 0x7fffffff ? last - 0x80000000 : last;
}
