import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import { ms, type Micros } from '../../../core/time';
import type { Process } from '../../../world/process';
import type { ProducerConfig } from '../../config/configs';
import { isRetriable, type KafkaError } from '../../errors';
import type { NetworkClient, Outcome } from '../../net/networkClient';
import type { InitProducerIdResponse, LeaderHint, MetadataResponse, ProducePartitionData, ProducePartitionResponse, ProduceRequest, ProduceResponse } from '../../protocol';
import type { ExponentialBackoff } from '../backoff';
import { brokerActorId, brokerIdOf, type ClientMetadata } from '../metadataCache';
import type { RecordAccumulator } from './accumulator';
import type { ClusterConnectionStates } from './connectionStates';
import type { ProducerBatch } from './producerBatch';
import { TransactionManager } from './transactionManager';
import { ProducerMetrics } from './producerMetrics';
import { UNSTAMPED } from '../../../core/trace';
import { bool, defineKinds, list, num, optional, str, type KindsOf } from '../../../core/traceSchema';

/** The sender's outcomes: the completion half of the history. */
export const SENDER_KINDS = defineKinds({
  /** A batch was acknowledged: record i of `values` is at offset `offset + i` (offset -1 with acks=0 or a duplicate beyond the broker's memory). */
  'send.ok': { topic: str, partition: num, offset: num, values: list(str), broker: num, acks: str },
  /** A send failed for good. `definite` when no attempt can have been written. */
  'send.fail': { topic: str, partition: num, error: str, values: list(str), definite: bool },
  /** One attempt of a batch failed and it will be retried (`attempt` counts the retries, from 1). */
  'send.retry': { topic: str, partition: num, error: str, attempt: num, sequence: num, broker: num },
  /** The idempotent producer got a producer id, or bumped its epoch. */
  'producer.id': { producerId: num, producerEpoch: num, reason: str, transactionalId: optional(str) },
});

declare module '../../../core/trace' {
  interface TraceKinds extends KindsOf<typeof SENDER_KINDS> {}
}

/** Errors that say the client's metadata is stale: refresh it [InvalidMetadataException and its subclasses]. */
export const INVALID_METADATA_ERRORS: ReadonlySet<KafkaError> = new Set<KafkaError>([
  'NOT_LEADER_OR_FOLLOWER',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'KAFKA_STORAGE_ERROR',
  'NETWORK_EXCEPTION',
]);

/** Errors after which the attempt may nonetheless be in the log. */
export const MAYBE_APPENDED_ERRORS: ReadonlySet<KafkaError> = new Set<KafkaError>(['NETWORK_EXCEPTION', 'REQUEST_TIMED_OUT', 'NOT_ENOUGH_REPLICAS_AFTER_APPEND']);

/** What the sender needs from the application side of its producer. */
export interface SenderHooks {
  /** Some send() waits for buffer memory: every partition counts as ready. */
  exhausted(): boolean;
  /** Memory was freed or metadata changed: waiting sends may go on. */
  progress(): void;
  /** Refreshes the sticky partitioners' load statistics before a ready check. */
  updateLoadStats(): void;
  /** A batch of `records` completed (error null) or failed for good: the transactional producer counts them. */
  completed?(records: number, error: string | null): void;
}

export interface SenderOptions {
  readonly owner: Process;
  readonly config: ProducerConfig;
  readonly acks: -1 | 0 | 1;
  readonly metadata: ClientMetadata;
  readonly net: NetworkClient;
  readonly accumulator: RecordAccumulator;
  readonly transactionManager: TransactionManager<ProducerBatch> | null;
  /** A transactional producer's transaction.version (default 2). */
  readonly transactionVersion?: 0 | 1 | 2;
  readonly connections: ClusterConnectionStates;
  readonly retryBackoff: ExponentialBackoff;
  readonly hooks: SenderHooks;
  /** Picks the broker index among equally good candidates (leastLoadedNode's random start). */
  readonly pickStart: (n: number) => number;
}

/** Up to this many partitions in a Produce response, a batch finds its answer by a scan rather than a map. */
const SCAN_MATCH_MAX = 8;

