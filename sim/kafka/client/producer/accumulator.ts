import { ms, type Micros } from '../../../core/time';
import type { ProducerConfig } from '../../config/configs';
import type { CompressionType } from '../../records';
import { ProducerBatch, type PendingRecord } from './producerBatch';

/** What the accumulator needs to know from the producer: leaders, leader epochs and the retry backoff. */
export interface AccumulatorView {
  /** The leader's broker id, -1 when unknown. */
  leaderOf(topic: string, partition: number): number;
  leaderEpochOf(topic: string, partition: number): number;
  /** Backoff before a failed batch's next attempt. */
  retryBackoffUs(b: ProducerBatch): Micros;
  /** Whether the sender holds a partition back (ordering, idempotent sequence order). */
  canDrain(b: ProducerBatch): boolean;
}

/**
 * The record accumulator [clients/.../producer/internals/RecordAccumulator.java]: one queue of batches per
 * partition, bounded by buffer.memory. The sender asks which leaders have a ready batch and drains them.
 */
export class RecordAccumulator {
  private readonly deques = new Map<string, ProducerBatch[]>();
  /** Partition keys in creation order, so iteration is deterministic. */
  private readonly keys: string[] = [];
  private readonly keyParts = new Map<string, { topic: string; partition: number }>();
  private bufferUsed = 0;
  /** Rotates the drain start so every partition gets its turn [RecordAccumulator.drainIndex]. */
  private drainIndex = 0;

  constructor(
    private readonly config: ProducerConfig,
    private readonly view: AccumulatorView,
  ) {}

  get freeMemory(): number {
    return this.config['buffer.memory'] - this.bufferUsed;
  }

  private deque(topic: string, partition: number): ProducerBatch[] {
    const k = `${topic}\u0000${partition}`;
    let d = this.deques.get(k);
    if (!d) {
      d = [];
      this.deques.set(k, d);
      this.keys.push(k);
      this.keyParts.set(k, { topic, partition });
    }
    return d;
  }

  /** The batches waiting for one partition (head first). */
  batchesOf(topic: string, partition: number): readonly ProducerBatch[] {
    return this.deques.get(`${topic}\u0000${partition}`) ?? [];
  }

  /** Whether the partition's last batch is full or absent (the sticky partitioner may switch). */
  lastBatchFull(topic: string, partition: number): boolean {
    const d = this.deques.get(`${topic}\u0000${partition}`);
    if (!d || d.length === 0) return true;
    return d[d.length - 1]!.isFull;
  }

  /** Queued batches per partition, for the adaptive partitioner's load statistics. */
  queueSize(topic: string, partition: number): number {
    return this.deques.get(`${topic}\u0000${partition}`)?.length ?? 0;
  }

  /**
   * Appends a record. Returns the batch it landed in, or null when buffer.memory has no room for a new
   * batch (the caller blocks up to max.block.ms).
   */
  append(topic: string, partition: number, rec: PendingRecord, recordBytes: number, nowUs: Micros, compression: CompressionType): ProducerBatch | null {
    const d = this.deque(topic, partition);
    const last = d[d.length - 1];
    if (last && last.tryAppend(rec)) return last;
    const capacity = Math.max(this.config['batch.size'], recordBytes + 61);
    if (capacity > this.freeMemory) return null;
    const b = new ProducerBatch(topic, partition, nowUs, capacity, compression);
    b.tryAppend(rec);
    this.bufferUsed += b.allocatedBytes;
    d.push(b);
    return b;
  }

  /** Frees a finished batch's memory. */
  deallocate(b: ProducerBatch): void {
    this.bufferUsed -= b.allocatedBytes;
  }

  /** Puts a failed batch back at the front of its queue, in sequence order [RecordAccumulator.reenqueue / insertInSequenceOrder]. */
  reenqueue(b: ProducerBatch, nowUs: Micros): void {
    b.lastRetryUs = nowUs;
    b.inFlight = false;
    const d = this.deque(b.topic, b.partition);
    if (b.baseSequence < 0) {
      d.unshift(b);
      return;
    }
    let i = 0;
    while (i < d.length && d[i]!.baseSequence >= 0 && d[i]!.baseSequence < b.baseSequence) i++;
    d.splice(i, 0, b);
  }

