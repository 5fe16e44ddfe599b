import type { Micros } from '../../core/time';
import type { Disk } from '../../world/disk';
import { NO_SEQUENCE, nextOffset, type RecordBatch } from '../records';
import {
  checkProducerAppend,
  isProducerExpired,
  updateProducerEntry,
  type AppendOrigin,
  type ProducerAppendCheck,
  type ProducerStateEntry,
} from './producerAppendInfo';
import { PRODUCER_SNAPSHOT_FILE_SUFFIX, offsetFromFileName, producerSnapshotFile } from './logFileNames';
import { firstUnstableOffset, lastStableOffsetOfCompletion, stillUnreplicated, type CompletedTxn, type TxnMetadata } from './lastStableOffset';

/** One producer in a snapshot file: only its last batch is kept. [src: ProducerStateManager.java PRODUCER_SNAPSHOT_SCHEMA] */
export interface ProducerSnapshotEntry {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly lastSequence: number;
  readonly lastOffset: number;
  readonly offsetDelta: number;
  readonly timestamp: number;
  /** The first offset of the producer's open transaction, when one is open. [src: PRODUCER_SNAPSHOT_SCHEMA `current_txn_first_offset`] */
  readonly currentTxnFirstOffset?: number;
}

/** Sequences wrap at Integer.MAX_VALUE. [src: DefaultRecordBatch.java `decrementSequence`] */
function decrementSequence(seq: number, decrement: number): number {
  if (seq === NO_SEQUENCE) return NO_SEQUENCE;
  return seq < decrement ? 0x7fffffff - (decrement - seq) + 1 : seq - decrement;
}

/** Bytes of a snapshot file: a 10-byte header and 42 bytes per producer. [src: ProducerStateManager.java `writeSnapshot`] */
function snapshotBytes(n: number): number {
  return 10 + 42 * n;
}

/**
 * Per-partition idempotent-producer state: the entries, the offset they are complete up to (`mapEndOffset`)
 * and the `<offset>.snapshot` files that let a restart or a truncation start from a roll point instead of the
 * log start. [src: storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java]
 */
