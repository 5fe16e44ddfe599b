/**
 * The idempotent producer's bookkeeping [clients/.../producer/internals/TransactionManager.java, TxnPartitionEntry.java]:
 * the producer id and epoch, and per partition the next sequence, the last acknowledged sequence and the
 * batches sent but not yet resolved, ordered by sequence. It decides whether a failed batch may be retried,
 * when the epoch must be bumped (a real gap in the sequence), and which batches may be drained so that the
 * broker sees every partition's sequences in order with up to five requests in flight.
 *
 * Only the non-transactional (idempotent) half is modelled: no transactional.id, no coordinator.
 * It performs no I/O; the Sender asks it and acts.
 */
import { insertAt, removeAt } from '../../../core/lists';
import { isRetriable, type KafkaError } from '../../errors';
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE } from '../../records';
import { incrementSequence } from './producerBatch';
import { partitionKeyMemo } from '../../protocol';

export interface ProducerIdAndEpoch {
  readonly producerId: number;
  readonly epoch: number;
}

export const NO_PRODUCER_ID_AND_EPOCH: ProducerIdAndEpoch = { producerId: NO_PRODUCER_ID, epoch: NO_PRODUCER_EPOCH };

/** The last producer epoch before the id must be replaced (Short.MAX_VALUE). */
export const MAX_PRODUCER_EPOCH = 32767;

/** What the transaction manager needs of a batch. ProducerBatch is one. */
export interface SequencedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly lastSequence: number;
  readonly recordCount: number;
  readonly sequenceHasBeenReset: boolean;
  resetProducerState(producerId: number, producerEpoch: number, baseSequence: number): void;
}

/** UNINITIALIZED: no producer id; INITIALIZING: InitProducerId under way; READY: sending [TransactionManager.State]. */
export type TransactionManagerState = 'UNINITIALIZED' | 'INITIALIZING' | 'READY';

const NO_LAST_ACKED_SEQUENCE_NUMBER = -1;

function samePidEpoch(a: ProducerIdAndEpoch, b: ProducerIdAndEpoch): boolean {
  return a.producerId === b.producerId && a.epoch === b.epoch;
}

/** Ordered as Kafka's TreeSet of in-flight batches: producer id, then epoch, then base sequence. */
function compareBatches(a: SequencedBatch, b: SequencedBatch): number {
  return a.producerId - b.producerId || a.producerEpoch - b.producerEpoch || a.baseSequence - b.baseSequence;
}

class TxnPartitionEntry<B extends SequencedBatch> {
  producerIdAndEpoch: ProducerIdAndEpoch = NO_PRODUCER_ID_AND_EPOCH;
  nextSequence = 0;
  lastAckedSequence = NO_LAST_ACKED_SEQUENCE_NUMBER;
  lastAckedOffset = -1;
  /** Sent and not resolved (success or a failure for good), by sequence; retries waiting in the queue included. */
  inflight: B[] = [];

  add(b: B): void {
    let i = this.inflight.length;
    while (i > 0 && compareBatches(this.inflight[i - 1]!, b) > 0) i--;
    insertAt(this.inflight, i, b); // (no splice: it allocates, and this runs per batch)
  }

  remove(b: B): void {
    const i = this.inflight.indexOf(b);
    if (i >= 0) removeAt(this.inflight, i);
  }

  /** Renumbers every unresolved batch from 0 under the new producer id and epoch [TxnPartitionEntry.startSequencesAtBeginning]. */
  startSequencesAtBeginning(pe: ProducerIdAndEpoch): void {
    let sequence = 0;
    for (const b of this.inflight) {
      b.resetProducerState(pe.producerId, pe.epoch, sequence);
      sequence += b.recordCount;
    }
    this.inflight.sort(compareBatches);
    this.producerIdAndEpoch = pe;
    this.nextSequence = sequence;
    this.lastAckedSequence = NO_LAST_ACKED_SEQUENCE_NUMBER;
  }
}

/** What bumpIdempotentEpochAndResetIdIfNeeded did, for the trace and the sender. */
export interface EpochBumpOutcome {
  /** The epoch went up by one; these partitions were renumbered from 0. */
  readonly bumped: boolean;
  readonly rewritten: readonly string[];
  /** The sender must send InitProducerId now (startup, or the epoch was exhausted). */
  readonly initProducerId: boolean;
}

const NO_EPOCH_BUMP: EpochBumpOutcome = Object.freeze({ bumped: false, rewritten: Object.freeze([]) as readonly string[], initProducerId: false });

const partitionKey = partitionKeyMemo('\u0000');

export class TransactionManager<B extends SequencedBatch = SequencedBatch> {
  /**
   * A transactional producer (transactional.id): its producer id and epoch come from the transaction
   * coordinator (transactionalProducer.ts), never from an idempotent InitProducerId or a local epoch bump.
   */
  isTransactional = false;
  private pidEpoch: ProducerIdAndEpoch = NO_PRODUCER_ID_AND_EPOCH;
  private currentState: TransactionManagerState = 'UNINITIALIZED';
  private readonly partitions = new Map<string, TxnPartitionEntry<B>>();
  /** Partition -> the sequence that would follow its unresolved batches [partitionsWithUnresolvedSequences]. */
  private readonly unresolved = new Map<string, number>();
  private readonly partitionsToRewriteSequences = new Set<string>();
  private epochBumpRequired = false;