  /**
   * Which leaders have something ready, and how long until the next batch becomes ready
   * [RecordAccumulator.ready / batchReady]. `leaderOf` returns -1 for an unknown leader.
   */
  ready(nowUs: Micros, exhausted: boolean): { nodes: number[]; nextCheckUs: Micros; unknownLeader: boolean } {
    const nodes = new Set<number>();
    let next = Infinity;
    let unknownLeader = false;
    const linger = ms(this.config['linger.ms']);
    for (const k of this.keys) {
      const d = this.deques.get(k)!;
      const head = d[0];
      if (!head) continue;
      const { topic, partition } = this.keyParts.get(k)!;
      const leader = this.view.leaderOf(topic, partition);
      if (leader < 0) {
        unknownLeader = true;
        continue;
      }
      if (nodes.has(leader) || !this.view.canDrain(head)) continue;
      const backoff = this.backoffRemaining(head, nowUs);
      const backingOff = backoff > 0;
      const waitUs = head.lastRetryUs >= 0 ? backoff : linger - (nowUs - head.createdUs);
      const full = d.length > 1 || head.isFull;
      if (!backingOff && (full || waitUs <= 0 || exhausted)) nodes.add(leader);
      else next = Math.min(next, Math.max(1, waitUs));
    }
    return { nodes: [...nodes].sort((a, b) => a - b), nextCheckUs: next, unknownLeader };
  }

  /** Backoff left for a retried batch; none once the partition's leader changed [RecordAccumulator.shouldBackoff]. */
  backoffRemaining(b: ProducerBatch, nowUs: Micros): Micros {
    if (b.lastRetryUs < 0) return 0;
    if (this.view.leaderEpochOf(b.topic, b.partition) > b.failedLeaderEpoch) return 0;
    return b.lastRetryUs + this.view.retryBackoffUs(b) - nowUs;
  }

  /**
   * Takes at most one batch per partition led by `node`, up to max.request.size [RecordAccumulator.drain].
   * `canDrain` lets the sender hold back a partition (ordering with one in flight, idempotent sequence order).
   */
  drain(node: number, nowUs: Micros): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    let size = 0;
    const n = this.keys.length;
    if (n === 0) return out;
    const start = this.drainIndex % n;
    for (let j = 0; j < n; j++) {
      const k = this.keys[(start + j) % n]!;
      const d = this.deques.get(k)!;
      const head = d[0];
      if (!head) continue;
      const { topic, partition } = this.keyParts.get(k)!;
      if (this.view.leaderOf(topic, partition) !== node) continue;
      if (this.backoffRemaining(head, nowUs) > 0) continue;
      if (!this.view.canDrain(head)) continue;
      if (out.length > 0 && size + head.estimatedBytes > this.config['max.request.size']) break;
      d.shift();
      head.closed = true;
      out.push(head);
      size += head.estimatedBytes;
      this.drainIndex = (start + j + 1) % n;
    }
    return out;
  }

  /** Batches (not in flight) past delivery.timeout.ms, removed from their queues [RecordAccumulator.expiredBatches]. */
  expired(nowUs: Micros): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    const limit = ms(this.config['delivery.timeout.ms']);
    for (const k of this.keys) {
      const d = this.deques.get(k)!;
      while (d.length > 0 && nowUs - d[0]!.createdUs >= limit) out.push(d.shift()!);
    }
    return out;
  }

  /** Earliest creation time of any queued batch (to schedule the next expiry check). */
  oldestBatchUs(): Micros {
    let t = Infinity;
    for (const k of this.keys) {
      const head = this.deques.get(k)![0];
      if (head && head.createdUs < t) t = head.createdUs;
    }
    return t;
  }

  hasUndrained(): boolean {
    for (const k of this.keys) if (this.deques.get(k)!.length > 0) return true;
    return false;
  }
}