export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerStateEntry>();
  private _mapEndOffset = 0;
  private lastSnapOffset = -1;
  /** Undecided transactions, by first offset. [src: ProducerStateManager.java `ongoingTxns`] */
  private ongoingTxns: TxnMetadata[] = [];
  /** Decided transactions whose marker is not yet below the HW, by first offset. [src: `unreplicatedTxns`] */
  private unreplicatedTxns: TxnMetadata[] = [];

  constructor(
    private readonly disk: Disk,
    private readonly dir: string,
    private readonly producerIdExpirationMs: number,
  ) {}

  /** The next offset the state does not cover yet. */
  get mapEndOffset(): number {
    return this._mapEndOffset;
  }

  get isEmpty(): boolean {
    return this.producers.size === 0 && this.unreplicatedTxns.length === 0;
  }

  /** Whether any transaction is open or not yet stable: the LSO may be below the HW. */
  get hasUnstableTransactions(): boolean {
    return this.ongoingTxns.length > 0 || this.unreplicatedTxns.length > 0;
  }

  /** The first offset of an undecided or unreplicated transaction (at least `logStartOffset`). [src: `firstUnstableOffset`] */
  firstUnstableOffset(logStartOffset: number): number | undefined {
    return firstUnstableOffset(this.ongoingTxns, this.unreplicatedTxns, logStartOffset);
  }

  /** The earliest undecided transaction's first offset (replication state aside). [src: `firstUndecidedOffset`] */
  firstUndecidedOffset(): number | undefined {
    return this.ongoingTxns[0]?.firstOffset;
  }

  /** The open transactions (inspection: UI, tests). */
  ongoingTransactions(): readonly TxnMetadata[] {
    return this.ongoingTxns;
  }

  /** The LSO to store with a completion in the aborted-transaction index, before `completeTxn`. [src: `lastStableOffset(CompletedTxn)`] */
  lastStableOffset(completed: CompletedTxn): number {
    return lastStableOffsetOfCompletion(this.ongoingTxns, completed);
  }

  /** The transaction's marker is in the log: it is decided, and stable once the HW passes the marker. [src: `completeTxn`] */
  completeTxn(completed: CompletedTxn): void {
    const i = this.ongoingTxns.findIndex((t) => t.firstOffset === completed.firstOffset);
    if (i < 0) throw new Error(`Attempted to complete transaction ${JSON.stringify(completed)} which was not started`);
    this.ongoingTxns.splice(i, 1);
    insertByFirstOffset(this.unreplicatedTxns, { producerId: completed.producerId, firstOffset: completed.firstOffset, lastOffset: completed.lastOffset });
  }

  /** The HW moved: transactions whose marker is below it are stable. [src: `onHighWatermarkUpdated`] */
  onHighWatermarkUpdated(highWatermark: number): void {
    if (this.unreplicatedTxns.length > 0) this.unreplicatedTxns = stillUnreplicated(this.unreplicatedTxns, highWatermark);
  }

  /** [src: `onLogStartOffsetIncremented`] */
  onLogStartOffsetIncremented(logStartOffset: number): void {
    if (this.unreplicatedTxns.length > 0) this.unreplicatedTxns = stillUnreplicated(this.unreplicatedTxns, logStartOffset);
  }

  lastEntry(producerId: number): ProducerStateEntry | undefined {
    return this.producers.get(producerId);
  }

  /** Entries sorted by producer id. */
  activeProducers(): ProducerStateEntry[] {
    return [...this.producers.values()].sort((a, b) => a.producerId - b.producerId);
  }

  /** Producer id -> last offset of its last data batch (the cleaner keeps that batch). [src: UnifiedLog `lastRecordsOfActiveProducers`] */
  lastDataOffsets(): Map<number, number> {
    const out = new Map<number, number>();
    for (const e of this.activeProducers()) {
      const last = e.batchMetadata[e.batchMetadata.length - 1];
      if (last !== undefined) out.set(e.producerId, last.lastOffset);
    }
    return out;
  }

  check(batch: RecordBatch, origin: AppendOrigin): ProducerAppendCheck {
    if (batch.producerId < 0) return { kind: 'ok' };
    return checkProducerAppend(this.producers.get(batch.producerId), batch, origin);
  }

  /**
   * Records an appended batch (leader or follower; no checks). A transactional data batch may open a
   * transaction; a marker decides one and is returned as a CompletedTxn for the caller to index and then
   * `completeTxn` (a marker of a producer with no open transaction here completes nothing).
   * [src: ProducerStateManager.java `update`; ProducerAppendInfo.java `appendEndTxnMarker`, `startedTransactions`]
   */
  update(batch: RecordBatch): CompletedTxn | undefined {
    this._mapEndOffset = nextOffset(batch);
    if (batch.producerId < 0) return undefined;
    const before = this.producers.get(batch.producerId);
    const after = updateProducerEntry(before, batch);
    this.producers.set(batch.producerId, after);
    if (batch.isControl) {
      const first = before?.currentTxnFirstOffset;
      if (first === undefined) return undefined;
      return { producerId: batch.producerId, firstOffset: first, lastOffset: batch.baseOffset, isAborted: batch.controlType === 'ABORT' };
    }
    if (after.currentTxnFirstOffset !== undefined && before?.currentTxnFirstOffset === undefined) {
      insertByFirstOffset(this.ongoingTxns, { producerId: batch.producerId, firstOffset: after.currentTxnFirstOffset });
    }
    return undefined;
  }

  updateMapEndOffset(offset: number): void {
    this._mapEndOffset = offset;
  }

  /** [src: ProducerStateManager.java `removeExpiredProducers`] */
  removeExpiredProducers(nowMs: number): number {
    let removed = 0;
    for (const e of this.activeProducers()) {
      if (e.currentTxnFirstOffset === undefined && isProducerExpired(e, nowMs, this.producerIdExpirationMs)) {
        this.producers.delete(e.producerId);
        removed++;
      }
    }
    return removed;
  }

  // ---- snapshots ----

  /** Offsets of the snapshot files on disk, ascending. */
  snapshotOffsets(): number[] {
    const out: number[] = [];
    for (const f of this.disk.list(`${this.dir}/`)) {
      const o = offsetFromFileName(f, PRODUCER_SNAPSHOT_FILE_SUFFIX);
      if (o !== null) out.push(o);
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * Writes `<mapEndOffset>.snapshot` (only each producer's last batch) and starts its fsync; returns the
   * completion time, or null when the state has not moved since the last snapshot. [src: ProducerStateManager.java `takeSnapshot`]
   */
  takeSnapshot(): Micros | null {
    if (this._mapEndOffset <= this.lastSnapOffset) return null;
    const entries: ProducerSnapshotEntry[] = this.activeProducers().map((e) => {
      const last = e.batchMetadata[e.batchMetadata.length - 1];
      return {
        producerId: e.producerId,
        producerEpoch: e.producerEpoch,
        lastSequence: last?.lastSeq ?? NO_SEQUENCE,
        lastOffset: last?.lastOffset ?? -1,
        offsetDelta: last ? last.lastOffset - last.firstOffset : 0,
        timestamp: e.lastTimestamp,
        ...(e.currentTxnFirstOffset !== undefined ? { currentTxnFirstOffset: e.currentTxnFirstOffset } : {}),
      };
    });
    const file = producerSnapshotFile(this.dir, this._mapEndOffset);
    this.disk.rewrite(file, [{ data: entries, bytes: snapshotBytes(entries.length) }]);
    this.lastSnapOffset = this._mapEndOffset;
    return this.disk.fsync(file);
  }

  deleteSnapshot(offset: number): void {
    this.disk.delete(producerSnapshotFile(this.dir, offset));
    if (offset === this.lastSnapOffset) this.lastSnapOffset = -1;
  }

  /** Forgets everything and deletes every snapshot. [src: ProducerStateManager.java `truncateFullyAndStartAt`] */
  truncateFullyAndStartAt(offset: number): void {
    this.producers.clear();
    this.ongoingTxns = [];
    this.unreplicatedTxns = [];
    for (const o of this.snapshotOffsets()) this.deleteSnapshot(o);
    this._mapEndOffset = offset;
    this.lastSnapOffset = -1;
  }

  /**
   * Drops snapshots outside (logStartOffset, logEndOffset] and restarts from the latest one that survived
   * (or from nothing). The caller then replays the log from `mapEndOffset`.
   * [src: ProducerStateManager.java `truncateAndReload`, `loadFromSnapshot`]
   */
  truncateAndReload(logStartOffset: number, logEndOffset: number, nowMs: number): void {
    for (const o of this.snapshotOffsets()) if (o > logEndOffset || o <= logStartOffset) this.deleteSnapshot(o);
    this.producers.clear();
    this.ongoingTxns = [];
    this.unreplicatedTxns = [];
    this.lastSnapOffset = logStartOffset;
    this._mapEndOffset = logStartOffset;
    const offsets = this.snapshotOffsets();
    for (let i = offsets.length - 1; i >= 0; i--) {
      const o = offsets[i]!;
      const chunk = this.disk.read<readonly ProducerSnapshotEntry[]>(producerSnapshotFile(this.dir, o))[0];
      if (chunk === undefined || chunk.torn === true) {
        // A snapshot that did not survive is corrupt: Kafka deletes it and tries an older one.
        this.deleteSnapshot(o);
        continue;
      }
      for (const s of chunk.data) {
        const entry: ProducerStateEntry = {
          producerId: s.producerId,
          producerEpoch: s.producerEpoch,
          batchMetadata:
            s.lastOffset < 0
              ? []
              : [
                  {
                    firstSeq: decrementSequence(s.lastSequence, s.offsetDelta),
                    lastSeq: s.lastSequence,
                    firstOffset: s.lastOffset - s.offsetDelta,
                    lastOffset: s.lastOffset,
                    timestamp: s.timestamp,
                  },
                ],
          lastTimestamp: s.timestamp,
          ...(s.currentTxnFirstOffset !== undefined ? { currentTxnFirstOffset: s.currentTxnFirstOffset } : {}),
        };
        // A producer with an open transaction is kept whatever its age (Kafka: `isProducerExpired` requires no open txn).
        if (entry.currentTxnFirstOffset !== undefined) insertByFirstOffset(this.ongoingTxns, { producerId: s.producerId, firstOffset: entry.currentTxnFirstOffset });
        if (entry.currentTxnFirstOffset !== undefined || !isProducerExpired(entry, nowMs, this.producerIdExpirationMs)) this.producers.set(s.producerId, entry);
      }
      this._mapEndOffset = o;
      this.lastSnapOffset = o;
      return;
    }
  }
}

/** Keeps a small list ordered by first offset (Kafka's TreeMap keyed by first offset). */
function insertByFirstOffset(list: TxnMetadata[], t: TxnMetadata): void {
  let i = list.length;
  while (i > 0 && list[i - 1]!.firstOffset > t.firstOffset) i--;
  list.splice(i, 0, t);
}
