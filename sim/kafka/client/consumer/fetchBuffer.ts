/**
 * Fetched data not yet returned by poll(): one CompletedFetch per partition per fetch response, drained in the
 * order the responses arrived. [clients/.../consumer/internals/FetchBuffer.java, CompletedFetch.java,
 * FetchCollector.java `collectFetch`, `fetchRecords`]
 */
import type { RecordBatch } from '../../records';
import type { PartitionState } from './subscriptionState';

/** One record handed to the application. */
export interface PolledRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly leaderEpoch: number;
  /** CreateTime or LogAppendTime, ms. */
  readonly timestamp: number;
  readonly key: string | null;
  readonly value: string | null;
  /** A counted value's text is `countedPrefix + valueId` (null: the value is stored, not counted): its number, for the trace. */
  readonly countedPrefix: string | null;
  readonly valueId: number;
  /** A key `<prefix><n>` (a workload's `k<n>`): its prefix (null: no number) and n, for the trace. */
  readonly keyPrefix: string | null;
  readonly keyN: number;
}

export class CompletedFetch {
  private batchIndex = 0;
  private recordIndex = 0;
  /** The offset the next returned record must have at least; starts at the fetch offset. */
  nextFetchOffset: number;
  lastEpoch = -1;

  constructor(
    readonly key: string,
    readonly topic: string,
    readonly partition: number,
    readonly fetchOffset: number,
    private readonly batches: readonly RecordBatch[],
    /** read_committed: the batches of aborted transactions (by index), skipped like control batches. */
    private readonly aborted: readonly boolean[] | null = null,
  ) {
    this.nextFetchOffset = fetchOffset;
  }

  get exhausted(): boolean {
    return this.batchIndex >= this.batches.length;
  }

  /**
   * Appends up to `max` records at or after nextFetchOffset to `out`. Records before it (the broker returns whole
   * batches), control batches and (read_committed) aborted batches are skipped; after a batch the next offset
   * is the batch's end, which also skips offsets compaction removed and moves the position past markers.
   */
  drain(max: number, out: PolledRecord[]): number {
    let n = 0;
    while (n < max && this.batchIndex < this.batches.length) {
      const b = this.batches[this.batchIndex]!;
      if (b.isControl || this.aborted?.[this.batchIndex] === true) {
        this.nextBatch(b);
        continue;
      }
      const count = b.recordCount;
      while (n < max && this.recordIndex < count) {
        const i = this.recordIndex++;
        const offset = b.offsetAt(i);
        if (offset < this.nextFetchOffset) continue;
        const keyId = b.keyIdAt(i);
        out.push({
          topic: this.topic,
          partition: this.partition,
          offset,
          leaderEpoch: b.partitionLeaderEpoch,
          timestamp: b.timestampAt(i),
          key: b.payloads.keyText(keyId),
          value: b.valueAt(i),
          countedPrefix: b.payloads.countedPrefix,
          valueId: b.valueIdAt(i),
          keyPrefix: b.payloads.keyPrefix(keyId),
          keyN: b.payloads.keyNumber(keyId),
        });
        this.nextFetchOffset = offset + 1;
        this.lastEpoch = b.partitionLeaderEpoch;
        n++;
      }
      if (this.recordIndex >= count) this.nextBatch(b);
    }
    return n;
  }

  private nextBatch(b: RecordBatch): void {
    const end = b.baseOffset + b.lastOffsetDelta + 1;
    if (end > this.nextFetchOffset) this.nextFetchOffset = end;
    this.batchIndex++;
    this.recordIndex = 0;
  }
}

export class FetchBuffer {
  private queue: CompletedFetch[] = [];
  private readonly buffered = new Set<string>();

  add(f: CompletedFetch): void {
    this.queue.push(f);
    this.buffered.add(f.key);
  }

  /** A partition with buffered data is not fetched again until it is drained. */
  has(key: string): boolean {
    return this.buffered.has(key);
  }

  get size(): number {
    return this.queue.length;
  }

  /** Drops buffered data of a partition (seek, reset, revocation). */
  remove(key: string): void {
    if (!this.buffered.has(key)) return;
    this.queue = this.queue.filter((f) => f.key !== key);
    this.buffered.delete(key);
  }

  /** Keeps only the partitions for which `keep` holds. */
  retain(keep: (key: string) => boolean): void {
    this.queue = this.queue.filter((f) => keep(f.key));
    this.buffered.clear();
    for (const f of this.queue) this.buffered.add(f.key);
  }

  /**
   * Up to `max` records, oldest response first. A fetch is only valid while its partition is assigned and still
   * at the offset it continues from; paused partitions keep their data for later.
   * Positions advance as records are returned.
   */
  collect(max: number, stateOf: (key: string) => PartitionState | undefined): PolledRecord[] {
    const out: PolledRecord[] = [];
    const parked: CompletedFetch[] = [];
    while (out.length < max && this.queue.length > 0) {
      const f = this.queue[0]!;
      const s = stateOf(f.key);
      if (!s || s.position === null || s.position !== f.nextFetchOffset || s.awaitingValidation) {
        this.queue.shift();
        this.buffered.delete(f.key);
        continue;
      }
      if (s.paused || s.pendingRevocation) {
        parked.push(this.queue.shift()!);
        continue;
      }
      f.drain(max - out.length, out);
      s.position = f.nextFetchOffset;
      if (f.lastEpoch >= 0) s.positionEpoch = f.lastEpoch;
      if (f.exhausted) {
        this.queue.shift();
        this.buffered.delete(f.key);
      }
    }
    if (parked.length > 0) this.queue = [...parked, ...this.queue];
    return out;
  }
}
