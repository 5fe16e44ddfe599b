import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import type { TransactionVersion } from '../../coordinator/transaction/transactionMetadata';
import type { Random } from '../../../core/random';
import { ms, type Micros } from '../../../core/time';
import type { ProcessContext } from '../../../world/host';
import { Process } from '../../../world/process';
import { UNSTAMPED } from '../../../core/trace';
import type { ProducerConfig } from '../../config/configs';
import type { ClientError, KafkaError } from '../../errors';
import { NetworkClient } from '../../net/networkClient';
import { PayloadTable, RECORD_BATCH_OVERHEAD, recordSizeOf } from '../../records';
import { reconnectBackoff, retryBackoff } from '../backoff';
import { BuiltInPartitioner, type PartitionQueueState, type TopicPartitionsView } from '../builtInPartitioner';
import { ClientMetadata } from '../metadataCache';
import { choosePartition, UNKNOWN_PARTITION } from '../partitioner';
import { RecordAccumulator, type RecordAppendResult } from './accumulator';
import { BufferPool } from './bufferPool';
import { CompressionRatioEstimator } from './compressionRatioEstimator';
import { ClusterConnectionStates } from './connectionStates';
import type { PendingRecord, ProducerBatch } from './producerBatch';
import { effectiveProducerConfig } from './producerConfigRules';
import { Sender } from './sender';
import { TransactionManager } from './transactionManager';
import { TransactionalProducer, type AppRecord } from './transactionalProducer';
import { drawKey, drawKeyNumber, numberedKey, type ProducerWorkload } from './workload';

const NO_HEADERS: readonly never[] = [];

/** Key spaces up to this many numbered keys keep a key id per number (4 bytes each). */
const KEY_ID_CACHE_MAX = 1 << 20;
import { bool, defineKinds, nullable, num, optional, str, type KindsOf } from '../../../core/traceSchema';

/** The producer application's calls. */
export const PRODUCER_KINDS = defineKinds({
  /**
   * The application called send(): the invocation half of the history (partition -1 until one is chosen).
   * `value` names the record; a tombstone (`tombstone: true`, absent otherwise) carries a null value instead.
   */
  'send.invoke': { topic: str, partition: num, key: nullable(str), value: str, tombstone: optional(bool) },
});

declare module '../../../core/trace' {
  interface TraceKinds extends KindsOf<typeof PRODUCER_KINDS> {}
}

export interface ProducerOptions {
  readonly id: string;
  readonly config: ProducerConfig;
  /** Broker ids to bootstrap from (bootstrap.servers). */
  readonly bootstrap: readonly number[];
  readonly workloads: readonly ProducerWorkload[];
  /**
   * The config names the user set explicitly. Kafka refuses conflicting explicit settings (ConfigException)
   * and quietly adjusts defaults; without this set every setting counts as a default.
   */
  readonly explicitConfig?: ReadonlySet<string>;
  /** The cluster's finalized transaction.version, as ApiVersions tells the client (default 2). */
  readonly transactionVersion?: TransactionVersion;
}

/** A send() waiting for metadata or buffer memory (the application thread blocks, up to max.block.ms). */
interface Blocked {
  readonly topic: string;
  readonly explicit: number | undefined;
  readonly rec: PendingRecord;
  readonly deadlineUs: Micros;
  /** Counted in BufferPool.queued (waiting for memory rather than metadata). */
  waitingForMemory: boolean;
}

/**
 * Kafka's producer, the application side [clients/.../producer/KafkaProducer.java `doSend`]: send() waits for
 * the topic's metadata, chooses the partition (explicit, murmur2 of the key, or the sticky partition), checks
 * the record's size and appends it to the accumulator, waiting for buffer memory when there is none — each wait
 * bounded by max.block.ms. The Sender (sender.ts) does the rest. The workload model drives send().
 */
