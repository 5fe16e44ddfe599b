import { insertAt, removeAt } from '../../../core/lists';
import { ms, type Micros } from '../../../core/time';
import type { ProducerConfig } from '../../config/configs';
import { COMPRESSION_RATIO, NO_SEQUENCE, type PayloadTable } from '../../records';
import type { BufferPool } from './bufferPool';
import type { CompressionRatioEstimator } from './compressionRatioEstimator';
import { ProducerBatch, type PendingRecord } from './producerBatch';
import { TransactionManager } from './transactionManager';

/** What the accumulator reads of the producer's metadata: leaders and their epochs (-1 when unknown). */
export interface ClusterView {
  leaderOf(topic: string, partition: number): number;
  leaderEpochOf(topic: string, partition: number): number;
  /** Bumped whenever a leader may have changed; lets the accumulator reuse its per-leader grouping. */
  readonly version?: number;
}

/** [RecordAccumulator.ReadyCheckResult] */
export interface ReadyCheckResult {
  /** Leaders with at least one partition ready to send, ascending. */
  readonly readyNodes: readonly number[];
  /** How long until a partition that is not ready yet may become ready (Infinity: none waiting). */
  readonly nextReadyCheckDelayUs: Micros;
  /** Topics with queued batches for a partition whose leader is unknown (a metadata refresh is due). */
  readonly unknownLeaderTopics: readonly string[];
}

/** [RecordAccumulator.RecordAppendResult] */
export interface RecordAppendResult {
  readonly batch: ProducerBatch;
  readonly newBatchCreated: boolean;
  /** How much the partition's queue grew in bytes (the sticky partitioner counts these). */
  readonly appendedBytes: number;
}

interface PartitionQueue {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  readonly deque: ProducerBatch[];
  /** Its place in creation order. */
  readonly index: number;
}

/**
 * The record accumulator [clients/.../producer/internals/RecordAccumulator.java]: one queue of batches per
 * partition, in buffer.memory. send() appends to the last batch of its partition or opens a new one; the sender
 * asks which leaders have a batch ready (full, lingered long enough, or memory exhausted), then drains at most one
 * batch per partition of each ready leader into one request, stamping producer ids and sequences as it goes.
 */
const NO_QUEUES: readonly PartitionQueue[] = [];
const NO_NODES: readonly number[] = Object.freeze([]);
const NO_TOPICS: readonly string[] = Object.freeze([]);

/** Puts `n` in its place in the ascending `list` (which does not hold it). */
function insertSorted(list: number[], n: number): void {
  let i = list.length;
  list.push(n);
  while (i > 0 && list[i - 1]! > n) {
    list[i] = list[i - 1]!;
    i--;
  }
  list[i] = n;
}

export class RecordAccumulator {
  private readonly queues = new Map<string, PartitionQueue>();
  /** Queues in creation order, so every iteration is deterministic. */
  private readonly order: PartitionQueue[] = [];
  /**
   * The queues holding at least one batch, in creation order: the sender looks at these on every wake-up, and
   * with many partitions and a short linger most queues are empty at any moment.
   */
  private readonly nonEmpty: PartitionQueue[] = [];
  private leaderCache: { view: ClusterView; version: number; queues: number; byLeader: Map<number, PartitionQueue[]> } | null = null;
  /**
   * At or before the creation time of every queued batch (a lower bound, made exact by each full scan in
   * expiredBatches): lets that scan be skipped while nothing can have reached delivery.timeout.ms.
   */
  private oldestQueuedBoundUs: Micros = Infinity;
  /** Per-node start of the next drain, so every partition gets its turn [RecordAccumulator.nodesDrainIndex]. */
  private readonly nodesDrainIndex = new Map<number, number>();
  /** Partitions with a batch in flight when max.in.flight.requests.per.connection = 1 [RecordAccumulator.muted]. */
  private readonly muted = new Set<string>();
  private readonly lingerUs: Micros;
  private readonly deliveryTimeoutUs: Micros;

  constructor(
    private readonly config: ProducerConfig,
    readonly free: BufferPool,
    private readonly transactionManager: TransactionManager<ProducerBatch> | null,
    private readonly compressionRatios: CompressionRatioEstimator,
    /** The producer's keys and values: its batches point to them. */
    private readonly payloads: PayloadTable,
    deliveryTimeoutMs: number = config['delivery.timeout.ms'],
  ) {
    this.lingerUs = ms(config['linger.ms']);
    this.deliveryTimeoutUs = ms(deliveryTimeoutMs);
  }

  get deliveryTimeout(): Micros {
    return this.deliveryTimeoutUs;
  }