  static key(topic: string, partition: number): string {
    return partitionKey(topic, partition);
  }

  get state(): TransactionManagerState {
    return this.currentState;
  }

  get producerIdAndEpoch(): ProducerIdAndEpoch {
    return this.pidEpoch;
  }

  /** [ProducerIdAndEpoch.isValid] */
  hasProducerId(): boolean {
    return this.pidEpoch.producerId !== NO_PRODUCER_ID;
  }

  private entry(tp: string): TxnPartitionEntry<B> {
    let e = this.partitions.get(tp);
    if (!e) this.partitions.set(tp, (e = new TxnPartitionEntry<B>()));
    return e;
  }

  // ---- producer id and epoch ----

  /**
   * At the start of each sender pass: bump the epoch if a partition asked for it (renumbering that partition's
   * unresolved batches from 0), and ask for InitProducerId when there is no producer id.
   * [TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded, bumpIdempotentProducerEpoch]
   */
  bumpIdempotentEpochAndResetIdIfNeeded(): EpochBumpOutcome {
    if (this.isTransactional) return NO_EPOCH_BUMP;
    // Every sender pass asks; nearly always there is nothing to do.
    if (!this.epochBumpRequired && (this.currentState === 'INITIALIZING' || this.hasProducerId())) return NO_EPOCH_BUMP;
    let bumped = false;
    let rewritten: string[] = [];
    if (this.epochBumpRequired) {
      if (this.pidEpoch.epoch >= MAX_PRODUCER_EPOCH) {
        // Epoch exhausted: a new producer id, every partition starting over.
        this.pidEpoch = NO_PRODUCER_ID_AND_EPOCH;
        this.currentState = 'UNINITIALIZED';
        this.partitions.clear();
        this.unresolved.clear();
      } else {
        this.pidEpoch = { producerId: this.pidEpoch.producerId, epoch: this.pidEpoch.epoch + 1 };
        bumped = true;
        rewritten = [...this.partitionsToRewriteSequences];
        for (const tp of rewritten) {
          this.entry(tp).startSequencesAtBeginning(this.pidEpoch);
          this.unresolved.delete(tp);
        }
      }
      this.partitionsToRewriteSequences.clear();
      this.epochBumpRequired = false;
    }
    let initProducerId = false;
    if (this.currentState !== 'INITIALIZING' && !this.hasProducerId()) {
      this.currentState = 'INITIALIZING';
      initProducerId = true;
    }
    return { bumped, rewritten, initProducerId };
  }

  /** InitProducerId answered [InitProducerIdHandler.handleResponse]. */
  setProducerIdAndEpoch(producerId: number, epoch: number): void {
    this.pidEpoch = { producerId, epoch };
    this.currentState = 'READY';
  }

  private requestEpochBumpForPartition(tp: string): void {
    this.epochBumpRequired = true;
    this.partitionsToRewriteSequences.add(tp);
  }

  get isEpochBumpRequired(): boolean {
    return this.epochBumpRequired;
  }

  // ---- sequences (at drain time) ----

  sequenceNumber(tp: string): number {
    return this.entry(tp).nextSequence;
  }

  incrementSequenceNumber(tp: string, increment: number): void {
    const e = this.entry(tp);
    e.nextSequence = incrementSequence(e.nextSequence, increment);
  }

  addInFlightBatch(b: B): void {
    if (b.baseSequence === NO_SEQUENCE) throw new Error(`TransactionManager: batch for ${b.topic}-${b.partition} has no sequence`);
    this.entry(TransactionManager.key(b.topic, b.partition)).add(b);
  }

  /** The lowest sequence sent and unresolved, or NO_SEQUENCE. */
  firstInFlightSequence(tp: string): number {
    return this.partitions.get(tp)?.inflight[0]?.baseSequence ?? NO_SEQUENCE;
  }

  hasInflightBatches(tp: string): boolean {
    return (this.partitions.get(tp)?.inflight.length ?? 0) > 0;
  }

  /** The partition still runs on an older producer id or epoch than the producer's. */
  hasStaleProducerIdAndEpoch(tp: string): boolean {
    return !samePidEpoch(this.pidEpoch, this.entry(tp).producerIdAndEpoch);
  }

  /** Once a stale partition has nothing in flight, it starts over at sequence 0 under the new epoch [maybeUpdateProducerIdAndEpoch]. */
  maybeUpdateProducerIdAndEpoch(tp: string): void {
    if (this.hasStaleProducerIdAndEpoch(tp) && !this.hasInflightBatches(tp)) this.entry(tp).startSequencesAtBeginning(this.pidEpoch);
  }