export class Producer extends Process {
  readonly config: ProducerConfig;
  /** After the idempotence and delivery-timeout rules (producerConfigRules.ts). */
  readonly idempotent: boolean;
  readonly deliveryTimeoutMs: number;
  readonly metadata: ClientMetadata;
  private readonly net: NetworkClient;
  readonly accumulator: RecordAccumulator;
  readonly transactionManager: TransactionManager<ProducerBatch> | null;
  private readonly sender: Sender;
  private readonly pool: BufferPool;
  private readonly partitioners = new Map<string, BuiltInPartitioner>();
  private readonly allBatchesFullByTopic = new Map<string, (partition: number) => boolean>();
  private readonly views = new Map<string, { version: number; view: TopicPartitionsView }>();
  private readonly blocked: Blocked[] = [];
  private blockedTimer: TimerId = NO_TIMER;
  private blockedTimerAt = Infinity;
  private unblockScheduled = false;
  /** The workload generator stopped (the scenario's quiet period); sends in flight still complete. */
  private workloadStopped = false;
  /**
   * This incarnation's keys and values: the workload's values are counted (`<producer>:<n>`, `<producer>.<k>:<n>`
   * after the k-th restart), unique per run, so the checkers can tell every record apart.
   */
  readonly payloads: PayloadTable;
  /** With transactional.id: the transactional half (initTransactions and the transaction loop). */
  readonly transactional: TransactionalProducer | null;
  /** Records handed to send() and not yet acknowledged or failed; flush() waits for 0. */
  private unacked = 0;
  private flushWaiters: (() => void)[] = [];

  constructor(
    ctx: ProcessContext,
    private readonly opts: ProducerOptions,
  ) {
    super(opts.id, ctx);
    this.config = opts.config;
    const effective = effectiveProducerConfig(opts.config, opts.explicitConfig);
    if (effective.errors.length > 0) throw new Error(`producer ${opts.id}: ${effective.errors.join('; ')}`);
    this.idempotent = effective.idempotent;
    this.deliveryTimeoutMs = effective.deliveryTimeoutMs;
    const acks = opts.config.acks === 'all' ? -1 : opts.config.acks === '1' ? 1 : 0;
    this.metadata = new ClientMetadata(opts.bootstrap);
    this.net = new NetworkClient(this);
    this.pool = new BufferPool(opts.config['buffer.memory']);
    this.transactionManager = this.idempotent ? new TransactionManager<ProducerBatch>() : null;
    this.payloads = new PayloadTable(ctx.incarnation === 0 ? opts.id : `${opts.id}.${ctx.incarnation}`);
    this.accumulator = new RecordAccumulator(opts.config, this.pool, this.transactionManager, new CompressionRatioEstimator(), this.payloads, this.deliveryTimeoutMs);
    const pick = this.random.fork('least-loaded-node');
    this.sender = new Sender({
      owner: this,
      config: opts.config,
      acks,
      metadata: this.metadata,
      net: this.net,
      accumulator: this.accumulator,
      transactionManager: this.transactionManager,
      ...(opts.transactionVersion !== undefined ? { transactionVersion: opts.transactionVersion } : {}),
      connections: new ClusterConnectionStates(
        reconnectBackoff(opts.config['reconnect.backoff.ms'], opts.config['reconnect.backoff.max.ms'], this.random.fork('reconnect-backoff')),
      ),
      retryBackoff: retryBackoff(opts.config['retry.backoff.ms'], opts.config['retry.backoff.max.ms'], this.random.fork('backoff')),
      hooks: {
        exhausted: () => this.pool.queued > 0,
        progress: () => this.scheduleUnblock(),
        updateLoadStats: () => this.updateLoadStats(),
        completed: (records, error) => this.onRecordsCompleted(records, error),
      },
      pickStart: (n) => pick.int(0, n),
    });
    const w0 = opts.workloads[0];
    this.transactional =
      this.transactionManager && opts.config['transactional.id'] !== null
        ? new TransactionalProducer(
            {
              id: opts.id,
              trace: this.trace,
              config: opts.config,
              net: this.net,
              txn: this.transactionManager,
              random: this.random.fork('transactions'),
              brokers: () => (this.metadata.knownBrokers().length > 0 ? this.metadata.knownBrokers() : opts.bootstrap),
              partitionCount: (topic) => this.metadata.partitionCount(topic),
              send: (r) => this.produce(r.topic, r.key, r.valueId, r.valueBytes, r.partition, r.tombstone === true),
              valueText: (id) => this.payloads.valueText(id)!,
              refuse: (r, error) => this.refuse(r, error),
              setTimer: (d, fn) => this.setTimer(d, fn),
              stopApplication: () => {
                this.workloadStopped = true;
              },
              wakeSender: () => {
                this.metadata.requestUpdateForNewTopics();
                this.sender.wakeup();
              },
            },
            w0?.transactionSize ?? 100,
            w0?.abortProbability ?? 0,
            opts.transactionVersion ?? 2,
          )
        : null;
  }

