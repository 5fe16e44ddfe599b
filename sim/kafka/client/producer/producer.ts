import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import { ms, type Micros } from '../../../core/time';
import type { ProcessContext } from '../../../world/host';
import { Process } from '../../../world/process';
import type { ProducerConfig } from '../../config/configs';
import { isRetriable, type KafkaError } from '../../errors';
import type { InitProducerIdResponse, MetadataResponse, ProducePartitionResponse, ProduceResponse } from '../../protocol';
import { recordSize, type ProducerRecordInput } from '../../records';
import { retryBackoff, type ExponentialBackoff } from '../backoff';
import { BuiltInPartitioner, type TopicPartitionsView } from '../builtInPartitioner';
import { brokerActorId, ClientMetadata } from '../metadataCache';
import { NetworkClient, type Outcome } from '../../net/networkClient';
import { choosePartition, UNKNOWN_PARTITION } from '../partitioner';
import { RecordAccumulator } from './accumulator';
import type { PendingRecord, ProducerBatch } from './producerBatch';
import { drawKey, type ProducerWorkload } from './workload';

declare module '../../../core/trace' {
  interface TraceKinds {
    /** The application called send(): the invocation half of the history. */
    'send.invoke': { topic: string; partition: number; key: string | null; value: string };
    /** A batch was acknowledged: record i of `values` is at offset `offset + i` (offset -1 with acks=0). */
    'send.ok': { topic: string; partition: number; offset: number; values: string[]; broker: number; acks: string };
    /** A batch failed for good. `definite` when no attempt can have been written. */
    'send.fail': { topic: string; partition: number; error: string; values: string[]; definite: boolean };
    /** One attempt of a batch failed and will be retried. */
    'send.retry': { topic: string; partition: number; error: string; attempt: number; sequence: number; broker: number };
    'producer.id': { producerId: number; producerEpoch: number; reason: string };
  }
}

/** Errors that say the client's metadata is stale [InvalidMetadataException and its subclasses]. */
const INVALID_METADATA: ReadonlySet<KafkaError> = new Set<KafkaError>([
  'NOT_LEADER_OR_FOLLOWER',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'KAFKA_STORAGE_ERROR',
  'NETWORK_EXCEPTION',
]);

/** Errors after which the batch may already be in the log. */
const MAYBE_APPENDED: ReadonlySet<KafkaError> = new Set<KafkaError>(['NETWORK_EXCEPTION', 'REQUEST_TIMED_OUT', 'NOT_ENOUGH_REPLICAS_AFTER_APPEND']);

export interface ProducerOptions {
  readonly id: string;
  readonly config: ProducerConfig;
  /** Broker ids to bootstrap from (bootstrap.servers). */
  readonly bootstrap: readonly number[];
  readonly workloads: readonly ProducerWorkload[];
}

interface Blocked {
  readonly topic: string;
  readonly explicit: number | undefined;
  readonly rec: PendingRecord;
  readonly deadlineUs: Micros;
}

/**
 * Kafka's producer [clients/.../producer/KafkaProducer.java, internals/Sender.java, TransactionManager.java]:
 * the application's send() chooses a partition and appends to the accumulator; the sender drains ready
 * batches to partition leaders with up to max.in.flight.requests.per.connection requests per broker,
 * retries within delivery.timeout.ms, and — with idempotence — numbers every batch so that retries can
 * neither duplicate nor reorder records.
 */
export class Producer extends Process {
  readonly config: ProducerConfig;
  private readonly metadata: ClientMetadata;
  private readonly net: NetworkClient;
  private readonly accumulator: RecordAccumulator;
  private readonly partitioners = new Map<string, BuiltInPartitioner>();
  private readonly views = new Map<string, { version: number; view: TopicPartitionsView }>();
  private readonly backoff: ExponentialBackoff;
  private readonly idempotent: boolean;
  private readonly acks: -1 | 0 | 1;

  // idempotence (TransactionManager, non-transactional)
  private producerId = -1;
  private producerEpoch = -1;
  private initPidInFlight = false;
  private readonly nextSequence = new Map<string, number>();
  /** Batches sent and not yet resolved, per partition, in sequence order. */
  private readonly unresolved = new Map<string, ProducerBatch[]>();
  /** Partitions with a batch in flight (for max.in.flight.requests.per.connection = 1 ordering). */
  private readonly inFlightPartitions = new Set<string>();

