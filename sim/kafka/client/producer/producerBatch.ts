import type { NumberedTexts } from '../../../core/numberedText';
import type { Micros } from '../../../core/time';
import {
  BatchBuilder,
  NULL_ID,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  RECORD_BATCH_OVERHEAD,
  type CompressionType,
  type PayloadTable,
  type RecordBatch,
} from '../../records';

/** One record the application handed to send(): its key as given (the partitioner hashes it) and as ids. */
export interface PendingRecord {
  readonly key: string | null;
  /** Ids in the producer's payload table; the value id is the record's identity for the checkers. */
  readonly keyId: number;
  readonly valueId: number;
  /** Declared size of the value in bytes. */
  readonly valueSize: number;
  /** Milliseconds (CreateTime). */
  readonly timestamp: number;
  /** A tombstone: the record carries a null value (it deletes its key); `valueId` stays its identity. */
  readonly tombstone?: boolean;
}

/** Estimates of compressed sizes are padded by this factor [MemoryRecordsBuilder.COMPRESSION_RATE_ESTIMATION_FACTOR]. */
export const COMPRESSION_RATE_ESTIMATION_FACTOR = 1.05;

/**
 * A batch of records for one partition in the producer [clients/.../producer/internals/ProducerBatch.java].
 * It is open for appends until drained; its content is then fixed, and every retry resends the same records
 * (with the same sequence numbers, unless an epoch bump renumbered them).
 */