  private queue(topic: string, partition: number): PartitionQueue {
    const key = TransactionManager.key(topic, partition);
    let q = this.queues.get(key);
    if (!q) {
      q = { topic, partition, key, deque: [], index: this.order.length };
      this.queues.set(key, q);
      this.order.push(q);
    }
    return q;
  }

  /** The batches waiting for one partition (head first). */
  batchesOf(topic: string, partition: number): readonly ProducerBatch[] {
    return this.queues.get(TransactionManager.key(topic, partition))?.deque ?? [];
  }

  /** The deque is empty or its last batch is full: the sticky partitioner may switch [RecordAccumulator.allBatchesFull]. */
  allBatchesFull(topic: string, partition: number): boolean {
    const d = this.queues.get(TransactionManager.key(topic, partition))?.deque;
    if (!d || d.length === 0) return true;
    return d[d.length - 1]!.isFull;
  }

  /** Queue sizes of the topic's partitions that have a deque, ascending by partition (adaptive partitioning's input). */
  queueSizes(topic: string): { partition: number; queueSize: number }[] {
    const out: { partition: number; queueSize: number }[] = [];
    for (const q of this.order) if (q.topic === topic) out.push({ partition: q.partition, queueSize: q.deque.length });
    return out.sort((a, b) => a.partition - b.partition);
  }

  /**
   * Appends a record into the partition's last batch if it has room [RecordAccumulator.tryAppend]; a last batch
   * without room is closed for appends. Null when there is no open batch with room (append a new one).
   */
  tryAppend(topic: string, partition: number, rec: PendingRecord): RecordAppendResult | null {
    const q = this.queue(topic, partition);
    const last = q.deque[q.deque.length - 1];
    if (!last || last.closed) return null;
    const before = last.estimatedBytes;
    if (last.tryAppend(rec)) return { batch: last, newBatchCreated: false, appendedBytes: last.estimatedBytes - before };
    last.closed = true;
    return null;
  }

  /**
   * Opens a new batch of max(batch.size, record) bytes from buffer.memory for the record
   * [RecordAccumulator.appendNewBatch]. Null when the memory is not there (send() must wait).
   */
  appendNewBatch(topic: string, partition: number, rec: PendingRecord, recordUpperBoundBytes: number, nowUs: Micros): RecordAppendResult | null {
    const q = this.queue(topic, partition);
    const size = Math.max(this.config['batch.size'], recordUpperBoundBytes);
    if (!this.free.tryAllocate(size)) return null;
    const compression = this.config['compression.type'];
    const b = new ProducerBatch(topic, partition, nowUs, size, compression, this.payloads, this.compressionRatios.estimation(topic, compression));
    b.tryAppend(rec);
    q.deque.push(b);
    if (q.deque.length === 1) this.becameNonEmpty(q);
    if (b.createdUs < this.oldestQueuedBoundUs) this.oldestQueuedBoundUs = b.createdUs;
    return { batch: b, newBatchCreated: true, appendedBytes: b.estimatedBytes };
  }

  /** tryAppend, else appendNewBatch: a record whose partition is fixed (explicit or keyed) [RecordAccumulator.append]. */
  append(topic: string, partition: number, rec: PendingRecord, recordUpperBoundBytes: number, nowUs: Micros): RecordAppendResult | null {
    return this.tryAppend(topic, partition, rec) ?? this.appendNewBatch(topic, partition, rec, recordUpperBoundBytes, nowUs);
  }

  /** Gives a finished batch's memory back [RecordAccumulator.deallocate]. */
  deallocate(b: ProducerBatch): void {
    this.free.deallocate(b.allocatedBytes);
  }

  /**
   * Puts a failed batch back to be retried [RecordAccumulator.reenqueue]: at the front of its queue, or — for the
   * idempotent producer — in sequence order among the retries already there [insertInSequenceOrder].
   */
  reenqueue(b: ProducerBatch, nowUs: Micros, backoffUs: Micros): void {
    b.reenqueued(nowUs, backoffUs);
    if (b.createdUs < this.oldestQueuedBoundUs) this.oldestQueuedBoundUs = b.createdUs;
    const q = this.queue(b.topic, b.partition);
    const d = q.deque;
    if (d.length === 0) this.becameNonEmpty(q);
    if (!this.transactionManager) {
      d.unshift(b);
      return;
    }
    if (b.baseSequence === NO_SEQUENCE) throw new Error(`reenqueue: batch for ${b.topic}-${b.partition} has no sequence`);
    let i = 0;
    while (i < d.length && d[i]!.hasSequence && d[i]!.baseSequence < b.baseSequence) i++;
    d.splice(i, 0, b);
  }

  mutePartition(topic: string, partition: number): void {
    this.muted.add(TransactionManager.key(topic, partition));
  }

