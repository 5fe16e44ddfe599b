import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import { ms, type Micros } from '../../../core/time';
import { NumberedListBuilder, type NumberedTexts } from '../../../core/numberedText';
import { UNSTAMPED } from '../../../core/trace';
import type { ProcessContext } from '../../../world/host';
import { Process } from '../../../world/process';
import type { ConsumerConfig } from '../../config/configs';
import { tpKey, type MetadataResponse, type TopicPartition } from '../../protocol';
import { ConsumerMetrics } from './consumerMetrics';
import { retryBackoff, type ExponentialBackoff } from '../backoff';
import { brokerActorId, ClientMetadata, leastLoadedNode } from '../metadataCache';
import { NetworkClient } from '../../net/networkClient';
import { ConsumerApplication } from './consumerApplication';
import type { TransformSpec } from './transformLoop';
import { ConsumerCoordinator } from './consumerCoordinator';
import { ConsumerMembershipManager } from './consumerMembershipManager';
import type { GroupMembership } from './groupMembership';
import type { CommitKind, CommitResult } from './groupOffsets';
import type { PolledPartition } from './consumerHistory';
import { DeadLetterPublisher } from './deadLetterPublisher';
import { FetchBuffer, type PolledRecord } from './fetchBuffer';
import { Fetcher } from './fetcher';
import { OffsetFetcher } from './offsetFetcher';
import { resetTargetFor } from './offsetReset';
import { resolveProcessingModel, type ProcessingModel, type SeekTarget } from './processingModel';
import { SubscriptionState } from './subscriptionState';

export interface ConsumerOptions {
  /** Process id; also the client.id. */
  readonly id: string;
  readonly config: ConsumerConfig;
  /** Broker ids to bootstrap from (bootstrap.servers). */
  readonly bootstrap: readonly number[];
  /** subscribe(topics): group management (needs group.id). */
  readonly topics?: readonly string[];
  /** assign(partitions): manual assignment, no group membership. */
  readonly assign?: readonly TopicPartition[];
  /** What the application does with the records. */
  readonly processing?: ProcessingModel;
  /** A consume-transform-produce application: the output topic, the guarantee and its producer. */
  readonly transform?: TransformSpec;
}

/** What poll() hands back: records, or the error that stops the application. */
export type PollResult = { readonly records: readonly PolledRecord[] } | { readonly error: string };

/** close() waits at most this long for its commit and LeaveGroup. [KafkaConsumer `DEFAULT_CLOSE_TIMEOUT_MS`] */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/**
 * Kafka's consumer [clients/.../consumer/internals/ClassicKafkaConsumer.java; with group.protocol=consumer the
 * group membership of AsyncKafkaConsumer.java], as a process: poll() finds the coordinator, moves rebalances forward, fetches committed offsets and resets
 * positions, returns up to max.poll.records buffered records and keeps one fetch in flight per leader. An
 * application loop (consumerApplication.ts) drives it with the scenario's processing model.
 */
export class Consumer extends Process {
  readonly config: ConsumerConfig;
  readonly net: NetworkClient;
  readonly metadata: ClientMetadata;
  readonly subscriptions = new SubscriptionState();
  readonly buffer = new FetchBuffer();
  readonly fetcher: Fetcher;
  readonly offsetFetcher: OffsetFetcher;
  /** The group membership: the classic protocol or the consumer protocol (KIP-848), as group.protocol says. */
  readonly coordinator: GroupMembership | null;
  readonly deadLetters: DeadLetterPublisher;
  private readonly backoff: ExponentialBackoff;
  private metadataInFlight = false;
  private metadataWanted = true;
  private metadataAttempts = 0;
  private fatalError: { readonly error: string; readonly detail: string } | null = null;
  private pollWaiter: { readonly deadlineUs: Micros; readonly cb: (r: PollResult) => void; timer: TimerId; timerAt: Micros } | null = null;
  private wakeScheduled = false;
  /** Poll passes at one simulated instant, to catch a poll that keeps waking itself (a bug). */
  private spinAt = -1;
  private spins = 0;
  private closing = false;
  app: ConsumerApplication | null = null;
  readonly metricsRole = 'consumer';
  readonly metrics: ConsumerMetrics;