  private metadataInFlight = false;
  private metadataWanted = true;
  private metadataAttempts = 0;
  private senderTimer: TimerId = NO_TIMER;
  private senderTimerAt = Infinity;
  private readonly blocked: Blocked[] = [];
  private sentCount = 0;
  /** The workload generator stopped (the scenario's quiet period); sends in flight still complete. */
  private workloadStopped = false;
  private readonly valuePrefix: string;

  constructor(
    ctx: ProcessContext,
    private readonly opts: ProducerOptions,
  ) {
    super(opts.id, ctx);
    this.config = opts.config;
    this.acks = opts.config.acks === 'all' ? -1 : opts.config.acks === '1' ? 1 : 0;
    // Idempotence needs acks=all and retries; Kafka turns it off silently when it was not set explicitly.
    this.idempotent = opts.config['enable.idempotence'] && this.acks === -1 && opts.config.retries > 0;
    this.metadata = new ClientMetadata(opts.bootstrap);
    this.net = new NetworkClient(this);
    this.backoff = retryBackoff(opts.config['retry.backoff.ms'], opts.config['retry.backoff.max.ms'], this.random.fork('backoff'));
    this.accumulator = new RecordAccumulator(opts.config, {
      leaderOf: (t, p) => this.metadata.leaderOf(t, p),
      leaderEpochOf: (t, p) => this.metadata.leaderEpochOf(t, p),
      retryBackoffUs: (b) => ms(this.backoff.backoff(Math.max(0, b.attempts - 1))),
      canDrain: (b) => this.canDrain(b),
    });
    this.valuePrefix = ctx.incarnation === 0 ? opts.id : `${opts.id}.${ctx.incarnation}`;
  }

  override onStart(): void {
    this.refreshMetadata();
    if (this.idempotent) this.initProducerId('startup');
    const workloadRandom = this.random.fork('workload');
    this.opts.workloads.forEach((w, i) => this.startWorkload(w, workloadRandom.fork(String(i))));
    const maxAge = ms(this.config['metadata.max.age.ms']);
    const periodic = (): void => {
      this.metadataWanted = true;
      this.refreshMetadata();
      this.setTimer(maxAge, periodic);
    };
    this.setTimer(maxAge, periodic);
  }

  onMessage(from: string, msg: unknown): void {
    this.net.handleResponse(from, msg as { correlationId?: number });
  }

  override onDisconnect(peer: string): void {
    this.net.onDisconnect(peer);
  }

  // ---- the application side ----

  private startWorkload(w: ProducerWorkload, random: ReturnType<typeof this.random.fork>): void {
    const keys = w.keys ?? { kind: 'none' as const };
    const start = ms(w.startMs ?? 0);
    const stop = w.stopMs === undefined ? Infinity : ms(w.stopMs);
    const valueBytes = w.valueBytes ?? 100;
    let count = 0;
    const sendOne = (): void => {
      if (this.workloadStopped) return;
      count++;
      const value = `${this.valuePrefix}:${this.sentCount++}`;
      this.produce(w.topic, drawKey(keys, random), value, valueBytes, w.partition);
    };
    if (w.at) {
      // Explicit times, in order; several at one millisecond go in one event.
      const times = [...w.at].sort((a, b) => a - b).filter((t) => ms(t) >= this.now);
      let i = 0;
      const fire = (): void => {
        const t = ms(times[i]!);
        while (i < times.length && ms(times[i]!) <= t) {
          sendOne();
          i++;
        }
        if (i < times.length) this.setTimer(Math.max(0, ms(times[i]!) - this.now), fire);
      };
      if (times.length > 0) this.setTimer(Math.max(0, ms(times[0]!) - this.now), fire);
      return;
    }
    const rate = w.rate ?? 0;
    if (rate <= 0) return;
    const meanUs = 1e6 / rate;
    // Poisson arrivals, handled a millisecond at a time so a busy producer costs one event per ms.
    // A producer that (re)starts late begins now rather than catching up on the arrivals it missed.
    let next = Math.max(start, this.now) + Math.round(random.exponential(meanUs));
    const tick = (): void => {
      const until = this.now + 1000;
      while (next <= until && next < stop && (w.maxRecords === undefined || count < w.maxRecords)) {
        sendOne();
        next += Math.max(1, Math.round(random.exponential(meanUs)));
      }
      if (!this.workloadStopped && next < stop && (w.maxRecords === undefined || count < w.maxRecords)) this.setTimer(Math.max(0, next - this.now), tick);
    };
    if (next < stop) this.setTimer(Math.max(0, next - this.now), tick);
  }

