import type { Micros } from '../../core/time';
import type { Disk, DiskError } from '../../world/disk';
import { endOffsetForEpoch, type EpochStart, type OffsetAndEpoch } from './epochEndOffset';
import { batchCount, batchEnd, type RaftBatch } from './messages';

/** The metadata partition's directory name under a node's metadata log dir. */
export const METADATA_PARTITION_DIR = '__cluster_metadata-0';

/** What recovery found on disk. */
export interface LogRecovery {
  readonly endOffset: number;
  readonly lastEpoch: number;
  /** Batches dropped at the tail: a torn write, or anything after it. */
  readonly droppedBatches: number;
}

/** An fsync under way: the log end offset it will make durable (a truncation lowers it). */
export interface FlushToken {
  upTo: number;
}

/**
 * The `__cluster_metadata-0` log of one node: a single segment file on the node's simulated disk, one disk
 * chunk per record batch, with an in-memory index (batch base offsets and the leader-epoch cache) so reads and
 * epoch lookups are binary searches [core/.../raft/KafkaMetadataLog.scala over UnifiedLog]. Snapshots and
 * retention are not modelled: the log starts at offset 0.
 *
 * Durability is tracked here too: `flushedEnd` is the end offset this node's own fsyncs have made durable,
 * which is what a follower may report and what the leader counts toward the high watermark.
 */
export class MetadataLog<R> {
  readonly file: string;
  private batches: RaftBatch<R>[] = [];
  private cache: EpochStart[] = [];
  private end = 0;
  private flushed = 0;
  private readonly flushes: FlushToken[] = [];
  readonly recovery: LogRecovery;

  constructor(
    private readonly disk: Disk,
    dir: string,
  ) {
    this.file = `${dir}/${METADATA_PARTITION_DIR}/00000000000000000000.log`;
    this.recovery = this.recover();
  }

  /** Reloads the log from disk, dropping a torn tail [storage/.../log/LogLoader.java recovery: a bad CRC ends the log]. */
  private recover(): LogRecovery {
    const chunks = this.disk.read<RaftBatch<R>>(this.file);
    let keep = 0;
    for (const c of chunks) {
      if (c.torn || c.data.baseOffset !== this.end) break;
      this.index(c.data);
      keep++;
    }
    const dropped = chunks.length - keep;
    if (dropped > 0) this.disk.truncate(this.file, keep);
    return { endOffset: this.end, lastEpoch: this.lastFetchedEpoch, droppedBatches: dropped };
  }

  private index(b: RaftBatch<R>): void {
    this.batches.push(b);
    const last = this.cache[this.cache.length - 1];
    if (!last || b.epoch > last.epoch) this.cache.push({ epoch: b.epoch, startOffset: b.baseOffset });
    this.end = batchEnd(b);
  }

  /** The offset the next record gets (Kafka's log end offset). */
  get endOffset(): number {
    return this.end;
  }

  /** The epoch of the last batch, 0 for an empty log [KafkaMetadataLog.lastFetchedEpoch]. */
  get lastFetchedEpoch(): number {
    const last = this.cache[this.cache.length - 1];
    return last ? last.epoch : 0;
  }

  /** (end offset, last epoch): what a Vote request carries and what it is compared with. */
  get endOffsetAndEpoch(): OffsetAndEpoch {
    return { offset: this.end, epoch: this.lastFetchedEpoch };
  }

  get epochCache(): readonly EpochStart[] {
    return this.cache;
  }

