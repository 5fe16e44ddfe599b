/**
 * Records and record batches as Kafka's magic v2 format has them (DefaultRecordBatch / DefaultRecord).
 * Contents are our own objects; sizes follow the wire format so that segment.bytes, batch.size,
 * retention.bytes and the fetch byte limits act as they do in Kafka.
 *
 * Batches are immutable once built: the leader builds a new one when it assigns offsets, followers and
 * consumers receive the same object (as they would receive the same bytes).
 */

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

export interface RecordHeader {
  readonly key: string;
  readonly value: string;
}

/** One record inside a batch. */
export interface KafkaRecord {
  /** Offset of this record = batch.baseOffset + offsetDelta. */
  readonly offsetDelta: number;
  /** Milliseconds relative to the batch's base timestamp. */
  readonly timestampDelta: number;
  /** null = no key. */
  readonly key: string | null;
  /** null = tombstone (on a compacted topic: delete the key). */
  readonly value: string | null;
  /** Declared size of the value in bytes (the payload a workload models); defaults to the value's UTF-8 length. */
  readonly valueSize: number;
  readonly headers: readonly RecordHeader[];
}

/** Producer id, epoch and sequence when a batch has none (a non-idempotent producer). */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;

/** Control record types (transaction markers); carried for later use. */
export type ControlType = 'COMMIT' | 'ABORT';

export interface RecordBatch {
  readonly baseOffset: number;
  readonly lastOffsetDelta: number;
  /** The leader epoch of the leader that appended it. */
  readonly partitionLeaderEpoch: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly timestampType: TimestampType;
  /** Milliseconds. */
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  readonly compression: CompressionType;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly controlType?: ControlType;
  /** Set by the log cleaner the first time it rewrites a batch with tombstones (KIP-534). */
  readonly deleteHorizonMs?: number;
  readonly records: readonly KafkaRecord[];
  /** Bytes on disk and on the wire. */
  readonly sizeInBytes: number;
  /**
   * The records section exactly as a real client sent it over the wire (sim/kafka/wire), compressed as
   * `compression` says. It describes `records` only while this very array is the batch's records: a copy that
   * keeps them (offsets assigned, leader epoch stamped) still serves the client's bytes; a rewrite does not.
   */
  readonly wireRecords?: { readonly records: readonly KafkaRecord[]; readonly compression: CompressionType; readonly bytes: Uint8Array };
}

/** RECORD_BATCH_OVERHEAD in DefaultRecordBatch. */
export const RECORD_BATCH_OVERHEAD = 61;

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

/** UTF-8 length of a string without allocating for ASCII text. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Size of one record in the v2 format (DefaultRecord.sizeInBytes), with the value at its declared size. */
export function recordSize(r: Pick<KafkaRecord, 'offsetDelta' | 'timestampDelta' | 'key' | 'valueSize' | 'value' | 'headers'>): number {
  const keyLen = r.key === null ? -1 : utf8Length(r.key);
  const valueLen = r.value === null ? -1 : r.valueSize;
  let body = 1; // attributes
  body += sizeOfVarint(r.timestampDelta);
  body += sizeOfVarint(r.offsetDelta);
  body += sizeOfVarint(keyLen) + Math.max(0, keyLen);
  body += sizeOfVarint(valueLen) + Math.max(0, valueLen);
  body += sizeOfVarint(r.headers.length);
  for (const h of r.headers) {
    const hk = utf8Length(h.key);
    const hv = utf8Length(h.value);
    body += sizeOfVarint(hk) + hk + sizeOfVarint(hv) + hv;
  }
  return sizeOfVarint(body) + body;
}

/** Batch size: the 61-byte header plus the records section, shrunk by the compression ratio. */
export function batchSize(records: readonly KafkaRecord[], compression: CompressionType): number {
  let body = 0;
  for (const r of records) body += recordSize(r);
  return RECORD_BATCH_OVERHEAD + Math.ceil(body * COMPRESSION_RATIO[compression]);
}

export function lastOffset(b: RecordBatch): number {
  return b.baseOffset + b.lastOffsetDelta;
}

/** The offset after the batch (what the log end offset becomes when it is the last batch). */
export function nextOffset(b: RecordBatch): number {
  return b.baseOffset + b.lastOffsetDelta + 1;
}

export function recordCount(b: RecordBatch): number {
  return b.records.length;
}


/** What a producer hands to the accumulator for one record. */
export interface ProducerRecordInput {
  readonly key: string | null;
  readonly value: string | null;
  /** Declared payload size; defaults to the value's UTF-8 length. */
  readonly valueSize?: number;
  readonly headers?: readonly RecordHeader[];
  /** Milliseconds (CreateTime). */
  readonly timestamp: number;
}

/** Builds a batch from record inputs (the producer side): offsets relative, base offset 0 until the leader assigns it. */
export function buildBatch(
  inputs: readonly ProducerRecordInput[],
  opts: {
    compression?: CompressionType;
    producerId?: number;
    producerEpoch?: number;
    baseSequence?: number;
    isTransactional?: boolean;
  } = {},
): RecordBatch {
  if (inputs.length === 0) throw new RangeError('a record batch needs at least one record');
  const baseTimestamp = inputs[0]!.timestamp;
  let maxTimestamp = baseTimestamp;
  const records: KafkaRecord[] = inputs.map((r, i) => {
    if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    return {
      offsetDelta: i,
      timestampDelta: r.timestamp - baseTimestamp,
      key: r.key,
      value: r.value,
      valueSize: r.valueSize ?? (r.value === null ? 0 : utf8Length(r.value)),
      headers: r.headers ?? [],
    };
  });
  const compression = opts.compression ?? 'none';
  return {
    baseOffset: 0,
    lastOffsetDelta: records.length - 1,
    partitionLeaderEpoch: -1,
    producerId: opts.producerId ?? NO_PRODUCER_ID,
    producerEpoch: opts.producerEpoch ?? NO_PRODUCER_EPOCH,
    baseSequence: opts.baseSequence ?? NO_SEQUENCE,
    timestampType: 'CreateTime',
    baseTimestamp,
    maxTimestamp,
    compression,
    isTransactional: opts.isTransactional ?? false,
    isControl: false,
    records,
    sizeInBytes: batchSize(records, compression),
  };
}

/** The leader's copy of a batch: offsets assigned from `baseOffset`, stamped with its leader epoch. */
export function assignOffsets(
  b: RecordBatch,
  baseOffset: number,
  leaderEpoch: number,
  logAppendTimeMs?: number,
): RecordBatch {
  if (logAppendTimeMs === undefined) return { ...b, baseOffset, partitionLeaderEpoch: leaderEpoch };
  return { ...b, baseOffset, partitionLeaderEpoch: leaderEpoch, timestampType: 'LogAppendTime', maxTimestamp: logAppendTimeMs };
}

/** The last sequence number a batch covers (sequences wrap from Integer.MAX_VALUE to 0). */
export function lastSequence(b: RecordBatch): number {
  if (b.baseSequence === NO_SEQUENCE) return NO_SEQUENCE;
  const last = b.baseSequence + b.lastOffsetDelta;
  return last > 0x7fffffff ? last - 0x80000000 : last;
}
