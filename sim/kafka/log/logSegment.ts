import type { Chunk, Disk, DiskError } from '../../world/disk';
import { lastOffset, nextOffset, type RecordBatch } from '../records';
import { OffsetIndex } from './offsetIndex';
import type { ActiveSegmentState } from './segmentRoll';
import { TimeIndex } from './timeIndex';

/** A segment file's chunk is a batch, as big as the batch says (so the disk keeps no size column for it). */
const batchBytes = (chunk: unknown): number => (chunk as RecordBatch).sizeInBytes;

export interface SegmentIndexLimits {
  readonly maxOffsetIndexEntries: number;
  readonly maxTimeIndexEntries: number;
}

/**
 * One segment: a `.log` file on the disk holding one chunk per record batch, with its in-memory offset and
 * time indexes. Reads go to the file's chunks as the page cache holds them, as Kafka's FileRecords reads do.
 * [src: storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegment.java]
 */
export class LogSegment implements ActiveSegmentState {
  /** The file's batches (the disk's live view of it). */
  private _batches: readonly RecordBatch[];
  private _size = 0;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  private bytesSinceLastIndexEntry = 0;
  private _maxTimestampSoFar = -1;
  private _records = 0;
  lastModifiedMs: number;

  constructor(
    private readonly disk: Disk,
    private _file: string,
    readonly baseOffset: number,
    limits: SegmentIndexLimits,
    public createdMs: number,
    readonly rollJitterMs: number,
  ) {
    this.offsetIndex = new OffsetIndex(baseOffset, limits.maxOffsetIndexEntries);
    this.timeIndex = new TimeIndex(baseOffset, limits.maxTimeIndexEntries);
    this.lastModifiedMs = createdMs;
    disk.create(_file, batchBytes);
    this._batches = disk.liveData<RecordBatch>(_file);
  }

  /** The batches in the file, oldest first. */
  get batches(): readonly RecordBatch[] {
    return this._batches;
  }

  get file(): string {
    return this._file;
  }

  /** Bytes in the segment file. */
  get size(): number {
    return this._size;
  }

  /** Records (not batches) in the segment. */
  get recordCount(): number {
    return this._records;
  }

  get isEmpty(): boolean {
    return this._batches.length === 0;
  }

  /** The offset after the last batch, or the base offset when empty. [src: LogSegment.java `readNextOffset`] */
  get nextOffset(): number {
    const last = this._batches[this._batches.length - 1];
    return last === undefined ? this.baseOffset : nextOffset(last);
  }

  get maxTimestampSoFar(): number {
    return this._maxTimestampSoFar;
  }

  /** What retention.ms compares with: the max timestamp, or the last write time without timestamps. [src: LogSegment.java `largestTimestamp`] */
  get largestTimestamp(): number {
    return this._maxTimestampSoFar >= 0 ? this._maxTimestampSoFar : this.lastModifiedMs;
  }

  /** Max timestamp of the first batch, or -1. [src: LogSegment.java `loadFirstBatchTimestamp`] */
  get firstBatchTimestamp(): number {
    return this.batches[0]?.maxTimestamp ?? -1;
  }

  get offsetIndexFull(): boolean {
    return this.offsetIndex.isFull;
  }

  get timeIndexFull(): boolean {
    return this.timeIndex.isFull;
  }

  /** What the roll rule reads of the segment: the segment itself (checked before every append, so no copy). */
  rollState(): ActiveSegmentState {
    return this;
  }

  /** Writes the batch to the page cache and indexes it. Nothing changes when the disk refuses. [src: LogSegment.java `append`] */
  append(batch: RecordBatch, nowMs: number, indexIntervalBytes: number): DiskError | null {
    const position = this._batches.length;
    const err = this.disk.append(this._file, batch, batch.sizeInBytes);
    if (err !== null) return err;
    this.index(batch, position, indexIntervalBytes);
    this.lastModifiedMs = nowMs;
    return null;
  }

  /** Indexes the file's batch at `position`, already written (recovery reads the file back this way). */
  track(position: number, indexIntervalBytes: number): void {
    this.index(this._batches[position]!, position, indexIntervalBytes);
  }