  /** Stops generating records; what was sent still completes (the scenario's quiet period). */
  stopWorkload(): void {
    this.workloadStopped = true;
  }

  /** KafkaProducer.send(): choose the partition, append to the accumulator, wake the sender. */
  produce(topic: string, key: string | null, value: string, valueBytes: number, explicitPartition?: number): void {
    const input: ProducerRecordInput = { key, value, valueSize: valueBytes, timestamp: Math.floor(this.now / 1000) };
    const rec: PendingRecord = { input, value, sentAtUs: this.now };
    if (this.blocked.length > 0 || this.metadata.partitionCount(topic) === null) {
      // send() blocks (up to max.block.ms) behind earlier blocked sends, or until the topic's metadata arrives.
      this.trace.emit('send.invoke', this.id, { topic, partition: explicitPartition ?? -1, key, value });
      this.blocked.push({ topic, explicit: explicitPartition, rec, deadlineUs: this.now + ms(this.config['max.block.ms']) });
      if (this.metadata.partitionCount(topic) === null) this.requestMetadata();
      this.scheduleSender(0);
      return;
    }
    this.appendRecord(topic, explicitPartition, rec, true);
  }

  /** Returns false when buffer.memory had no room (the record stays blocked). */
  private appendRecord(topic: string, explicit: number | undefined, rec: PendingRecord, emitInvoke: boolean): boolean {
    const n = this.metadata.partitionCount(topic)!;
    let partition = choosePartition(explicit, rec.input.key, n, this.config['partitioner.ignore.keys']);
    const size = recordSize({ offsetDelta: 0, timestampDelta: 0, key: rec.input.key, value: rec.input.value, valueSize: rec.input.valueSize ?? 0, headers: [] });
    let sticky: BuiltInPartitioner | undefined;
    let view: TopicPartitionsView | undefined;
    if (partition === UNKNOWN_PARTITION) {
      sticky = this.partitionerFor(topic);
      view = this.partitionsView(topic, n);
      partition = sticky.partitionForAppend(view, (p) => this.accumulator.lastBatchFull(topic, p));
    }
    if (emitInvoke) this.trace.emit('send.invoke', this.id, { topic, partition, key: rec.input.key, value: rec.value });
    const queued = this.accumulator.batchesOf(topic, partition);
    const last = queued[queued.length - 1];
    const before = last && !last.closed ? last.estimatedBytes : 0;
    const batch = this.accumulator.append(topic, partition, rec, size, this.now, this.config['compression.type']);
    if (!batch) {
      if (emitInvoke) this.blocked.push({ topic, explicit, rec, deadlineUs: this.now + ms(this.config['max.block.ms']) });
      return false;
    }
    // The sticky partitioner counts the batch's growth, header included for a new batch [RecordAccumulator.append].
    const grew = batch === last ? batch.estimatedBytes - before : batch.estimatedBytes;
    if (sticky && view) sticky.updatePartitionInfo(partition, grew, this.accumulator.lastBatchFull(topic, partition), view);
    if (batch.isFull || this.config['linger.ms'] === 0) this.scheduleSender(0);
    else this.scheduleSender(Math.max(0, batch.createdUs + ms(this.config['linger.ms']) - this.now));
    return true;
  }

  private partitionerFor(topic: string): BuiltInPartitioner {
    let p = this.partitioners.get(topic);
    if (!p) {
      p = new BuiltInPartitioner(
        {
          topic,
          stickyBatchSize: this.config['batch.size'],
          adaptivePartitioningEnable: this.config['partitioner.adaptive.partitioning.enable'],
          availabilityTimeoutMs: this.config['partitioner.availability.timeout.ms'],
        },
        this.random.fork(`partitioner/${topic}`),
      );
      this.partitioners.set(topic, p);
    }
    return p;
  }