  hasUnresolvedSequence(tp: string): boolean {
    return this.unresolved.has(tp);
  }

  lastAckedSequence(tp: string): number {
    return this.partitions.get(tp)?.lastAckedSequence ?? NO_LAST_ACKED_SEQUENCE_NUMBER;
  }

  private isNextSequence(tp: string, sequence: number): boolean {
    return sequence - this.lastAckedSequence(tp) === 1;
  }

  private isNextSequenceForUnresolvedPartition(tp: string, sequence: number): boolean {
    return this.unresolved.has(tp) && this.unresolved.get(tp) === sequence;
  }

  /** A batch that had been retried expired: its fate is unknown, so no new batch may follow until it resolves [markSequenceUnresolved]. */
  markSequenceUnresolved(b: B): void {
    const tp = TransactionManager.key(b.topic, b.partition);
    const next = incrementSequence(b.lastSequence, 1);
    const prev = this.unresolved.get(tp);
    this.unresolved.set(tp, prev === undefined ? next : Math.max(prev, next));
  }

  /**
   * Once an unresolved partition has nothing in flight: if the acknowledged sequences reach the next one, all is
   * well (the expired batch was written after all); otherwise there is a gap, so bump the epoch.
   * [TransactionManager.maybeResolveSequences]
   */
  maybeResolveSequences(): void {
    if (this.unresolved.size === 0) return; // (every sender pass asks)
    for (const tp of [...this.unresolved.keys()]) {
      if (this.hasInflightBatches(tp)) continue;
      if (!this.isNextSequence(tp, this.sequenceNumber(tp))) this.requestEpochBumpForPartition(tp);
      this.unresolved.delete(tp);
    }
  }

  // ---- outcomes ----

  /** Acknowledged [TransactionManager.handleCompletedBatch]. */
  handleCompletedBatch(b: B, baseOffset: number): void {
    const e = this.entry(TransactionManager.key(b.topic, b.partition));
    if (b.lastSequence > e.lastAckedSequence) e.lastAckedSequence = b.lastSequence;
    if (baseOffset >= 0) e.lastAckedOffset = Math.max(e.lastAckedOffset, baseOffset + b.recordCount - 1);
    e.remove(b);
  }

  /**
   * Failed for good [TransactionManager.handleFailedBatch]: OUT_OF_ORDER_SEQUENCE_NUMBER means a gap, so bump
   * the epoch; UNKNOWN_PRODUCER_ID means the broker forgot us, so start the partition over; any other failure
   * that did not exhaust its retries bumps the epoch too (the sequence it held must not leave a hole).
   */
  handleFailedBatch(b: B, error: KafkaError | 'TIMEOUT', adjustSequenceNumbers: boolean): void {
    const tp = TransactionManager.key(b.topic, b.partition);
    this.partitions.get(tp)?.remove(b);
    if (error === 'OUT_OF_ORDER_SEQUENCE_NUMBER') {
      this.requestEpochBumpForPartition(tp);
    } else if (error === 'UNKNOWN_PRODUCER_ID') {
      this.partitions.delete(tp);
      this.unresolved.delete(tp);
    } else if (adjustSequenceNumbers) {
      this.requestEpochBumpForPartition(tp);
    }
  }

  /** Put back for a retry by a split or removed for good without an outcome. */
  removeInFlightBatch(b: B): void {
    this.partitions.get(TransactionManager.key(b.topic, b.partition))?.remove(b);
  }

  /**
   * Whether a batch that failed with `error` may be retried [TransactionManager.canRetry]. OUT_OF_ORDER_SEQUENCE_NUMBER
   * on a batch that is not the next expected one is an earlier batch's failure showing through: retry. On the next
   * expected one (or right after an unresolved gap) the gap is real: bump the epoch, then retry.
   * UNKNOWN_PRODUCER_ID: retry, bumping the epoch when the state was lost to retention or the batch is current.
   */
  canRetry(error: KafkaError, b: B, logStartOffset: number): boolean {
    const tp = TransactionManager.key(b.topic, b.partition);
    if (error === 'UNKNOWN_PRODUCER_ID') {
      if (logStartOffset === -1) return true;
      if (b.sequenceHasBeenReset) return true;
      const lastAckedOffset = this.partitions.get(tp)?.lastAckedOffset ?? -1;
      if (lastAckedOffset < logStartOffset) {
        this.requestEpochBumpForPartition(tp);
        return true;
      }
      this.requestEpochBumpForPartition(tp);
      return true;
    }
    if (error === 'OUT_OF_ORDER_SEQUENCE_NUMBER') {
      if (!this.hasUnresolvedSequence(tp) && (b.sequenceHasBeenReset || !this.isNextSequence(tp, b.baseSequence))) return true;
      if (!this.hasUnresolvedSequence(tp) || this.isNextSequenceForUnresolvedPartition(tp, b.baseSequence)) this.requestEpochBumpForPartition(tp);
      return true;
    }
    return isRetriable(error);
  }
}