/** The last answer for topic-partition in a response, if any. */
function lastAnswerFor(parts: readonly ProducePartitionResponse[], topic: string, partition: number): ProducePartitionResponse | undefined {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    if (p.partition === partition && p.topic === topic) return p;
  }
  return undefined;
}

/**
 * The producer's network thread [clients/.../producer/internals/Sender.java, with the metadata updater of
 * NetworkClient]: on every pass it resolves the idempotent producer's state (InitProducerId, epoch bumps),
 * refreshes metadata when due, expires batches past delivery.timeout.ms, asks the accumulator which leaders are
 * ready, drains their batches into Produce requests (at most max.in.flight.requests.per.connection per broker),
 * and handles every answer: complete, retry after backoff, or fail for good. Each outcome is a trace event, the
 * history the checkers read.
 */
export class Sender {
  private readonly o: SenderOptions;
  private readonly guaranteeMessageOrder: boolean;
  /** Batches on the wire, for the in-flight expiry [Sender.inFlightBatches]. */
  private readonly inFlightBatches = new Set<ProducerBatch>();
  private timer: TimerId = NO_TIMER;
  private timerAt = Infinity;
  private metadataInFlight = false;
  private initProducerIdInFlight = false;
  private initProducerIdRetryAt = -1;
  /** Why the next epoch bump happens (for the trace). */
  private bumpReason = '';
  private backoffCache = { at: -2, draws: [] as Micros[] };
  private readonly maxAgeUs: Micros;
  readonly metrics: ProducerMetrics;

  constructor(opts: SenderOptions) {
    this.o = opts;
    this.metrics = new ProducerMetrics(opts.owner.now);
    this.guaranteeMessageOrder = opts.config['max.in.flight.requests.per.connection'] === 1;
    this.maxAgeUs = ms(opts.config['metadata.max.age.ms']);
  }

  private get now(): Micros {
    return this.o.owner.now;
  }

  /** Runs a sender pass as soon as possible (several wake-ups at one instant make one pass). */
  wakeup(): void {
    this.scheduleAt(this.now);
  }

  private scheduleAt(at: Micros): void {
    if (!this.o.owner.alive || at >= this.timerAt) return;
    this.o.owner.cancelTimer(this.timer);
    this.timerAt = at;
    this.timer = this.o.owner.setTimer(Math.max(0, at - this.now), this.onTimer);
  }

  /** The pass's timer (one function for the sender's life: it is re-armed several times per request). */
  private readonly onTimer = (): void => {
    this.timer = NO_TIMER;
    this.timerAt = Infinity;
    this.runOnce();
  };

  /** Brokers with a connection attempt (an ApiVersions request) outstanding. */
  private readonly connecting = new Set<number>();

  /**
   * Opens a connection to `node`: Kafka's client sends ApiVersions first and only then treats the node as
   * ready [NetworkClient.initiateConnect / handleApiVersionsResponse]. A dead broker's OS refuses the
   * connection, an unreachable one never answers (socket.connection.setup.timeout.ms).
   */
  private initiateConnect(node: number): void {
    if (this.connecting.has(node)) return;
    this.connecting.add(node);
    this.o.net.send<{ type: 'ApiVersions' }, { error: string }>(
      brokerActorId(node),
      { type: 'ApiVersions' },
      { timeoutMs: this.o.config['request.timeout.ms'] },
      (r) => {
        this.connecting.delete(node);
        if (r.ok) this.o.connections.connected(node);
        else this.o.connections.disconnected(node, this.now);
        this.wakeup();
      },
    );
  }

  /** The connection to `peer` broke: fail what was in flight (NetworkClient does) and refresh metadata [handleServerDisconnect]. */
  onDisconnect(peer: string): void {
    const node = brokerIdOf(peer);
    if (node === null) return;
    this.o.connections.disconnected(node, this.now);
    this.o.metadata.requestUpdate();
    this.wakeup();
  }

  // ---- one pass [Sender.runOnce / sendProducerData] ----