  /** Partitions with a known leader, cached per metadata version (Cluster.availablePartitionsForTopic). */
  private partitionsView(topic: string, n: number): TopicPartitionsView {
    const cached = this.views.get(topic);
    if (cached && cached.version === this.metadata.version) return cached.view;
    const available: number[] = [];
    for (let p = 0; p < n; p++) if (this.metadata.leaderOf(topic, p) >= 0) available.push(p);
    const view = { numPartitions: n, availablePartitions: available };
    this.views.set(topic, { version: this.metadata.version, view });
    return view;
  }

  /** Feeds the adaptive partitioner the queue sizes on every ready check [RecordAccumulator.partitionReady]. */
  private updateLoadStats(): void {
    for (const [topic, partitioner] of this.partitioners) {
      const n = this.metadata.partitionCount(topic) ?? 0;
      const queues = [];
      for (let p = 0; p < n; p++) {
        queues.push({ partition: p, leaderKnown: this.metadata.leaderOf(topic, p) >= 0, queueSize: this.accumulator.queueSize(topic, p) });
      }
      partitioner.updatePartitionLoadStats(queues, n);
    }
  }

  /** Retries blocked sends in order (memory freed, metadata arrived) and fails those past max.block.ms. */
  private unblock(): void {
    while (this.blocked.length > 0) {
      const b = this.blocked[0]!;
      if (this.now >= b.deadlineUs) {
        this.blocked.shift();
        this.trace.emit('send.fail', this.id, { topic: b.topic, partition: b.explicit ?? -1, error: 'TIMEOUT', values: [b.rec.value], definite: true });
        continue;
      }
      if (this.metadata.partitionCount(b.topic) === null) break;
      // The invocation was recorded when send() was called.
      const ok = this.appendRecordQuiet(b);
      if (!ok) break;
      this.blocked.shift();
    }
  }

  private appendRecordQuiet(b: Blocked): boolean {
    return this.appendRecord(b.topic, b.explicit, b.rec, false);
  }

  // ---- metadata ----

  private requestMetadata(): void {
    this.metadataWanted = true;
    this.refreshMetadata();
  }

  private refreshMetadata(): void {
    if (this.metadataInFlight || !this.metadataWanted) return;
    const node = this.leastLoadedNode();
    this.metadataInFlight = true;
    this.metadataWanted = false;
    this.net.send<{ type: 'Metadata'; topics: null }, MetadataResponse>(
      brokerActorId(node),
      { type: 'Metadata', topics: null },
      { timeoutMs: this.config['request.timeout.ms'] },
      (o) => {
        this.metadataInFlight = false;
        if (o.ok) {
          this.metadataAttempts = 0;
          this.metadata.update(o.response, this.now);
          this.unblock();
          this.scheduleSender(0);
        } else {
          this.metadataAttempts++;
          this.metadataWanted = true;
          this.setTimer(ms(this.backoff.backoff(this.metadataAttempts - 1)), () => this.refreshMetadata());
        }
      },
    );
  }

