import { NO_PRODUCER_EPOCH, NO_SEQUENCE, lastOffset, lastSequence, type RecordBatch } from '../records';

/**
 * The broker's idempotence rules for one producer's batch: duplicate detection over the last five batches,
 * the producer-epoch check and the sequence check. Pure functions of the stored entry and the batch.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerAppendInfo.java; ProducerStateEntry.java]
 */

/** Batches remembered per producer for duplicate detection. [src: ProducerStateEntry.java NUM_BATCHES_TO_RETAIN] */
export const NUM_BATCHES_TO_RETAIN = 5;

/** Who is appending: the validation depends on it. [src: storage/.../log/AppendOrigin.java] */
export type AppendOrigin = 'CLIENT' | 'COORDINATOR' | 'REPLICATION';

/** One remembered batch of a producer. [src: storage/.../log/BatchMetadata.java] */
export interface BatchMetadata {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly timestamp: number;
}

/** What the broker remembers of one producer on one partition. [src: ProducerStateEntry.java] */
export interface ProducerStateEntry {
  readonly producerId: number;
  readonly producerEpoch: number;
  /** Oldest first, at most NUM_BATCHES_TO_RETAIN. */
  readonly batchMetadata: readonly BatchMetadata[];
  /** Max timestamp of the last batch (ms); drives producer.id.expiration.ms. */
  readonly lastTimestamp: number;
  /** The first offset of the producer's open transaction in this partition; undefined when none is open. */
  readonly currentTxnFirstOffset?: number;
}

export type ProducerAppendCheck =
  | { readonly kind: 'ok' }
  /** Already in the log: do not append again; answer with the original offsets. */
  | { readonly kind: 'duplicate'; readonly batch: BatchMetadata }
  | { readonly kind: 'error'; readonly error: 'INVALID_PRODUCER_EPOCH' | 'OUT_OF_ORDER_SEQUENCE_NUMBER' | 'INVALID_TXN_STATE'; readonly message: string };

const OK: ProducerAppendCheck = { kind: 'ok' };

/** Sequences wrap from Integer.MAX_VALUE to 0. [src: ProducerAppendInfo.java `inSequence`] */
export function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === 0x7fffffff);
}

/** The remembered batch with exactly this sequence range and epoch, if any. [src: ProducerStateEntry.java `findDuplicateBatch`] */
export function findDuplicateBatch(entry: ProducerStateEntry, batch: RecordBatch): BatchMetadata | undefined {
  if (batch.producerEpoch !== entry.producerEpoch) return undefined;
  const first = batch.baseSequence;
  const last = lastSequence(batch);
  for (const m of entry.batchMetadata) if (m.firstSeq === first && m.lastSeq === last) return m;
  return undefined;
}

/**
 * Validates a data batch against the producer's stored state. `entry` is undefined for an unknown producer
 * (new, expired or removed), which is accepted with any sequence (post-KIP-360).
 * [src: UnifiedLog `analyzeAndValidateProducerState`; ProducerAppendInfo.java `checkProducerEpoch`, `checkSequence`]
 */
export function checkProducerAppend(entry: ProducerStateEntry | undefined, batch: RecordBatch, origin: AppendOrigin): ProducerAppendCheck {
  if (batch.producerId < 0 || origin === 'REPLICATION' || entry === undefined) return OK;
  if (origin === 'CLIENT') {
    const dup = findDuplicateBatch(entry, batch);
    if (dup !== undefined) return { kind: 'duplicate', batch: dup };
  }
  const epoch = batch.producerEpoch;
  if (epoch < entry.producerEpoch) {
    return {
      kind: 'error',
      error: 'INVALID_PRODUCER_EPOCH',
      message: `epoch of producer ${batch.producerId} is ${epoch}, which is < the last seen epoch ${entry.producerEpoch}`,
    };
  }
  if (origin !== 'CLIENT' || batch.isControl) return OK;
  // A producer with an open transaction may only write transactionally. [src: ProducerAppendInfo.java `append`]
  if (!batch.isTransactional && entry.currentTxnFirstOffset !== undefined) {
    return {
      kind: 'error',
      error: 'INVALID_TXN_STATE',
      message: `expected transactional write from producer ${batch.producerId} at offset ${batch.baseOffset} (its transaction began at ${entry.currentTxnFirstOffset})`,
    };
  }
  const firstSeq = batch.baseSequence;
  if (epoch !== entry.producerEpoch) {
    // An epoch bump must restart the sequence at 0.
    if (firstSeq !== 0 && entry.producerEpoch !== NO_PRODUCER_EPOCH) {
      return {
        kind: 'error',
        error: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
        message: `invalid sequence number ${firstSeq} for new epoch ${epoch} of producer ${batch.producerId} (current epoch ${entry.producerEpoch})`,
      };
    }
    return OK;
  }
  const last = entry.batchMetadata[entry.batchMetadata.length - 1];
  const currentLastSeq = last === undefined ? NO_SEQUENCE : last.lastSeq;
  if (entry.producerEpoch === NO_PRODUCER_EPOCH || inSequence(currentLastSeq, firstSeq)) return OK;
  return {
    kind: 'error',
    error: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
    message: `out of order sequence number for producer ${batch.producerId}: ${firstSeq} (incoming), ${currentLastSeq} (current end)`,
  };
}

/**
 * The entry after a batch (with its final offsets) is in the log. A new epoch forgets the old batches. A
 * transactional data batch opens the producer's transaction here if none is open; a marker closes it.
 * [src: ProducerStateEntry.java `addBatch`, `maybeUpdateProducerEpoch`; ProducerAppendInfo.java `appendDataBatch`, `appendEndTxnMarker`]
 */
export function updateProducerEntry(entry: ProducerStateEntry | undefined, batch: RecordBatch): ProducerStateEntry {
  const sameEpoch = entry !== undefined && entry.producerEpoch === batch.producerEpoch;
  const kept = sameEpoch ? entry.batchMetadata : [];
  if (batch.isControl) {
    return { producerId: batch.producerId, producerEpoch: batch.producerEpoch, batchMetadata: kept, lastTimestamp: batch.maxTimestamp };
  }
  const meta: BatchMetadata = {
    firstSeq: batch.baseSequence,
    lastSeq: lastSequence(batch),
    firstOffset: batch.baseOffset,
    lastOffset: lastOffset(batch),
    timestamp: batch.maxTimestamp,
  };
  // The last NUM_BATCHES_TO_RETAIN - 1 kept ones and the new one, in one new array (this runs on every append).
  const from = kept.length >= NUM_BATCHES_TO_RETAIN ? kept.length - NUM_BATCHES_TO_RETAIN + 1 : 0;
  const batches: BatchMetadata[] = [];
  for (let i = from; i < kept.length; i++) batches.push(kept[i]!);
  batches.push(meta);
  const txnFirst = batch.isTransactional ? (entry?.currentTxnFirstOffset ?? batch.baseOffset) : undefined;
  const next: ProducerStateEntry = { producerId: batch.producerId, producerEpoch: batch.producerEpoch, batchMetadata: batches, lastTimestamp: batch.maxTimestamp };
  return txnFirst === undefined ? next : { ...next, currentTxnFirstOffset: txnFirst };
}

/** [src: ProducerStateManager.java `isProducerExpired`] */
export function isProducerExpired(entry: ProducerStateEntry, nowMs: number, producerIdExpirationMs: number): boolean {
  return nowMs - entry.lastTimestamp >= producerIdExpirationMs;
}
