import type { Micros } from '../../../core/time';
import { buildBatch, recordSize, type CompressionType, type ProducerRecordInput, type RecordBatch } from '../../records';

/** One record the application handed to send(), with what the history needs to know about it. */
export interface PendingRecord {
  readonly input: ProducerRecordInput;
  /** The unique value (the checkers' identity of the record). */
  readonly value: string;
  readonly sentAtUs: Micros;
}

/**
 * A batch of records for one partition in the producer [clients/.../producer/internals/ProducerBatch.java].
 * It is open for appends until drained; its content is then fixed, and every retry resends the same
 * records with the same sequence numbers.
 */
export class ProducerBatch {
  readonly records: PendingRecord[] = [];
  /** Estimated bytes on the wire. */
  estimatedBytes = 61;
  /** Memory taken from buffer.memory: max(batch.size, first record) as BufferPool hands it out. */
  readonly allocatedBytes: number;
  closed = false;
  attempts = 0;
  /** Set when a failed attempt may still have been written (timeout, disconnect, NOT_ENOUGH_REPLICAS_AFTER_APPEND). */
  mayHaveBeenAppended = false;
  inFlight = false;
  /** When it was last put back after a failure (us), -1 never. */
  lastRetryUs: Micros = -1;
  /** The leader epoch it failed against, to skip the backoff once the leader changed. */
  failedLeaderEpoch = -1;
  producerId = -1;
  producerEpoch = -1;
  baseSequence = -1;
  private built: RecordBatch | null = null;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly createdUs: Micros,
    readonly capacity: number,
    readonly compression: CompressionType,
  ) {
    this.allocatedBytes = capacity;
  }

  get recordCount(): number {
    return this.records.length;
  }

  /** Adds a record if it fits (a new batch always takes its first record). */
  tryAppend(r: PendingRecord): boolean {
    if (this.closed) return false;
    const size = recordSize({
      offsetDelta: this.records.length,
      timestampDelta: 0,
      key: r.input.key,
      value: r.input.value,
      valueSize: r.input.valueSize ?? 0,
      headers: r.input.headers ?? [],
    });
    if (this.records.length > 0 && this.estimatedBytes + size > this.capacity) return false;
    this.records.push(r);
    this.estimatedBytes += size;
    return true;
  }

  /** No more room for a typical record: the batch counts as full for readiness and sticky switching. */
  get isFull(): boolean {
    return this.closed || this.estimatedBytes >= this.capacity;
  }

  /** The wire batch (built once, on the first send; retries reuse it). */
  toRecordBatch(): RecordBatch {
    if (!this.built) {
      this.built = buildBatch(
        this.records.map((r) => r.input),
        {
          compression: this.compression,
          producerId: this.producerId,
          producerEpoch: this.producerEpoch,
          baseSequence: this.baseSequence,
        },
      );
    }
    return this.built;
  }

  /** Idempotence reset after an epoch bump: new producer epoch and sequence, built anew. */
  resetSequence(producerId: number, producerEpoch: number, baseSequence: number): void {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    this.built = null;
  }
}