  private runOnce(): void {
    const now = this.now;
    const { accumulator, metadata, transactionManager: txn } = this.o;
    let next = Infinity;

    if (txn) {
      txn.maybeResolveSequences();
      const pe = txn.producerIdAndEpoch;
      const bump = txn.bumpIdempotentEpochAndResetIdIfNeeded();
      if (bump.bumped) {
        this.o.owner.trace.emit('producer.id', this.o.owner.id, {
          producerId: txn.producerIdAndEpoch.producerId,
          producerEpoch: txn.producerIdAndEpoch.epoch,
          reason: `epoch bump from ${pe.epoch}${this.bumpReason ? `: ${this.bumpReason}` : ''}`,
        });
        this.bumpReason = '';
      }
      if (txn.state === 'INITIALIZING' && !this.initProducerIdInFlight) {
        if (this.initProducerIdRetryAt <= now) this.sendInitProducerId();
        else next = Math.min(next, this.initProducerIdRetryAt);
      }
    }

    // Batches past delivery.timeout.ms fail, whether queued or on the wire [Sender.getExpiredInflightBatches].
    for (const b of accumulator.expiredBatches(now)) this.expire(b);
    // (The set is copied, as expiring changes it, only on a pass that finds one to expire.)
    let inFlightExpired = false;
    for (const b of this.inFlightBatches) {
      if (b.hasReachedDeliveryTimeout(accumulator.deliveryTimeout, now)) {
        inFlightExpired = true;
        break;
      }
    }
    if (inFlightExpired) for (const b of [...this.inFlightBatches]) if (b.hasReachedDeliveryTimeout(accumulator.deliveryTimeout, now)) this.expire(b);

    this.o.hooks.updateLoadStats();
    const result = accumulator.ready(metadata, now, this.o.hooks.exhausted());
    if (result.unknownLeaderTopics.length > 0) metadata.requestUpdate();
    next = Math.min(next, now + result.nextReadyCheckDelayUs);

    // Keep only the nodes a request can go to now [NetworkClient.ready]: connected (the ApiVersions
    // exchange done), not in reconnect backoff, under the in-flight limit. A node not yet connected gets a
    // connection attempt; its batches wait in the accumulator meanwhile (and may move to a new leader).
    const maxInFlight = this.o.config['max.in.flight.requests.per.connection'];
    const sendable: number[] = [];
    for (const node of result.readyNodes) {
      const delay = this.o.connections.connectionDelay(node, now);
      if (delay > 0) next = Math.min(next, now + delay);
      else if (!this.o.connections.isConnected(node)) this.initiateConnect(node);
      else if (this.o.net.inFlight(brokerActorId(node)) < maxInFlight) sendable.push(node);
    }
    // (Most passes find no node to send to: no drain then.)
    const drained = sendable.length > 0 ? accumulator.drain(metadata, sendable, this.o.config['max.request.size'], now) : null;
    let sent = false;
    for (const node of sendable) {
      const batches = drained!.get(node);
      if (batches === undefined || batches.length === 0) continue;
      for (const b of batches) {
        this.inFlightBatches.add(b);
        if (this.guaranteeMessageOrder) accumulator.mutePartition(b.topic, b.partition);
      }
      this.sendProduceRequest(node, batches);
      sent = true;
    }

    // The metadata refresh's own wake-up joins the pass's: one timer armed per pass, at the earliest of them (no
    // event is scheduled in between, so the timer keeps its place among equal times).
    next = Math.min(next, this.maybeUpdateMetadata());
    // A drained node may have more to send right away (up to its in-flight limit), as Kafka polls again at once.
    if (sent) next = now;
    next = Math.min(next, accumulator.nextExpiryTimeUs());
    for (const b of this.inFlightBatches) next = Math.min(next, b.createdUs + accumulator.deliveryTimeout);
    if (next !== Infinity) this.scheduleAt(Math.max(next, now));
  }

  // ---- metadata [NetworkClient.DefaultMetadataUpdater.maybeUpdate] ----

  /** The refresh backoff, drawn once per refresh attempt so that repeated checks agree. */
  private metadataBackoffUs(attempts: number): Micros {
    const c = this.backoffCache;
    if (c.at !== this.o.metadata.lastRefreshUs) {
      c.at = this.o.metadata.lastRefreshUs;
      c.draws = [];
    }
    let v = c.draws[attempts];
    if (v === undefined) c.draws[attempts] = v = ms(this.o.retryBackoff.backoff(attempts));
    return v;
  }