  private index(batch: RecordBatch, position: number, indexIntervalBytes: number): void {
    if (batch.maxTimestamp > this._maxTimestampSoFar) this._maxTimestampSoFar = batch.maxTimestamp;
    // The entry is added before counting this batch's bytes, so the first batch after a gap of
    // index.interval.bytes gets indexed.
    if (this.bytesSinceLastIndexEntry > indexIntervalBytes && !this.offsetIndex.isFull) {
      this.offsetIndex.append(lastOffset(batch), position);
      this.timeIndex.maybeAppend(this._maxTimestampSoFar, lastOffset(batch));
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += batch.sizeInBytes;
    this._size += batch.sizeInBytes;
    this._records += batch.recordCount;
  }

  /** Index of the first batch whose last offset >= `offset`, or -1. Index lookup, then a scan. [src: LogSegment.java `translateOffset`] */
  translateOffset(offset: number): number {
    const batches = this.batches;
    for (let i = this.offsetIndex.lookup(offset); i < batches.length; i++) {
      if (lastOffset(batches[i]!) >= offset) return i;
    }
    return -1;
  }

  /**
   * Whole batches from the one holding `startOffset`: at most `maxSize` bytes (at least the first batch when
   * `minOneMessage`, KIP-74), none reaching `maxOffsetExclusive`. Null when nothing here is at or after
   * `startOffset`. [src: LogSegment.java `read`]
   */
  read(startOffset: number, maxSize: number, maxOffsetExclusive: number, minOneMessage: boolean): RecordBatch[] | null {
    const start = this.translateOffset(startOffset);
    if (start < 0) return null;
    const batches = this.batches;
    const limit = minOneMessage ? Math.max(maxSize, batches[start]!.sizeInBytes) : maxSize;
    const out: RecordBatch[] = [];
    let bytes = 0;
    for (let i = start; i < batches.length; i++) {
      const b = batches[i]!;
      if (nextOffset(b) > maxOffsetExclusive || bytes + b.sizeInBytes > limit) break;
      out.push(b);
      bytes += b.sizeInBytes;
    }
    return out;
  }

  /** The first offset with a timestamp >= target in this segment, from the time index then a scan. [src: LogSegment.java `findOffsetByTimestamp`] */
  findOffsetByTimestamp(targetTimestamp: number, startingOffset: number): { offset: number; timestamp: number; leaderEpoch: number } | null {
    const from = this.translateOffset(Math.max(this.timeIndex.lookup(targetTimestamp), startingOffset));
    if (from < 0) return null;
    for (let i = from; i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.maxTimestamp < targetTimestamp) continue;
      for (let r = 0; r < b.recordCount; r++) {
        const offset = b.offsetAt(r);
        const ts = b.timestampAt(r);
        if (ts >= targetTimestamp && offset >= startingOffset) return { offset, timestamp: ts, leaderEpoch: b.partitionLeaderEpoch };
      }
    }
    return null;
  }

  /**
   * Removes the batch holding `offset` and everything after it (file and indexes); returns what was removed.
   * [src: LogSegment.java `truncateTo`]
   */
  truncateTo(offset: number, nowMs: number): RecordBatch[] {
    const i = this.translateOffset(offset);
    if (i < 0) return [];
    const removed = this._batches.slice(i);
    for (const b of removed) {
      this._size -= b.sizeInBytes;
      this._records -= b.recordCount;
    }
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    this.disk.truncate(this._file, i); // the file's batches end at i now
    this.bytesSinceLastIndexEntry = 0;
    this._maxTimestampSoFar = -1;
    for (const b of this.batches) if (b.maxTimestamp > this._maxTimestampSoFar) this._maxTimestampSoFar = b.maxTimestamp;
    if (this.batches.length === 0) this.createdMs = nowMs;
    return removed;
  }

  /** Starts an fsync of the segment file; returns its completion time. */
  flush(): number {
    return this.disk.fsync(this._file);
  }

  /** Renames the file (a cleaned segment swapped in, a segment marked for deletion). */
  renameTo(file: string): void {
    this.disk.rename(this._file, file);
    this._file = file;
    this._batches = this.disk.liveData<RecordBatch>(file);
  }

  /** The chunks the disk holds for this segment now (tests, recovery). */
  chunks(): readonly Chunk<RecordBatch>[] {
    return this.disk.read<RecordBatch>(this._file);
  }
}