  constructor(
    ctx: ProcessContext,
    readonly opts: ConsumerOptions,
  ) {
    super(opts.id, ctx);
    this.config = opts.config;
    this.metrics = new ConsumerMetrics(this.now);
    this.net = new NetworkClient(this);
    this.metadata = new ClientMetadata(opts.bootstrap);
    this.backoff = retryBackoff(this.config['retry.backoff.ms'], this.config['retry.backoff.max.ms'], this.random.fork('backoff'));
    this.fetcher = new Fetcher(this);
    this.offsetFetcher = new OffsetFetcher(this);
    this.deadLetters = new DeadLetterPublisher(this);
    this.coordinator = this.config['group.id'] === null ? null : this.config['group.protocol'] === 'consumer' ? new ConsumerMembershipManager(this) : new ConsumerCoordinator(this);
    if (opts.topics && opts.topics.length > 0) {
      if (this.config['group.id'] === null) throw new Error(`${opts.id}: subscribe() needs a group.id`);
      this.subscriptions.subscribe(opts.topics);
    } else if (opts.assign) {
      this.subscriptions.manual = true;
      this.subscriptions.assign(opts.assign);
    }
  }

  override onStart(): void {
    if (this.config['isolation.level'] === 'read_committed') this.trace.emit('consumer.isolation', this.id, { level: 'read_committed' });
    this.refreshMetadata();
    // The periodic refresh is due metadata.max.age.ms after the last one, but never sooner than the refresh
    // backoff (retry.backoff.ms for a refresh that succeeded), and Kafka's clock reads milliseconds: with
    // metadata.max.age.ms=0 (allowed, atLeast(0)) it refreshes every retry.backoff.ms instead of without end.
    // [src: clients/.../Metadata.java `timeToNextUpdate`, `timeToAllowUpdate`; CommonClientConfigs METADATA_MAX_AGE_CONFIG]
    const maxAge = Math.max(ms(this.config['metadata.max.age.ms']), ms(this.config['retry.backoff.ms']), ms(1));
    const periodic = (): void => {
      this.metadataWanted = true;
      this.refreshMetadata();
      this.setTimer(maxAge, periodic);
    };
    this.setTimer(maxAge, periodic);
    if (this.subscriptions.manual && this.opts.assign) {
      // Manual assignment: not a group member (group null), whatever group.id says.
      this.trace.emit('consumer.assignment', this.id, {
        group: null,
        memberId: '',
        generation: -1,
        protocol: 'manual',
        assigned: this.subscriptions.assignedPartitions().map((s) => s.key),
        revoked: [],
        lost: [],
        owned: this.subscriptions.assignedPartitions().map((s) => s.key),
      });
    }
    this.app = new ConsumerApplication(this, resolveProcessingModel(this.opts.processing, `${this.id}.processing`), this.random.fork('processing'), this.opts.transform);
    this.app.start();
  }

  onMessage(from: string, msg: unknown): void {
    this.net.handleResponse(from, msg as { correlationId?: number });
  }

  override onDisconnect(peer: string): void {
    this.net.onDisconnect(peer);
  }

  // ---- what the application calls ----

  /** KafkaConsumer.poll(timeout): `cb` runs once, with records, an empty list at the timeout, or a fatal error. */
  poll(timeoutMs: number, cb: (r: PollResult) => void): void {
    if (this.pollWaiter) throw new Error(`${this.id}: poll() while a poll is in progress`);
    this.pollWaiter = { deadlineUs: this.now + ms(timeoutMs), cb, timer: NO_TIMER, timerAt: Infinity };
    this.pollAttempt();
  }

  /** commitSync() of everything consumed so far (default.api.timeout.ms). */
  commitSync(kind: CommitKind, cb: (r: CommitResult) => void): void {
    if (!this.coordinator) return cb({ done: true, ok: false, error: 'INVALID_GROUP_ID', retriable: false });
    this.coordinator.commitOffsetsSync(this.subscriptions.allConsumed(), kind, this.config['default.api.timeout.ms'], cb);
  }