  unmutePartition(topic: string, partition: number): void {
    this.muted.delete(TransactionManager.key(topic, partition));
  }

  /** A retry waits retry.backoff.ms (grown per attempt) unless the leader changed since it failed [RecordAccumulator.shouldBackoff]. */
  private shouldBackoff(b: ProducerBatch, waitedUs: Micros): boolean {
    return !b.hasLeaderChangedForTheOngoingRetry() && b.attempts > 0 && waitedUs < b.retryBackoffUs;
  }

  /**
   * Which leaders have a batch to send now [RecordAccumulator.ready / partitionReady / batchReady]: a partition is
   * sendable when its head batch is full (or more batches wait behind it), has lingered linger.ms (a retry: its
   * backoff), or memory is exhausted — unless it is backing off or muted. Partitions without a known leader name
   * their topic for a metadata refresh.
   */
  ready(cluster: ClusterView, nowUs: Micros, exhausted: boolean): ReadyCheckResult {
    // Plain arrays, not sets: a producer's leaders and topics are few, and this runs on every sender pass (most
    // of which find nothing ready), so a pass that finds nothing allocates nothing but its answer.
    let readyNodes: number[] | null = null;
    let unknown: string[] | null = null;
    let next = Infinity;
    const checkMuted = this.muted.size > 0;
    for (const q of this.nonEmpty) {
      const head = q.deque[0]!;
      const leader = cluster.leaderOf(q.topic, q.partition);
      const waited = head.waitedTimeUs(nowUs);
      head.maybeUpdateLeaderEpoch(cluster.leaderEpochOf(q.topic, q.partition));
      const backingOff = this.shouldBackoff(head, waited);
      const full = q.deque.length > 1 || head.isFull;
      if (leader < 0) {
        if (unknown === null) unknown = [q.topic];
        else if (!unknown.includes(q.topic)) unknown.push(q.topic);
        continue;
      }
      if ((readyNodes !== null && readyNodes.includes(leader)) || (checkMuted && this.muted.has(q.key))) continue;
      const timeToWait = backingOff ? head.retryBackoffUs : this.lingerUs;
      const expired = waited >= timeToWait;
      if ((full || expired || exhausted) && !backingOff) {
        if (readyNodes === null) readyNodes = [leader];
        else insertSorted(readyNodes, leader);
      } else next = Math.min(next, Math.max(timeToWait - waited, 0));
    }
    return { readyNodes: readyNodes ?? NO_NODES, nextReadyCheckDelayUs: next, unknownLeaderTopics: unknown ?? NO_TOPICS };
  }

  /**
   * Whether the idempotent producer must hold this partition back [RecordAccumulator.shouldStopDrainBatchesForPartition]:
   * no producer id yet; a new batch while older ones of a stale epoch are unresolved, or while an expired batch's
   * fate is unknown; a retry that is not the lowest sequence in flight (it goes only once the ones before it resolve).
   */
  private shouldStopDrainBatchesForPartition(first: ProducerBatch, key: string): boolean {
    const txn = this.transactionManager;
    if (!txn) return false;
    if (!txn.hasProducerId()) return true;
    if (!first.hasSequence) {
      if (txn.hasInflightBatches(key) && txn.hasStaleProducerIdAndEpoch(key)) return true;
      if (txn.hasUnresolvedSequence(key)) return true;
    }
    const firstInFlightSequence = txn.firstInFlightSequence(key);
    return firstInFlightSequence !== NO_SEQUENCE && first.hasSequence && first.baseSequence !== firstInFlightSequence;
  }