  readonly metricsRole = 'producer';

  /** Its producer-metrics now (sim/kafka/metrics). */
  sampleMetrics(nowUs: number): Record<string, number> {
    return this.sender.metrics.sample(nowUs);
  }

  override onStart(): void {
    this.metadata.requestUpdate();
    this.sender.wakeup();
    const workloadRandom = this.random.fork('workload');
    this.opts.workloads.forEach((w, i) => this.startWorkload(w, workloadRandom.fork(String(i))));
    this.transactional?.initTransactions();
  }

  onMessage(from: string, msg: unknown): void {
    this.net.handleResponse(from, msg as { correlationId?: number });
  }

  override onDisconnect(peer: string): void {
    this.net.onDisconnect(peer);
    this.sender.onDisconnect(peer);
  }

  // ---- the workload ----

  private startWorkload(w: ProducerWorkload, random: Random): void {
    const keys = w.keys ?? { kind: 'none' as const };
    const start = ms(w.startMs ?? 0);
    const stop = w.stopMs === undefined ? Infinity : ms(w.stopMs);
    const valueBytes = w.valueBytes ?? 100;
    const tombstones = w.tombstones ?? 0;
    let count = 0;
    // A key space of numbered keys remembers each key's payload id by its number: the record's key is then
    // interned once per key, not looked up by its text per record (it was ~2.5% of a steady run).
    const numbered = keys.kind === 'uniform' || keys.kind === 'zipf' ? keys : null;
    const keyIdByNumber = numbered !== null && numbered.count <= KEY_ID_CACHE_MAX ? new Int32Array(numbered.count + 1).fill(-1) : null;
    const sendOne = (): void => {
      if (this.workloadStopped) return;
      count++;
      let key: string | null;
      let keyId: number | undefined;
      if (numbered !== null) {
        const n = drawKeyNumber(numbered, random);
        key = numberedKey(n);
        if (keyIdByNumber !== null && n >= 0 && n < keyIdByNumber.length) {
          keyId = keyIdByNumber[n]!;
          if (keyId < 0) keyIdByNumber[n] = keyId = this.payloads.internKey(key);
        }
      } else key = drawKey(keys, random);
      const valueId = this.payloads.nextCountedValue();
      // A share strictly between 0 and 1 is drawn per record, from the workload's stream after its key.
      const tombstone = tombstones >= 1 || (tombstones > 0 && random.chance(tombstones));
      if (this.transactional) this.transactional.onRecord({ topic: w.topic, key, valueId, valueBytes, ...(w.partition !== undefined ? { partition: w.partition } : {}), ...(tombstone && { tombstone }) });
      else this.produce(w.topic, key, valueId, valueBytes, w.partition, tombstone, keyId);
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
        else this.transactional?.endOfInput();
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
    const more = (): boolean => next < stop && (w.maxRecords === undefined || count < w.maxRecords);
    const tick = (): void => {
      const until = this.now + 1000;
      while (next <= until && more()) {
        sendOne();
        next += Math.max(1, Math.round(random.exponential(meanUs)));
      }
      if (!this.workloadStopped && more()) this.setTimer(Math.max(0, next - this.now), tick);
      else this.transactional?.endOfInput();
    };
    if (more()) this.setTimer(Math.max(0, next - this.now), tick);
  }

  /** Stops generating records; what was sent still completes (the scenario's quiet period). */
  stopWorkload(): void {
    this.workloadStopped = true;
    this.transactional?.endOfInput();
  }

  // ---- send() [KafkaProducer.doSend] ----

  /**
   * KafkaProducer.send(): wait for metadata, choose the partition, append to the accumulator. `valueId` is in
   * `payloads`; a tombstone sends a null value instead, and `valueId` only names the record in the trace.
   */
  produce(topic: string, key: string | null, valueId: number, valueBytes: number, explicitPartition?: number, tombstone = false, knownKeyId?: number): void {
    this.unacked++;
    const keyId = knownKeyId ?? this.payloads.internKey(key);
    const timestamp = Math.floor(this.now / 1000);
    const rec: PendingRecord = tombstone ? { key, keyId, valueId, valueSize: 0, timestamp, tombstone } : { key, keyId, valueId, valueSize: valueBytes, timestamp };
    // [KafkaProducer.ensureValidRecordSize]: a record that can never fit a request or the buffer fails at once.
    const upperBound = this.upperBound(rec);
    if (upperBound > this.config['max.request.size'] || upperBound > this.config['buffer.memory']) {
      this.emitInvoke(topic, explicitPartition ?? -1, rec);
      this.failBlocked(topic, explicitPartition, rec, 'RECORD_TOO_LARGE');
      return;
    }
    if (this.blocked.length > 0 || !this.metadataReady(topic, explicitPartition)) {
      // send() blocks (up to max.block.ms) behind earlier blocked sends, or until the topic's metadata arrives.
      this.emitInvoke(topic, explicitPartition ?? -1, rec);
      this.block({ topic, explicit: explicitPartition, rec, deadlineUs: this.now + ms(this.config['max.block.ms']), waitingForMemory: false });
      return;
    }
    this.appendRecord(topic, explicitPartition, rec, upperBound, true);
  }

  // The last record size upperBound computed, and for which key and value sizes.
  private lastBoundKeySize = -2; // (no size is -2: a key or value is -1 when null)
  private lastBoundValueSize = -2;
  private lastBound = 0;

  /** A record's size alone in a batch [AbstractRecords.estimateSizeInBytesUpperBound]. */
  private upperBound(rec: PendingRecord): number {
    const keySize = this.payloads.keySize(rec.keyId);
    const valueSize = rec.tombstone === true ? -1 : rec.valueSize;
    // A workload's records mostly repeat the last sizes: the answer of the last pair is kept (it is asked per record).
    if (keySize !== this.lastBoundKeySize || valueSize !== this.lastBoundValueSize) {
      this.lastBoundKeySize = keySize;
      this.lastBoundValueSize = valueSize;
      this.lastBound = RECORD_BATCH_OVERHEAD + recordSizeOf(0, 0, keySize, valueSize, NO_HEADERS);
    }
    return this.lastBound;
  }

  private emitInvoke(topic: string, partition: number, rec: PendingRecord): void {
    const prefix = this.payloads.countedPrefix;
    const value = this.payloads.valueText(rec.valueId)!;
    // One literal per shape (the busiest kind of the trace: see Trace.emitEvent).
    const e =
      rec.tombstone === true
        ? { t: UNSTAMPED, seq: UNSTAMPED, kind: 'send.invoke' as const, node: this.id, topic, partition, key: rec.key, value, tombstone: true }
        : { t: UNSTAMPED, seq: UNSTAMPED, kind: 'send.invoke' as const, node: this.id, topic, partition, key: rec.key, value };
    if (prefix === null || rec.valueId < 0) {
      this.trace.emitEvent(e);
      return;
    }
    // The key's number too, when it has one, so a reader keyed by number need not parse the key either.
    const keyPrefix = this.payloads.keyPrefix(rec.keyId);
    this.trace.emitEvent(e, keyPrefix !== null ? { prefix, n: rec.valueId, keyPrefix, keyN: this.payloads.keyNumber(rec.keyId) } : { prefix, n: rec.valueId });
  }

  /** The topic is known, and so is the explicit partition [KafkaProducer.waitOnMetadata]. */
  /** The topic's partition count as this producer's metadata knows it; null (and a refresh asked for) when it does not yet. */
  partitionCountOf(topic: string): number | null {
    const n = this.metadata.partitionCount(topic);
    if (n === null) {
      this.metadata.requestUpdateForNewTopics();
      this.sender.wakeup();
    }
    return n;
  }

  private metadataReady(topic: string, explicit: number | undefined): boolean {
    const n = this.metadata.partitionCount(topic);
    return n !== null && (explicit === undefined || explicit < n);
  }

  private block(b: Blocked): void {
    this.blocked.push(b);
    if (b.waitingForMemory) {
      // While anyone waits for memory every partition counts as ready, so the sender frees it fast.
      this.pool.queued++;
      this.sender.wakeup();
    }
    if (!this.metadataReady(b.topic, b.explicit)) {
      this.metadata.requestUpdateForNewTopics();
      this.sender.wakeup();
    }
    this.armBlockedTimer();
  }

  /**
   * Appends one record [RecordAccumulator.append]; false when buffer.memory had no room (the caller keeps it
   * waiting). A keyless record goes to the sticky partition; when that partition's last batch has no room, the
   * batch is closed and a switch that was held back until a batch filled happens before a new batch is opened
   * there [RecordAccumulator.partitionChanged].
   */
  private appendRecord(topic: string, explicit: number | undefined, rec: PendingRecord, upperBound: number, emitInvoke: boolean): boolean {
    const n = this.metadata.partitionCount(topic)!;
    let partition = choosePartition(explicit, rec.key, n, this.config['partitioner.ignore.keys']);
    const sticky = partition === UNKNOWN_PARTITION ? this.partitionerFor(topic) : undefined;
    const view = sticky ? this.partitionsView(topic, n) : undefined;
    // The sticky partitioner's question, one function per topic (a keyed record allocates none).
    const allBatchesFull = sticky ? this.allBatchesFullOf(topic) : undefined;
    let r: RecordAppendResult | null;
    for (;;) {
      if (sticky) partition = sticky.partitionForAppend(view!, allBatchesFull!);
      r = this.accumulator.tryAppend(topic, partition, rec);
      if (r) break;
      if (sticky && sticky.partitionForAppend(view!, allBatchesFull!) !== partition) continue;
      r = this.accumulator.appendNewBatch(topic, partition, rec, upperBound, this.now);
      break;
    }
    if (emitInvoke) this.emitInvoke(topic, partition, rec);
    if (!r) {
      if (emitInvoke) this.block({ topic, explicit, rec, deadlineUs: this.now + ms(this.config['max.block.ms']), waitingForMemory: true });
      return false;
    }
    // The sticky partitioner counts the queue's growth, and may switch once the last batch is full [RecordAccumulator.append].
    if (sticky) sticky.updatePartitionInfo(partition, r.appendedBytes, allBatchesFull!(partition), view!);
    // The sender wakes for a new batch (to start its linger) or a full one [KafkaProducer.doSend].
    if (r.newBatchCreated || r.batch.isFull) this.sender.wakeup();
    return true;
  }

  /** [RecordAccumulator.allBatchesFull] for one topic, made once. */
  private allBatchesFullOf(topic: string): (partition: number) => boolean {
    let f = this.allBatchesFullByTopic.get(topic);
    if (f === undefined) {
      f = (p: number) => this.accumulator.allBatchesFull(topic, p);
      this.allBatchesFullByTopic.set(topic, f);
    }
    return f;
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

  /**
   * Feeds the adaptive partitioner the queue sizes on every ready check [RecordAccumulator.partitionReady]: only
   * partitions that have a queue take part, so until every partition had a batch the choice stays uniform.
   */
  private updateLoadStats(): void {
    for (const [topic, partitioner] of this.partitioners) {
      const n = this.metadata.partitionCount(topic) ?? 0;
      const queues: PartitionQueueState[] = this.accumulator
        .queueSizes(topic)
        .map((q) => ({ partition: q.partition, queueSize: q.queueSize, leaderKnown: this.metadata.leaderOf(topic, q.partition) >= 0 }));
      partitioner.updatePartitionLoadStats(queues, n);
    }
  }

  // ---- blocked sends ----

  private scheduleUnblock(): void {
    if (this.unblockScheduled || this.blocked.length === 0) return;
    this.unblockScheduled = true;
    this.setTimer(0, () => {
      this.unblockScheduled = false;
      this.unblock();
    });
  }

  private armBlockedTimer(): void {
    const first = this.blocked[0];
    const at = first ? first.deadlineUs : Infinity;
    if (at === this.blockedTimerAt) return;
    this.cancelTimer(this.blockedTimer);
    this.blockedTimer = NO_TIMER;
    this.blockedTimerAt = at;
    if (at !== Infinity) {
      this.blockedTimer = this.setTimer(Math.max(0, at - this.now), () => {
        this.blockedTimer = NO_TIMER;
        this.blockedTimerAt = Infinity;
        this.unblock();
      });
    }
  }

  /** Waiting sends continue in order once metadata or memory is there; those past max.block.ms fail. */
  private unblock(): void {
    while (this.blocked.length > 0) {
      const b = this.blocked[0]!;
      if (this.now >= b.deadlineUs) {
        this.blocked.shift();
        if (b.waitingForMemory) this.pool.queued--;
        // BufferExhaustedException when it (or the send ahead of it) waited for memory; TimeoutException for metadata.
        this.failBlocked(b.topic, b.explicit, b.rec, this.metadataReady(b.topic, b.explicit) ? 'BUFFER_EXHAUSTED' : 'TIMEOUT');
        continue;
      }
      if (!this.metadataReady(b.topic, b.explicit)) break;
      if (!this.appendRecord(b.topic, b.explicit, b.rec, this.upperBound(b.rec), false)) {
        if (!b.waitingForMemory) {
          b.waitingForMemory = true;
          this.pool.queued++;
          this.sender.wakeup();
        }
        break;
      }
      this.blocked.shift();
      if (b.waitingForMemory) this.pool.queued--;
    }
    this.armBlockedTimer();
  }

  /** send() of a fenced transactional producer throws at once: the record was never written. */
  private refuse(r: AppRecord, error: KafkaError): void {
    const value = this.payloads.valueText(r.valueId)!;
    const partition = r.partition ?? -1;
    this.trace.emit('send.invoke', this.id, r.tombstone === true ? { topic: r.topic, partition, key: r.key, value, tombstone: true } : { topic: r.topic, partition, key: r.key, value });
    this.trace.emit('send.fail', this.id, { topic: r.topic, partition: r.partition ?? -1, error, values: [value], definite: true });
  }

  private failBlocked(topic: string, explicit: number | undefined, rec: PendingRecord, error: ClientError): void {
    this.trace.emit('send.fail', this.id, { topic, partition: explicit ?? -1, error, values: [this.payloads.valueText(rec.valueId)!], definite: true });
    this.onRecordsCompleted(1, error);
  }

  private onRecordsCompleted(records: number, error: string | null): void {
    this.unacked = Math.max(0, this.unacked - records);
    this.transactional?.onCompleted(records, error);
    if (this.unacked === 0 && this.flushWaiters.length > 0) for (const f of this.flushWaiters.splice(0)) f();
  }

  /** KafkaProducer.flush(): `done` once every record sent so far is acknowledged or has failed. */
  flush(done: () => void): void {
    if (this.unacked === 0) return done();
    this.flushWaiters.push(done);
    this.sender.wakeup();
  }
}