  commitAsync(kind: CommitKind): void {
    this.coordinator?.commitOffsetsAsync(this.subscriptions.allConsumed(), kind);
  }

  /** The positions a commit would cover: every assigned partition with a position. [SubscriptionState.allConsumed] */
  consumedOffsets(): { topic: string; partition: number; offset: number; leaderEpoch: number }[] {
    return this.subscriptions.allConsumed();
  }

  /** KafkaConsumer.groupMetadata(): what sendOffsetsToTransaction carries (KIP-447). */
  groupMetadata(): { groupId: string; generationId: number; memberId: string; groupInstanceId: string | null } {
    const joined = this.coordinator?.joinedGroupMetadata;
    return {
      groupId: this.config['group.id'] ?? '',
      generationId: joined?.generationId ?? this.coordinator?.generationId ?? -1,
      memberId: joined?.memberId ?? this.coordinator?.memberId ?? '',
      groupInstanceId: this.config['group.instance.id'],
    };
  }

  /**
   * Every assigned partition goes back to its committed offset (what an exactly-once application does after
   * aborting a transaction: the aborted outputs' inputs are read again). [Kafka Streams TaskExecutor / the
   * EOS loop's `resetToLastCommittedPositions`]
   */
  rewindToCommitted(): void {
    for (const s of this.subscriptions.assignedPartitions()) {
      this.buffer.remove(s.key);
      s.position = null;
      s.reset = null;
      s.awaitingValidation = false;
      s.awaitingCommitted = true;
    }
    this.subscriptions.changed();
    this.wake();
  }

  /** seek / seekToBeginning / seekToEnd / offsetsForTimes+seek of every assigned partition. */
  seekAll(to: SeekTarget): void {
    const parts = this.subscriptions.assignedPartitions();
    const label = typeof to === 'string' ? to : 'offset' in to ? `offset ${to.offset}` : `timestamp ${to.timestampMs}`;
    this.trace.emit('consumer.seek', this.id, { partitions: parts.map((s) => s.key), to: label });
    for (const s of parts) {
      this.buffer.remove(s.key);
      if (to === 'beginning') this.subscriptions.requestReset(s, { kind: 'earliest' }, 'seekToBeginning');
      else if (to === 'end') this.subscriptions.requestReset(s, { kind: 'latest' }, 'seekToEnd');
      else if ('offset' in to) {
        const from = s.position;
        this.subscriptions.seek(s, to.offset);
        this.trace.emit('consumer.offset.reset', this.id, { topic: s.topic, partition: s.partition, from, to: to.offset, strategy: 'seek', reason: 'seek' });
      } else this.subscriptions.requestReset(s, { kind: 'timestamp', timestampMs: to.timestampMs }, 'seek to time');
    }
  }

  /** Moves one partition back (the application retries a record). */
  seekPartition(key: string, offset: number): void {
    const s = this.subscriptions.get(key);
    if (!s) return;
    this.buffer.remove(key);
    this.subscriptions.seek(s, offset, s.positionEpoch);
  }

  /** KafkaConsumer.pause / resume of every assigned partition. */
  setPaused(paused: boolean): void {
    for (const s of this.subscriptions.assignedPartitions()) s.paused = paused;
    this.subscriptions.changed();
    if (!paused) this.wake();
  }

  /** close(): commit (auto-commit), revoke, leave the group (dynamic members), then `cb`. */
  close(cb: () => void): void {
    if (this.closing) return;
    this.closing = true;
    const done = (): void => {
      this.fetcher.closeSessions();
      this.trace.emit('consumer.close', this.id, { group: this.config['group.id'], memberId: this.coordinator?.memberId ?? '' });
      cb();
    };
    if (this.coordinator) this.coordinator.close(DEFAULT_CLOSE_TIMEOUT_MS, done);
    else done();
  }

  // ---- poll ----