  /** End offset made durable by this node's completed fsyncs. */
  get flushedEnd(): number {
    return this.flushed;
  }

  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    return endOffsetForEpoch(this.cache, epoch, this.end);
  }

  /** Appends a batch at the log end (page cache only). */
  append(batch: RaftBatch<R>): DiskError | null {
    if (batch.baseOffset !== this.end) {
      throw new Error(`${this.file}: batch at offset ${batch.baseOffset} does not follow the log end offset ${this.end}`);
    }
    if (batch.epoch < this.lastFetchedEpoch) {
      throw new Error(`${this.file}: batch of epoch ${batch.epoch} after epoch ${this.lastFetchedEpoch}`);
    }
    const err = this.disk.append(this.file, batch, batch.bytes);
    if (err) return err;
    this.index(batch);
    return null;
  }

  /** Starts an fsync of everything written so far; returns when it completes and the token to complete it with. */
  startFlush(): { doneAt: Micros; token: FlushToken } {
    const token: FlushToken = { upTo: this.end };
    this.flushes.push(token);
    return { doneAt: this.disk.fsync(this.file), token };
  }

  /** The fsync of `token` completed: its prefix is durable. */
  completeFlush(token: FlushToken): void {
    const i = this.flushes.indexOf(token);
    if (i >= 0) this.flushes.splice(i, 1);
    if (token.upTo > this.flushed) this.flushed = Math.min(token.upTo, this.end);
  }

  /** Index of the batch holding `offset` (offset < end). */
  private batchIndexOf(offset: number): number {
    let lo = 0;
    let hi = this.batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.batches[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Removes every record at or after `offset`; returns how many records went. A cut inside a batch keeps its
   * head as a new, shorter batch (rare: leaders' batches end at epoch boundaries, where truncations fall).
   */
  truncateTo(offset: number): number {
    if (offset >= this.end) return 0;
    const cut = Math.max(0, offset);
    const removed = this.end - cut;
    const i = cut === 0 ? 0 : this.batchIndexOf(cut);
    const b = this.batches[i];
    let head: RaftBatch<R> | null = null;
    if (b && b.baseOffset < cut) head = sliceBatch(b, b.baseOffset, cut);
    this.batches.length = i;
    this.disk.truncate(this.file, i);
    this.cache = this.cache.filter((e) => e.startOffset < (head ? head.baseOffset : cut));
    this.end = i === 0 ? 0 : batchEnd(this.batches[i - 1]!);
    if (head) {
      this.disk.append(this.file, head, head.bytes);
      this.index(head);
    }
    // A rewritten head is a new write: durable again only after the next fsync.
    const durableLimit = head ? head.baseOffset : cut;
    if (this.flushed > durableLimit) this.flushed = durableLimit;
    for (const f of this.flushes) if (f.upTo > durableLimit) f.upTo = durableLimit;
    return removed;
  }

  /**
   * Batches holding offsets [from, to), the first and last cut to the range; at least one batch once `from`
   * is below the end, then up to `maxBytes` [KafkaMetadataLog.read: whole batches up to the fetch size].
   */
  read(from: number, to: number = this.end, maxBytes: number = Number.POSITIVE_INFINITY): RaftBatch<R>[] {
    const out: RaftBatch<R>[] = [];
    if (from >= to || from >= this.end) return out;
    let bytes = 0;
    for (let i = this.batchIndexOf(from); i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.baseOffset >= to) break;
      if (out.length > 0 && bytes + b.bytes > maxBytes) break;
      const s = Math.max(from, b.baseOffset);
      const e = Math.min(to, batchEnd(b));
      const part = s === b.baseOffset && e === batchEnd(b) ? b : sliceBatch(b, s, e);
      out.push(part);
      bytes += part.bytes;
    }
    return out;
  }

  /** Every batch (tests and the UI). */
  allBatches(): readonly RaftBatch<R>[] {
    return this.batches;
  }
}

/** Records [from, to) of a batch as a batch of their own (same epoch); sizes shrink in proportion. */
export function sliceBatch<R>(b: RaftBatch<R>, from: number, to: number): RaftBatch<R> {
  const n = batchCount(b);
  const s = Math.max(0, from - b.baseOffset);
  const e = Math.min(n, to - b.baseOffset);
  if (s === 0 && e === n) return b;
  return {
    baseOffset: b.baseOffset + s,
    epoch: b.epoch,
    records: b.control ? b.records : b.records.slice(s, e),
    control: b.control,
    bytes: Math.max(1, Math.round((b.bytes * (e - s)) / n)),
    appendTime: b.appendTime,
  };
}