  /** The known broker with the fewest requests in flight; ties rotate by a seeded draw [NetworkClient.leastLoadedNode]. */
  private leastLoadedNode(): number {
    const nodes = this.metadata.knownBrokers();
    const offset = this.random.int(0, nodes.length);
    let best = nodes[offset]!;
    let bestLoad = Infinity;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[(offset + i) % nodes.length]!;
      const load = this.net.inFlight(brokerActorId(n));
      if (load < bestLoad) {
        best = n;
        bestLoad = load;
      }
    }
    return best;
  }

  // ---- idempotence ----

  private initProducerId(reason: string): void {
    if (this.initPidInFlight) return;
    this.initPidInFlight = true;
    this.net.send<{ type: 'InitProducerId'; transactionalId: null }, InitProducerIdResponse>(
      brokerActorId(this.leastLoadedNode()),
      { type: 'InitProducerId', transactionalId: null },
      { timeoutMs: this.config['request.timeout.ms'] },
      (o) => {
        this.initPidInFlight = false;
        if (o.ok && o.response.error === 'NONE') {
          this.producerId = o.response.producerId;
          this.producerEpoch = o.response.producerEpoch;
          this.trace.emit('producer.id', this.id, { producerId: this.producerId, producerEpoch: this.producerEpoch, reason });
          this.scheduleSender(0);
        } else {
          this.setTimer(ms(this.config['retry.backoff.ms']), () => this.initProducerId(reason));
        }
      },
    );
  }

  private canDrain(b: ProducerBatch): boolean {
    const k = `${b.topic}\u0000${b.partition}`;
    if (this.idempotent) {
      if (this.producerId < 0) return false;
      const list = this.unresolved.get(k);
      // A retried batch goes only when it is the first unresolved one, so sequences reach the broker in order.
      if (b.baseSequence >= 0) return !!list && list[0] === b && !this.inFlightPartitions.has(k);
      // The broker remembers 5 batches per producer: never have more unresolved.
      if (list && list.length >= 5) return false;
      if (list && list.length > 0 && list[0]!.lastRetryUs >= 0 && !list[0]!.inFlight) return false;
      return true;
    }
    // Without idempotence, ordering is only kept with one request in flight [Sender guaranteeMessageOrder].
    if (this.config['max.in.flight.requests.per.connection'] === 1) return !this.inFlightPartitions.has(k);
    return true;
  }

  /** Bumps the epoch locally and renumbers what is still unresolved [TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded]. */
  private bumpEpoch(reason: string): void {
    this.producerEpoch++;
    this.trace.emit('producer.id', this.id, { producerId: this.producerId, producerEpoch: this.producerEpoch, reason });
    for (const [k, list] of this.unresolved) {
      let seq = 0;
      for (const b of list) {
        b.resetSequence(this.producerId, this.producerEpoch, seq);
        seq += b.recordCount;
      }
      this.nextSequence.set(k, seq);
    }
    for (const k of [...this.nextSequence.keys()]) if (!this.unresolved.get(k)?.length) this.nextSequence.set(k, 0);
  }

  // ---- the sender ----

  private scheduleSender(delayUs: Micros): void {
    const at = this.now + Math.max(0, delayUs);
    if (at >= this.senderTimerAt) return;
    this.cancelTimer(this.senderTimer);
    this.senderTimerAt = at;
    this.senderTimer = this.setTimer(at - this.now, () => {
      this.senderTimerAt = Infinity;
      this.senderTimer = NO_TIMER;
      this.runSender();
    });
  }

  /** One pass of Sender.runOnce: expire, find ready leaders, drain and send. */
  private runSender(): void {
    const now = this.now;
    for (const b of this.accumulator.expired(now)) this.failBatch(b, 'TIMEOUT');
    this.unblock();
    const exhausted = this.blocked.length > 0 && this.metadata.partitionCount(this.blocked[0]!.topic) !== null;
    const ready = this.accumulator.ready(now, exhausted);
    if (this.partitioners.size > 0) this.updateLoadStats();
    if (ready.unknownLeader) this.requestMetadata();
    const maxInFlight = this.config['max.in.flight.requests.per.connection'];
    for (const node of ready.nodes) {
      const actor = brokerActorId(node);
      if (this.net.inFlight(actor) >= maxInFlight) continue;
      const batches = this.accumulator.drain(node, now);
      if (batches.length === 0) continue;
      this.sendProduce(node, batches);
    }
    let next = ready.nextCheckUs;
    const oldest = this.accumulator.oldestBatchUs();
    if (oldest !== Infinity) next = Math.min(next, oldest + ms(this.config['delivery.timeout.ms']) - now);
    if (this.blocked.length > 0) next = Math.min(next, this.blocked[0]!.deadlineUs - now);
    if (next !== Infinity) this.scheduleSender(Math.max(1, next));
  }

  private sendProduce(node: number, batches: ProducerBatch[]): void {
    let bytes = 0;
    for (const b of batches) {
      const k = `${b.topic}\u0000${b.partition}`;
      if (this.idempotent && b.baseSequence < 0) {
        const seq = this.nextSequence.get(k) ?? 0;
        b.resetSequence(this.producerId, this.producerEpoch, seq);
        this.nextSequence.set(k, (seq + b.recordCount) % 0x80000000);
        let list = this.unresolved.get(k);
        if (!list) this.unresolved.set(k, (list = []));
        list.push(b);
      }
      b.attempts++;
      b.inFlight = true;
      this.inFlightPartitions.add(k);
      bytes += b.toRecordBatch().sizeInBytes;
    }
    const request = {
      type: 'Produce' as const,
      acks: this.acks,
      timeoutMs: this.config['request.timeout.ms'],
      partitions: batches.map((b) => ({ topic: b.topic, partition: b.partition, batch: b.toRecordBatch() })),
    };
    if (this.acks === 0) {
      // No response will come: the send counts as done once it is on the wire.
      this.net.send(brokerActorId(node), request, { timeoutMs: this.config['request.timeout.ms'], bytes, expectResponse: false }, () => {});
      for (const b of batches) this.completeBatch(b, -1, node);
      return;
    }
    this.net.send<typeof request, ProduceResponse>(brokerActorId(node), request, { timeoutMs: this.config['request.timeout.ms'], bytes }, (o) =>
      this.handleProduceResponse(node, batches, o),
    );
  }

  private handleProduceResponse(node: number, batches: ProducerBatch[], o: Outcome<ProduceResponse>): void {
    const byTp = new Map<string, ProducePartitionResponse>();
    if (o.ok) for (const p of o.response.partitions) byTp.set(`${p.topic}\u0000${p.partition}`, p);
    for (const b of batches) {
      const k = `${b.topic}\u0000${b.partition}`;
      this.inFlightPartitions.delete(k);
      b.inFlight = false;
      const error: KafkaError = o.ok ? (byTp.get(k)?.error ?? 'UNKNOWN_SERVER_ERROR') : o.error;
      if (error === 'NONE') {
        this.completeBatch(b, byTp.get(k)!.baseOffset, node);
      } else if (error === 'DUPLICATE_SEQUENCE_NUMBER') {
        this.completeBatch(b, -1, node);
      } else {
        this.handleBatchError(b, error, node);
      }
    }
    this.scheduleSender(0);
  }

  private handleBatchError(b: ProducerBatch, error: KafkaError, node: number): void {
    if (MAYBE_APPENDED.has(error)) b.mayHaveBeenAppended = true;
    if (INVALID_METADATA.has(error)) this.requestMetadata();
    const k = `${b.topic}\u0000${b.partition}`;
    const expired = this.now - b.createdUs >= ms(this.config['delivery.timeout.ms']);
    let retriable = isRetriable(error) && b.attempts <= this.config.retries && !expired;
    if (this.idempotent && error === 'OUT_OF_ORDER_SEQUENCE_NUMBER') {
      // Not the first unresolved batch: an earlier one failed, so this one is simply retried after it.
      // The first one: a real gap on the broker — bump the epoch, renumber, and retry [TransactionManager.canRetry].
      const list = this.unresolved.get(k);
      if (list && list[0] === b) this.bumpEpoch('OUT_OF_ORDER_SEQUENCE_NUMBER');
      retriable = !expired;
    }
    if (retriable) {
      b.failedLeaderEpoch = this.metadata.leaderEpochOf(b.topic, b.partition);
      this.trace.emit('send.retry', this.id, { topic: b.topic, partition: b.partition, error, attempt: b.attempts, sequence: b.baseSequence, broker: node });
      this.accumulator.reenqueue(b, this.now);
      return;
    }
    this.failBatch(b, error);
  }

  private completeBatch(b: ProducerBatch, baseOffset: number, node: number): void {
    this.removeUnresolved(b);
    this.accumulator.deallocate(b);
    this.trace.emit('send.ok', this.id, {
      topic: b.topic,
      partition: b.partition,
      offset: baseOffset,
      values: b.records.map((r) => r.value),
      broker: node,
      acks: this.config.acks,
    });
  }

  private failBatch(b: ProducerBatch, error: KafkaError | 'TIMEOUT'): void {
    const wasUnresolved = this.removeUnresolved(b);
    this.accumulator.deallocate(b);
    const definite = !b.mayHaveBeenAppended && !(error === 'TIMEOUT' && b.attempts > 0);
    this.trace.emit('send.fail', this.id, { topic: b.topic, partition: b.partition, error, values: b.records.map((r) => r.value), definite });
    // A batch whose fate is unknown leaves a hole in the sequence: start a new epoch.
    if (this.idempotent && wasUnresolved && this.producerId >= 0) this.bumpEpoch(`failed batch (${error})`);
  }

  private removeUnresolved(b: ProducerBatch): boolean {
    const k = `${b.topic}\u0000${b.partition}`;
    const list = this.unresolved.get(k);
    if (!list) return false;
    const i = list.indexOf(b);
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }
}