  private pollAttempt(): void {
    const w = this.pollWaiter;
    if (!w) return;
    if (this.now === this.spinAt) {
      if (++this.spins > 10_000) throw new Error(`${this.id}: poll() keeps waking itself at ${this.now}us`);
    } else {
      this.spinAt = this.now;
      this.spins = 0;
    }
    const records = this.pollOnce();
    if (this.fatalError) return this.finishPoll({ error: this.fatalError.error });
    if (records.length > 0 || this.now >= w.deadlineUs) return this.finishPoll({ records });
    const next = Math.min(w.deadlineUs, this.coordinator?.nextWakeUs() ?? Infinity);
    if (next < w.timerAt) {
      this.cancelTimer(w.timer);
      w.timerAt = next;
      w.timer = this.setTimer(Math.max(0, next - this.now), () => {
        w.timer = NO_TIMER;
        w.timerAt = Infinity;
        this.pollAttempt();
      });
    }
  }

  private finishPoll(r: PollResult): void {
    const w = this.pollWaiter!;
    this.pollWaiter = null;
    this.cancelTimer(w.timer);
    if ('records' in r && r.records.length > 0) this.emitPoll(r.records);
    w.cb(r);
  }

  /** One pass of ClassicKafkaConsumer.poll's loop body. */
  private pollOnce(): PolledRecord[] {
    const groupReady = this.coordinator ? this.coordinator.poll() : true;
    if (groupReady) this.updateFetchPositions();
    const records = this.buffer.collect(this.config['max.poll.records'], this.stateOf);
    // Pipelining: the next fetches go out before the records are handed over.
    this.fetcher.sendFetches();
    return records;
  }

  /** [ClassicKafkaConsumer.java `updateFetchPositions`] */
  private updateFetchPositions(): void {
    this.offsetFetcher.validatePositionsIfNeeded();
    if (this.coordinator) this.coordinator.refreshCommittedOffsetsIfNeeded();
    else {
      // No group: nothing is committed, start from auto.offset.reset.
      for (const s of this.subscriptions.assignedPartitions()) {
        if (!s.awaitingCommitted) continue;
        const target = resetTargetFor(this.config['auto.offset.reset']);
        if (target === null) return this.fatal('NoOffsetForPartitionException', `${s.key}: no position and auto.offset.reset=none`);
        this.subscriptions.requestReset(s, target, 'no committed offset');
      }
    }
    this.offsetFetcher.resetPositionsIfNeeded();
  }

  /** Its consumer-fetch-manager-metrics now (sim/kafka/metrics). */
  sampleMetrics(nowUs: number): Record<string, number> {
    return this.metrics.sample(nowUs, this.subscriptions.assignedPartitions());
  }

  private emitPoll(records: readonly PolledRecord[]): void {
    this.metrics.polled(records, polledKey);
    // Records come grouped by partition, one run each: every list is made at its final length. The numbers of
    // each partition's values, then of each partition's keys, are handed to the trace's readers beside the event
    // (as consumerHistory.ts describes for consumer.poll).
    let runs = 0;
    for (let i = 0; i < records.length; i = runEnd(records, i)) runs++;
    const parts = new Array<PolledPartition>(runs);
    const numbers = new Array<NumberedTexts | undefined>(2 * runs);
    for (let k = 0, start = 0; k < runs; k++) {
      const end = runEnd(records, start);
      const len = end - start;
      const offsets = new Array<number>(len);
      const keys = new Array<string | null>(len);
      const values = new Array<string | null>(len);
      const valueNumbers = new NumberedListBuilder(len);
      const keyNumbers = new NumberedListBuilder(len);
      for (let j = 0; j < len; j++) {
        const r = records[start + j]!;
        offsets[j] = r.offset;
        keys[j] = r.key;
        values[j] = r.value;
        valueNumbers.add(r.countedPrefix, r.valueId);
        keyNumbers.add(r.keyPrefix, r.keyN);
      }
      const first = records[start]!;
      parts[k] = { topic: first.topic, partition: first.partition, offsets, keys, values };
      numbers[k] = valueNumbers.finish();
      numbers[runs + k] = keyNumbers.finish();
      start = end;
    }
    this.trace.emitEvent(
      {
        t: UNSTAMPED,
        seq: UNSTAMPED,
        kind: 'consumer.poll',
        node: this.id,
        group: this.config['group.id'],
        memberId: this.coordinator?.memberId ?? '',
        generation: this.coordinator?.generationId ?? -1,
        count: records.length,
        records: parts,
      },
      numbers,
    );
  }