export class ProducerBatch {
  /** The records, as MemoryRecordsBuilder holds them until the batch is closed [ProducerBatch.recordsBuilder]. */
  private readonly builder: BatchBuilder;
  /** Bytes of the records section before compression. */
  private uncompressedBytes = 0;
  /** Bytes on the wire as the producer estimates them [MemoryRecordsBuilder.estimatedBytesWritten]. */
  estimatedBytes = RECORD_BATCH_OVERHEAD;
  /** Memory taken from buffer.memory: max(batch.size, the first record's upper bound), as BufferPool hands it out. */
  readonly allocatedBytes: number;
  /** No more appends (drained, or a newer batch took over) [ProducerBatch.closeForRecordAppends]. */
  closed = false;
  /** Times the batch was put back after a failed attempt (Kafka's attempts()). */
  attempts = 0;
  /** Sends so far (attempts + 1 once sent). */
  sends = 0;
  /** Put back at least once [ProducerBatch.inRetry]. */
  retry = false;
  /** A failed attempt may still have been written (timeout, disconnect, NOT_ENOUGH_REPLICAS_AFTER_APPEND). */
  mayHaveBeenAppended = false;
  /** On the wire now. */
  inFlight = false;
  /** Completed or failed for good; a late response changes nothing [ProducerBatch.isDone]. */
  done = false;
  /** Creation, then the time of each re-enqueue [ProducerBatch.lastAttemptMs]. */
  lastAttemptUs: Micros;
  drainedUs: Micros = -1;
  /** The retry backoff drawn when the batch was put back (jitter drawn once per retry). */
  retryBackoffUs: Micros = 0;
  /** The leader epoch last seen for the partition, -1 none [ProducerBatch.currentLeaderEpoch]. */
  private currentLeaderEpoch = -1;
  private attemptsWhenLeaderLastChanged = 0;
  producerId = NO_PRODUCER_ID;
  producerEpoch = NO_PRODUCER_EPOCH;
  baseSequence = NO_SEQUENCE;
  /** The sequence was rewritten by an epoch bump [ProducerBatch.sequenceHasBeenReset]. */
  sequenceHasBeenReset = false;
  /** Written in a transaction (the batch's transactional bit). */
  isTransactional = false;
  private built: RecordBatch | null = null;
  /** Record index -> the identity of the tombstone there (its value is null in the batch); null until one is appended. */
  private tombstoneIds: Map<number, number> | null = null;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly createdUs: Micros,
    readonly capacity: number,
    readonly compression: CompressionType,
    /** The producer's keys and values (the built batch points to it). */
    readonly payloads: PayloadTable,
    /** The topic's estimated compression ratio when the batch was opened (1 for none). */
    private readonly estimatedCompressionRatio: number = 1,
  ) {
    this.allocatedBytes = capacity;
    this.lastAttemptUs = createdUs;
    this.builder = new BatchBuilder(payloads);
  }

  get recordCount(): number {
    return this.builder.count;
  }

  /** Record i's value id, or for a tombstone of the workload its identity's (what send.invoke named it). */
  private identityAt(i: number): number {
    const id = this.builder.valueIdAt(i);
    return id === NULL_ID && this.tombstoneIds !== null ? (this.tombstoneIds.get(i) ?? id) : id;
  }

  /** Record i's value as text; a tombstone's identity for a tombstone of the workload. */
  valueAt(i: number): string | null {
    return this.payloads.valueText(this.identityAt(i));
  }

  /** Every record's value as text (the trace's send.ok / send.fail lists). */
  values(): string[] {
    const out = new Array<string>(this.builder.count);
    for (let i = 0; i < out.length; i++) out[i] = this.valueAt(i) ?? '';
    return out;
  }

  /** The numbers of `values()` when the values are counted (handed to the trace's readers beside it), else undefined. */
  valueNumbers(): NumberedTexts | undefined {
    const prefix = this.payloads.countedPrefix;
    if (prefix === null) return undefined;
    const numbers = new Int32Array(this.builder.count);
    for (let i = 0; i < numbers.length; i++) numbers[i] = this.identityAt(i);
    return { prefixes: [prefix], prefixOf: null, n: numbers };
  }

  /** The record section's bytes before compression (for the compression-ratio estimate). */
  get uncompressedRecordsBytes(): number {
    return this.uncompressedBytes;
  }

  /**
   * Adds a record if there is room: the first record always fits; later ones must fit under the batch's
   * capacity, counting the new record uncompressed [MemoryRecordsBuilder.hasRoomFor].
   */
  tryAppend(r: PendingRecord): boolean {
    if (this.isFull) return false;
    const b = this.builder;
    const valueId = r.tombstone === true ? NULL_ID : r.valueId;
    const size = b.nextRecordSize(r.keyId, valueId, r.valueSize, r.timestamp);
    if (b.count > 0 && this.estimatedBytes + size > this.capacity) return false;
    if (r.tombstone === true) (this.tombstoneIds ??= new Map()).set(b.count, r.valueId);
    b.append(r.keyId, valueId, r.valueSize, r.timestamp);
    this.uncompressedBytes += size;
    this.estimatedBytes =
      this.compression === 'none'
        ? RECORD_BATCH_OVERHEAD + this.uncompressedBytes
        : RECORD_BATCH_OVERHEAD + Math.trunc(this.uncompressedBytes * this.estimatedCompressionRatio * COMPRESSION_RATE_ESTIMATION_FACTOR);
    return true;
  }

  /** Closed, or no room left at all [MemoryRecordsBuilder.isFull]. */
  get isFull(): boolean {
    return this.closed || (this.builder.count > 0 && this.capacity <= this.estimatedBytes);
  }

  /** Time since creation or the last re-enqueue [ProducerBatch.waitedTimeMs]. */
  waitedTimeUs(nowUs: Micros): Micros {
    return Math.max(0, nowUs - this.lastAttemptUs);
  }

  /** delivery.timeout.ms counts from creation: linger, queueing, every attempt and backoff [ProducerBatch.hasReachedDeliveryTimeout]. */
  hasReachedDeliveryTimeout(deliveryTimeoutUs: Micros, nowUs: Micros): boolean {
    return deliveryTimeoutUs <= nowUs - this.createdUs;
  }

  /** Put back after a failed attempt [ProducerBatch.reenqueued]. */
  reenqueued(nowUs: Micros, backoffUs: Micros): void {
    this.attempts++;
    this.lastAttemptUs = nowUs;
    this.retry = true;
    this.retryBackoffUs = backoffUs;
    this.inFlight = false;
  }

  /** Remembers a newer leader epoch, and the attempt during which it was seen [ProducerBatch.maybeUpdateLeaderEpoch]. */
  maybeUpdateLeaderEpoch(latestLeaderEpoch: number): void {
    if (latestLeaderEpoch >= 0 && (this.currentLeaderEpoch < 0 || this.currentLeaderEpoch < latestLeaderEpoch)) {
      this.currentLeaderEpoch = latestLeaderEpoch;
      this.attemptsWhenLeaderLastChanged = this.attempts;
    }
  }

  /** The leader changed since this retry's failure: the retry goes without backoff [ProducerBatch.hasLeaderChangedForTheOngoingRetry]. */
  hasLeaderChangedForTheOngoingRetry(): boolean {
    return this.attempts >= 1 && this.attempts === this.attemptsWhenLeaderLastChanged;
  }

  get hasSequence(): boolean {
    return this.baseSequence !== NO_SEQUENCE;
  }

  /** The last sequence the batch covers, wrapping past Integer.MAX_VALUE [ProducerBatch.lastSequence]. */
  get lastSequence(): number {
    if (this.baseSequence === NO_SEQUENCE) return NO_SEQUENCE;
    return incrementSequence(this.baseSequence, this.recordCount - 1);
  }

  /** Stamps producer id, epoch and base sequence at drain time [ProducerBatch.setProducerState]. */
  setProducerState(producerId: number, producerEpoch: number, baseSequence: number): void {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    this.built = null;
  }

  /** An epoch bump renumbered the batch [ProducerBatch.resetProducerState]. */
  resetProducerState(producerId: number, producerEpoch: number, baseSequence: number): void {
    this.sequenceHasBeenReset = true;
    this.setProducerState(producerId, producerEpoch, baseSequence);
  }

  /** The wire batch (built on the first send and after a renumbering; retries reuse it). */
  toRecordBatch(): RecordBatch {
    if (!this.built) {
      this.built = this.builder.build({
        compression: this.compression,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        baseSequence: this.baseSequence,
        isTransactional: this.isTransactional,
      });
    }
    return this.built;
  }
}

/** Sequence arithmetic: sequences wrap from Integer.MAX_VALUE to 0 [DefaultRecordBatch.incrementSequence]. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > 0x7fffffff - increment) return increment - (0x7fffffff - sequence) - 1;
  return sequence + increment;
}