  /** The n-th refresh backoff (one function for the sender's life: timeToNextUpdate asks on every pass). */
  private readonly metadataBackoff = (attempts: number): Micros => this.metadataBackoffUs(attempts);

  /** Sends a Metadata request when one is due; returns when the next pass must look again (Infinity: no need). */
  private maybeUpdateMetadata(): Micros {
    if (this.metadataInFlight) return Infinity;
    const now = this.now;
    const wait = this.o.metadata.timeToNextUpdate(now, this.maxAgeUs, this.metadataBackoff);
    if (wait > 0) return now + wait;
    const node = this.leastLoadedNode();
    if (node === null) return now + this.minConnectionDelay();
    this.metadataInFlight = true;
    this.o.net.send<{ type: 'Metadata'; topics: null }, MetadataResponse>(
      brokerActorId(node),
      { type: 'Metadata', topics: null },
      { timeoutMs: this.o.config['request.timeout.ms'] },
      (r) => {
        this.metadataInFlight = false;
        if (r.ok) {
          this.o.connections.connected(node);
          this.o.metadata.update(r.response, this.now);
          this.o.hooks.progress();
        } else {
          this.o.connections.disconnected(node, this.now);
          this.o.metadata.failedUpdate(this.now);
        }
        this.wakeup();
      },
    );
    return Infinity;
  }