  // ---- what the parts call back ----

  /** A waiting poll() re-runs soon (once per simulated instant). */
  wake(): void {
    if (!this.pollWaiter || this.wakeScheduled) return;
    this.wakeScheduled = true;
    this.setTimer(0, this.onWake);
  }

  /** A partition's fetch state by key, for the fetch buffer (one function for the consumer's life, not one per poll). */
  private readonly stateOf = (key: string) => this.subscriptions.get(key);

  /** wake's timer (one function for the consumer's life: it fires about once per fetch response). */
  private readonly onWake = (): void => {
    this.wakeScheduled = false;
    this.pollAttempt();
  };

  partitionsRemoved(keys: readonly string[]): void {
    for (const k of keys) this.buffer.remove(k);
    this.app?.onPartitionsRemoved(keys);
  }

  clearBuffered(key: string): void {
    this.buffer.remove(key);
  }

  onOffsetOutOfRange(s: { key: string; topic: string; partition: number }, fetchOffset: number): void {
    const st = this.subscriptions.get(s.key);
    if (!st) return;
    this.buffer.remove(s.key);
    const target = resetTargetFor(this.config['auto.offset.reset']);
    if (target === null) return this.fatal('OffsetOutOfRangeException', `${s.key}: offset ${fetchOffset} is out of range and auto.offset.reset=none`);
    this.subscriptions.requestReset(st, target, 'offset out of range');
  }

  fatal(error: string, detail: string): void {
    if (this.fatalError) return;
    this.fatalError = { error, detail };
    this.trace.emit('consumer.error', this.id, { error, fatal: true, detail });
    this.wake();
  }

  get failed(): boolean {
    return this.fatalError !== null;
  }

  // ---- metadata ----

  requestMetadata(): void {
    this.metadataWanted = true;
    this.refreshMetadata();
  }

  private refreshMetadata(): void {
    if (this.metadataInFlight || !this.metadataWanted) return;
    this.metadataInFlight = true;
    this.metadataWanted = false;
    const request = { type: 'Metadata' as const, topics: null };
    this.net.send<typeof request, MetadataResponse>(brokerActorId(this.leastLoadedNode()), request, { timeoutMs: this.config['request.timeout.ms'] }, (o) => {
      this.metadataInFlight = false;
      if (o.ok) {
        this.metadataAttempts = 0;
        this.metadata.update(o.response, this.now);
        this.coordinator?.onMetadataUpdate();
        this.wake();
        // Asked again while this one was out.
        if (this.metadataWanted) this.setTimer(ms(this.config['retry.backoff.ms']), () => this.refreshMetadata());
      } else {
        this.metadataAttempts++;
        this.metadataWanted = true;
        this.setTimer(ms(this.backoff.backoff(this.metadataAttempts - 1)), () => this.refreshMetadata());
      }
    });
  }

  /** The known broker with the fewest requests in flight. */
  leastLoadedNode(): number {
    return leastLoadedNode(this.metadata.knownBrokers(), (a) => this.net.inFlight(a), this.random);
  }
}

/** The partition key of a polled record (the metrics' key). */
function polledKey(r: PolledRecord): string {
  return tpKey(r.topic, r.partition);
}

/** Where the run of `records[start]`'s partition ends (records come grouped by partition). */
function runEnd(records: readonly PolledRecord[], start: number): number {
  const first = records[start]!;
  let end = start + 1;
  while (end < records.length && records[end]!.partition === first.partition && records[end]!.topic === first.topic) end++;
  return end;
}