  /**
   * Takes, for each ready node, at most one batch per partition it leads, up to max.request.size
   * [RecordAccumulator.drain / drainBatchesForOneNode]. Each node starts where its last drain stopped. A partition
   * the idempotent producer must hold back ends the node's drain for this round, as in Kafka. New batches get
   * the producer id, epoch and next sequence of their partition here, and are closed.
   */
  drain(cluster: ClusterView, nodes: readonly number[], maxRequestSize: number, nowUs: Micros): Map<number, ProducerBatch[]> {
    const out = new Map<number, ProducerBatch[]>();
    const byLeader = this.queuesByLeader(cluster);
    for (const node of nodes) {
      const parts = byLeader.get(node) ?? NO_QUEUES;
      const ready: ProducerBatch[] = [];
      out.set(node, ready);
      if (parts.length === 0) continue;
      let index = (this.nodesDrainIndex.get(node) ?? 0) % parts.length;
      const start = index;
      const checkMuted = this.muted.size > 0;
      let size = 0;
      // Where the next drain of this node starts: the partition this one looked at last.
      let last = index;
      do {
        const q = parts[index]!;
        last = index;
        index = (index + 1) % parts.length;
        if (checkMuted && this.muted.has(q.key)) continue;
        const first = q.deque[0];
        if (!first) continue;
        first.maybeUpdateLeaderEpoch(cluster.leaderEpochOf(q.topic, q.partition));
        if (this.shouldBackoff(first, first.waitedTimeUs(nowUs))) continue;
        if (size + first.estimatedBytes > maxRequestSize && ready.length > 0) break;
        if (this.shouldStopDrainBatchesForPartition(first, q.key)) break;
        q.deque.shift();
        if (q.deque.length === 0) this.becameEmpty(q);
        const txn = this.transactionManager;
        if (txn && !first.hasSequence) {
          txn.maybeUpdateProducerIdAndEpoch(q.key);
          const pe = txn.producerIdAndEpoch;
          first.setProducerState(pe.producerId, pe.epoch, txn.sequenceNumber(q.key));
          first.isTransactional = txn.isTransactional;
          txn.incrementSequenceNumber(q.key, first.recordCount);
          txn.addInFlightBatch(first);
        }
        this.close(first);
        size += first.toRecordBatch().sizeInBytes;
        ready.push(first);
        first.drainedUs = nowUs;
      } while (index !== start);
      this.nodesDrainIndex.set(node, last);
    }
    return out;
  }

  /**
   * Closes a drained batch (on every drain, retries included) [ProducerBatch.close]: a compressed one teaches the
   * topic's compression-ratio estimate, and a renumbering by an epoch bump is now part of what is sent.
   */
  private close(b: ProducerBatch): void {
    b.closed = true;
    b.sequenceHasBeenReset = false;
    if (b.compression !== 'none') this.compressionRatios.updateEstimation(b.topic, b.compression, COMPRESSION_RATIO[b.compression]);
  }

  /**
   * Queued batches past delivery.timeout.ms, removed from their queues [RecordAccumulator.expiredBatches]. Only the
   * head of each queue is looked at, in turn: batches behind it are younger.
   */
  expiredBatches(nowUs: Micros): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    // No queued batch is older than the bound: nothing can have expired, and the scan over every queue is skipped.
    if (this.deliveryTimeoutUs > nowUs - this.oldestQueuedBoundUs) return out;
    let oldest = Infinity;
    for (const q of [...this.nonEmpty]) {
      while (q.deque.length > 0 && q.deque[0]!.hasReachedDeliveryTimeout(this.deliveryTimeoutUs, nowUs)) {
        const b = q.deque.shift()!;
        b.closed = true;
        out.push(b);
      }
      if (q.deque.length === 0) this.becameEmpty(q);
      const head = q.deque[0];
      if (head && head.createdUs < oldest) oldest = head.createdUs;
    }
    this.oldestQueuedBoundUs = oldest;
    return out;
  }

  /** The earliest time a queued batch reaches delivery.timeout.ms (Infinity: none queued) [RecordAccumulator.nextExpiryTimeMs]. */
  nextExpiryTimeUs(): Micros {
    let t = Infinity;
    for (const q of this.nonEmpty) {
      const head = q.deque[0];
      if (head && head.createdUs + this.deliveryTimeoutUs < t) t = head.createdUs + this.deliveryTimeoutUs;
    }
    return t;
  }

  hasUndrained(): boolean {
    return this.nonEmpty.length > 0;
  }

  /**
   * The queues each broker leads, in creation order [Cluster.partitionsForNode]: rebuilt only when the metadata
   * or the set of queues changed (a pass over every partition on every drain is most of a big producer's work).
   */
  private queuesByLeader(cluster: ClusterView): Map<number, PartitionQueue[]> {
    const c = this.leaderCache;
    if (c && c.view === cluster && cluster.version !== undefined && c.version === cluster.version && c.queues === this.order.length) return c.byLeader;
    const byLeader = new Map<number, PartitionQueue[]>();
    for (const q of this.order) {
      const leader = cluster.leaderOf(q.topic, q.partition);
      let list = byLeader.get(leader);
      if (!list) byLeader.set(leader, (list = []));
      list.push(q);
    }
    this.leaderCache = { view: cluster, version: cluster.version ?? -1, queues: this.order.length, byLeader };
    return byLeader;
  }

  private becameNonEmpty(q: PartitionQueue): void {
    const list = this.nonEmpty;
    let i = list.length;
    while (i > 0 && list[i - 1]!.index > q.index) i--;
    insertAt(list, i, q);
  }

  private becameEmpty(q: PartitionQueue): void {
    const i = this.nonEmpty.indexOf(q);
    if (i >= 0) removeAt(this.nonEmpty, i);
  }
}