  /**
   * The broker to ask for metadata or a producer id [NetworkClient.leastLoadedNode]: starting at a random one,
   * the first connected broker with nothing in flight, else the one with the fewest requests in flight among
   * those not in reconnect backoff. Null when every broker is backing off.
   */
  leastLoadedNode(): number | null {
    const nodes = this.o.metadata.knownBrokers();
    if (nodes.length === 0) return null;
    const now = this.now;
    const offset = this.o.pickStart(nodes.length);
    let best: number | null = null;
    let bestLoad = Infinity;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[(offset + i) % nodes.length]!;
      if (this.o.connections.isBlackedOut(n, now)) continue;
      const load = this.o.net.inFlight(brokerActorId(n));
      if (load === 0 && this.o.connections.isConnected(n)) return n;
      if (load < bestLoad) {
        best = n;
        bestLoad = load;
      }
    }
    return best;
  }

  private minConnectionDelay(): Micros {
    let d = Infinity;
    for (const n of this.o.metadata.knownBrokers()) d = Math.min(d, this.o.connections.connectionDelay(n, this.now));
    return d === Infinity ? ms(this.o.config['reconnect.backoff.ms']) : Math.max(1, d);
  }

  // ---- idempotence: InitProducerId [TransactionManager.InitProducerIdHandler] ----

  private sendInitProducerId(): void {
    const txn = this.o.transactionManager!;
    const node = this.leastLoadedNode();
    if (node === null) {
      this.initProducerIdRetryAt = this.now + this.minConnectionDelay();
      this.scheduleAt(this.initProducerIdRetryAt);
      return;
    }
    this.initProducerIdInFlight = true;
    this.o.net.send<{ type: 'InitProducerId'; transactionalId: null }, InitProducerIdResponse>(
      brokerActorId(node),
      { type: 'InitProducerId', transactionalId: null },
      { timeoutMs: this.o.config['request.timeout.ms'] },
      (r) => {
        this.initProducerIdInFlight = false;
        if (r.ok && r.response.error === 'NONE') {
          this.o.connections.connected(node);
          txn.setProducerIdAndEpoch(r.response.producerId, r.response.producerEpoch);
          this.o.owner.trace.emit('producer.id', this.o.owner.id, {
            producerId: r.response.producerId,
            producerEpoch: r.response.producerEpoch,
            reason: 'InitProducerId',
          });
        } else {
          if (!r.ok) this.o.connections.disconnected(node, this.now);
          // Retriable (no coordinator yet, a lost connection): ask again after retry.backoff.ms.
          this.initProducerIdRetryAt = this.now + ms(this.o.config['retry.backoff.ms']);
        }
        this.wakeup();
      },
    );
  }

  // ---- produce requests and their outcomes ----

  private sendProduceRequest(node: number, batches: readonly ProducerBatch[]): void {
    let bytes = 0;
    for (const b of batches) {
      b.sends++;
      b.inFlight = true;
      bytes += b.toRecordBatch().sizeInBytes;
      this.metrics.recordsSent.mark(b.recordCount);
    }
    const sentAt = this.now;
    const partitions = new Array<ProducePartitionData>(batches.length);
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      partitions[i] = { topic: b.topic, partition: b.partition, batch: b.toRecordBatch() };
    }
    // Every field from the start, correlation id last (where NetworkClient.send stamps it), so a request has one shape.
    const acks = this.o.acks;
    const timeoutMs = this.o.config['request.timeout.ms'];
    const transactionalId = this.o.config['transactional.id'];
    const request: ProduceRequest =
      transactionalId === null
        ? { type: 'Produce', acks, timeoutMs, partitions, correlationId: 0 }
        : { type: 'Produce', acks, timeoutMs, partitions, transactionalId, transactionVersion: this.o.transactionVersion ?? 2, correlationId: 0 };
    const to = brokerActorId(node);
    if (this.o.acks === 0) {
      // No answer will come: the batch counts as done once it is on the wire.
      this.o.net.send(to, request, { timeoutMs: this.o.config['request.timeout.ms'], bytes, expectResponse: false }, () => {});
      for (const b of batches) this.completeBatch(b, { error: 'NONE', baseOffset: -1, logStartOffset: -1 }, node);
      return;
    }
    this.o.net.send<typeof request, ProduceResponse>(to, request, { timeoutMs: this.o.config['request.timeout.ms'], bytes }, (r) => {
      this.metrics.requestLatency((this.now - sentAt) / 1000);
      this.handleProduceResponse(node, batches, r);
    });
  }

  /** [Sender.handleProduceResponse] */
  private handleProduceResponse(node: number, batches: readonly ProducerBatch[], r: Outcome<ProduceResponse>): void {
    if (r.ok) {
      this.o.connections.connected(node);
      const parts = r.response.partitions;
      // A request of a few partitions (most are) is matched by a scan, a big one by a map; on a repeated
      // partition the last answer counts either way.
      let byTp: Map<string, ProducePartitionResponse> | null = null;
      if (parts.length > SCAN_MATCH_MAX) {
        byTp = new Map();
        for (const p of parts) byTp.set(TransactionManager.key(p.topic, p.partition), p);
      }
      const hints: { topic: string; partition: number; hint: LeaderHint }[] = [];
      for (const b of batches) {
        const p = byTp !== null ? byTp.get(TransactionManager.key(b.topic, b.partition)) : lastAnswerFor(parts, b.topic, b.partition);
        this.completeBatch(b, p ? { error: p.error, baseOffset: p.baseOffset, logStartOffset: p.logStartOffset } : { error: 'UNKNOWN_SERVER_ERROR', baseOffset: -1, logStartOffset: -1 }, node);
        if (p?.currentLeader && (p.error === 'NOT_LEADER_OR_FOLLOWER' || p.error === 'FENCED_LEADER_EPOCH')) hints.push({ topic: b.topic, partition: b.partition, hint: p.currentLeader });
      }
      // KIP-951: the new leader the broker named; the retry then goes there without backing off (the batch sees a
      // newer leader epoch when it is drained) [Sender.handleProduceResponse → Metadata.updatePartitionLeadership].
      if (hints.length > 0) this.o.metadata.updatePartitionLeadership(hints, r.response.nodeEndpoints ?? []);
    } else {
      // The connection broke or the request timed out (NetworkClient closed the connection): either way a
      // disconnect, which may mean stale metadata [DefaultMetadataUpdater.handleServerDisconnect].
      this.o.connections.disconnected(node, this.now);
      this.o.metadata.requestUpdate();
      for (const b of batches) this.completeBatch(b, { error: r.error, baseOffset: -1, logStartOffset: -1 }, node);
    }
    this.wakeup();
  }

  /** Complete, retry or fail one batch from its partition's answer [Sender.completeBatch]. */
  private completeBatch(b: ProducerBatch, resp: { error: KafkaError; baseOffset: number; logStartOffset: number }, node: number): void {
    this.inFlightBatches.delete(b);
    b.inFlight = false;
    if (this.guaranteeMessageOrder) this.o.accumulator.unmutePartition(b.topic, b.partition);
    const error = resp.error;
    if (error === 'NONE') {
      this.succeed(b, resp.baseOffset, node);
      return;
    }
    if (MAYBE_APPENDED_ERRORS.has(error)) b.mayHaveBeenAppended = true;
    const txn = this.o.transactionManager;
    const bumpBefore = txn?.isEpochBumpRequired ?? false;
    if (this.canRetry(b, error, resp.logStartOffset)) {
      this.noteBump(bumpBefore, error, b);
      const backoffUs = ms(this.o.retryBackoff.backoff(b.attempts));
      this.o.accumulator.reenqueue(b, this.now, backoffUs);
      this.metrics.recordsRetried.mark(b.recordCount);
      this.o.owner.trace.emit('send.retry', this.o.owner.id, {
        topic: b.topic,
        partition: b.partition,
        error,
        attempt: b.attempts,
        sequence: b.baseSequence,
        broker: node,
      });
    } else if (error === 'DUPLICATE_SEQUENCE_NUMBER') {
      // Written long ago, beyond what the broker remembers: a success without an offset.
      this.succeed(b, -1, node);
    } else {
      this.failBatch(b, error, b.attempts < this.o.config.retries);
      this.noteBump(bumpBefore, error, b);
    }
    if (INVALID_METADATA_ERRORS.has(error)) this.o.metadata.requestUpdate();
  }

  private noteBump(before: boolean, error: string, b: ProducerBatch): void {
    if (!before && this.o.transactionManager?.isEpochBumpRequired) this.bumpReason = `${error} on ${b.topic}-${b.partition}`;
  }

  /** Not past delivery.timeout.ms, retries left, not done, and a retriable error [Sender.canRetry]. */
  private canRetry(b: ProducerBatch, error: KafkaError, logStartOffset: number): boolean {
    if (b.hasReachedDeliveryTimeout(this.o.accumulator.deliveryTimeout, this.now)) return false;
    if (b.attempts >= this.o.config.retries || b.done) return false;
    const txn = this.o.transactionManager;
    return txn ? txn.canRetry(error, b, logStartOffset) : isRetriable(error);
  }

  private succeed(b: ProducerBatch, baseOffset: number, node: number): void {
    this.o.transactionManager?.handleCompletedBatch(b, baseOffset);
    if (b.done) return;
    b.done = true;
    this.o.accumulator.deallocate(b);
    const e = { t: UNSTAMPED, seq: UNSTAMPED, kind: 'send.ok' as const, node: this.o.owner.id, topic: b.topic, partition: b.partition, offset: baseOffset, values: b.values(), broker: node, acks: this.o.config.acks };
    this.o.owner.trace.emitEvent(e, b.valueNumbers());
    this.o.hooks.completed?.(b.recordCount, null);
    this.o.hooks.progress();
  }

  /** [Sender.failBatch] */
  private failBatch(b: ProducerBatch, error: KafkaError | 'TIMEOUT', adjustSequenceNumbers: boolean): void {
    this.o.transactionManager?.handleFailedBatch(b, error, adjustSequenceNumbers);
    if (b.done) return;
    b.done = true;
    this.o.accumulator.deallocate(b);
    this.metrics.recordsFailed.mark(b.recordCount);
    this.o.owner.trace.emit('send.fail', this.o.owner.id, {
      topic: b.topic,
      partition: b.partition,
      error,
      values: b.values(),
      definite: !b.mayHaveBeenAppended,
    }, b.valueNumbers());
    this.o.hooks.completed?.(b.recordCount, error);
    this.o.hooks.progress();
  }

  /** delivery.timeout.ms passed: fail it; a retried batch leaves its partition's sequence unresolved [Sender.sendProducerData]. */
  private expire(b: ProducerBatch): void {
    if (b.inFlight) {
      this.inFlightBatches.delete(b);
      b.mayHaveBeenAppended = true;
    }
    this.failBatch(b, 'TIMEOUT', false);
    if (this.o.transactionManager && b.retry) this.o.transactionManager.markSequenceUnresolved(b);
  }
}
