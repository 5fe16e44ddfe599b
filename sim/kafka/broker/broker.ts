import type { TimerId } from '../../core/scheduler';
import { ms } from '../../core/time';
import type { ProcessContext } from '../../world/host';
import { Process } from '../../world/process';
import { brokerActorId } from '../client/metadataCache';
import type { BrokerConfig } from '../config/configs';
import { LogManager } from '../log/logManager';
import { DEFAULT_LOG_CONFIG, DEFAULT_LOG_MANAGER_CONFIG, type CleanupPolicy, type LogConfig } from '../log/logConfig';
import { CLEAN_SHUTDOWN_FILE } from '../log/logFileNames';
import { actorTaskScheduler } from '../log/taskScheduler';
import { buildEndTxnMarker } from '../log/endTxnMarker';
import type { KafkaError } from '../errors';
import { MetadataImage } from '../metadata/metadataImage';
import { metadataRecordBytes, type MetadataRecord } from '../metadata/records';
import { ExponentialBackoff } from '../client/backoff';
import { NetworkClient, type Outcome } from '../net/networkClient';
import type {
  AllocateProducerIdsResponse,
  AlterPartitionResponse,
  BrokerHeartbeatResponse,
  BrokerRegistrationResponse,
  FetchRequest,
  FetchResponse,
  InitProducerIdRequest,
  ListOffsetsRequest,
  MetadataRequest,
  MetadataResponse,
  OffsetsForLeaderEpochRequest,
  PartitionMetadata,
  ProduceRequest,
  WriteTxnMarkersRequest,
  WriteTxnMarkersResponse,
} from '../protocol';
import { isResponse } from '../protocol';
import { KafkaRaftClient } from '../raft/kafkaRaftClient';
import type { RaftBatch } from '../raft/messages';
import { RAFT_SHUTDOWN_TIMEOUT_MS } from '../raft/kafkaRaftClient';
import { quorumConfig } from '../raft/quorumConfig';
import { processRaftIo } from '../raft/raftIo';
import type { Partition } from './partition';
import { ReplicaManager, type ReplicaManagerHost } from './replicaManager';
import type { Endpoint, WireBroker } from '../wire/context';
import { WireData, isWireData } from '../wire/wireData';
import { ReplicationThrottles } from './replicationThrottles';
import { listOffsetsAnswer } from './rules/listOffsets';
import { BrokerMetrics } from './brokerMetrics';
import { defineKinds, num, oneOf, str, type KindsOf } from '../../core/traceSchema';

/** A broker's lifecycle [BrokerLifecycleManager, BrokerState]. */
export const BROKER_KINDS = defineKinds({
  /** The controller registered this broker incarnation. */
  'broker.registered': { brokerEpoch: num, previousBrokerEpoch: num },
  /** Kafka's BrokerState as the broker's lifecycle moves [metadata/.../metadata/BrokerState.java]. */
  'broker.state': { state: oneOf('starting', 'recovery', 'running', 'fenced', 'pending-controlled-shutdown', 'shutting-down') },
  /** A SIGTERM'd broker began the last part of its shutdown: why it stopped waiting for the controller. */
  'broker.shutdown': { reason: str, brokerEpoch: num },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof BROKER_KINDS> {}
}

/**
 * How long a SIGTERM'd broker waits for the controller to let it go before it shuts down anyway: the JVM
 * shutdown hook calls shutdown() without a timeout, which is five minutes [core/.../server/KafkaBroker.scala
 * `shutdown()`: Duration.ofMinutes(5); BrokerServer.scala `shutdown(timeout)`].
 */
export const BROKER_SHUTDOWN_TIMEOUT_MS = 5 * 60_000;
/** After the first "not yet" to a controlled-shutdown heartbeat the next one comes this soon [BrokerLifecycleManager: 50 ms]. */
const CONTROLLED_SHUTDOWN_FIRST_RESEND_MS = 50;

export interface BrokerOptions {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly voters: readonly string[];
  readonly config: BrokerConfig;
  /** The static config as Kafka config names -> strings (topic-default synonyms such as min.insync.replicas). */
  readonly staticConfig: Readonly<Record<string, string>>;
  readonly legacyHighWatermarkTruncation: boolean;
  /** Keep request times for the metrics' TotalTimeMs percentiles (default true; false when nothing samples them). */
  readonly keepRequestTimes?: boolean;
  /** Extra request handling (the group coordinator); returns true when it handled the message. */
  readonly extensions?: (broker: Broker) => BrokerExtension;
  /** How real clients reach the brokers and what they are told (the wire front end). */
  readonly listeners?: BrokerListeners;
}

/** What a broker advertises to real clients, and what serves them (sim/kafka/wire). */
export interface BrokerListeners {
  /** The KRaft cluster id. */
  readonly clusterId: string;
  /** Wall-clock milliseconds on the wire at simulated time 0. */
  readonly epochMs: number;
  /** Every broker's advertised listener (KRaft brokers learn them from each other's registrations). */
  endpoint(brokerId: number): Endpoint | undefined;
  /**
   * The Kafka protocol server of one broker (sim/kafka/wire's `WireFrontEnd`). Injected rather than imported, so
   * that a build which never meets a real client (the UI's worker) does not carry the codec.
   */
  frontEnd(broker: WireBroker): WireEndpoint;
}

/** What the broker asks of its Kafka protocol server. */
export interface WireEndpoint {
  /** Bytes from a client connection. */
  onData(peer: string, data: Uint8Array): void;
  onDisconnect(peer: string): void;
  /** Takes a message the broker sends when it answers a request made for a real client (true: taken). */
  claim(to: string, msg: unknown): boolean;
}

/** A component that serves more request types on the broker (the group coordinator). */
export interface BrokerExtension {
  handle(from: string, msg: { type: string; correlationId: number }): boolean;
  onMetadataApplied?(image: MetadataImage): void;
  /** A transaction marker was written (and replicated) to a partition this broker leads. */
  onTxnMarkerWritten?(topic: string, partition: number, producerId: number, commit: boolean): void;
  /** Verifies a Produce's transactional batches before they are appended (KIP-890 part 1); `proceed` once. */
  verifyProduce?(from: string, req: ProduceRequest, proceed: (refused: ReadonlyMap<number, KafkaError>) => void): void;
}

const LOG_DIR = '/kafka-logs';

/** Markers are appended with the broker's request.timeout.ms (30000) as their replication timeout. [src: KafkaApis `handleWriteTxnMarkersRequest`] */
const WRITE_TXN_MARKERS_TIMEOUT_MS = 30_000;

/**
 * A Kafka broker process [core/src/main/scala/kafka/server/BrokerServer.scala]: it recovers its logs from
 * disk, follows the metadata log as a Raft observer, registers with the active controller and heartbeats,
 * and serves produce, fetch and metadata requests through its replica manager. It acts only on metadata it
 * has applied.
 */
export class Broker extends Process {
  readonly brokerId: number;
  readonly config: BrokerConfig;
  readonly image: MetadataImage;
  readonly logManager: LogManager;
  readonly replicas: ReplicaManager;
  /** Replication throttles (kafka-reassign-partitions --throttle). */
  readonly throttles: ReplicationThrottles;
  /** Its JMX metrics, sampled into the trace (sim/kafka/metrics). */
  readonly metrics: BrokerMetrics;
  readonly metricsRole = 'broker';
  private readonly raft: KafkaRaftClient<MetadataRecord>;
  private readonly net: NetworkClient;
  private brokerEpochValue = -1;
  private metadataOffset = -1;
  private registered = false;
  private registering = false;
  private fenced = true;
  private readonly previousBrokerEpoch: number;
  private readonly incarnationId: string;
  private producerIdNext = -1;
  private producerIdEnd = -1;
  private producerIdWaiters: (() => void)[] = [];
  private allocatingProducerIds = false;
  private extension: BrokerExtension | null = null;
  /** Real clients' connections (the Kafka protocol over the simulated network), when listeners are configured. */
  private readonly wire: WireEndpoint | null;
  /** Listeners open: set once the controller has unfenced this incarnation, and kept from then on. */
  private serving = false;
  /** The logs have their topics' configs from the metadata (false until the first metadata is applied). */
  private logConfigsSynced = false;
  /** SIGTERM received: the shutdown is under way (no second one). */
  private shutdownBegun = false;
  /** PENDING_CONTROLLED_SHUTDOWN: heartbeats ask the controller to move this broker's leaderships away. */
  private pendingControlledShutdown = false;
  private gotControlledShutdownResponse = false;
  private heartbeatInFlight = false;
  private shutdownHeartbeatAfterResponse = false;
  private heartbeatFailures = 0;
  /** The controlled-shutdown heartbeat chain [BrokerLifecycleManager `scheduleNextCommunication`]. */
  private shutdownHeartbeatTimer: TimerId | null = null;
  private readonly heartbeatBackoff: ExponentialBackoff;

  constructor(
    ctx: ProcessContext,
    readonly opts: BrokerOptions,
  ) {
    super(brokerActorId(opts.brokerId), ctx);
    this.brokerId = opts.brokerId;
    this.config = opts.config;
    this.image = new MetadataImage({ staticConfig: opts.staticConfig, nodeId: opts.brokerId });
    this.net = new NetworkClient(this);
    // Failed heartbeats back off 100 ms doubling up to the session timeout [BrokerLifecycleManager `resendExponentialBackoff`].
    this.heartbeatBackoff = new ExponentialBackoff(100, 2, opts.config['broker.session.timeout.ms'], 0.02, this.random.fork('lifecycle'));
    this.incarnationId = `${this.id}-${ctx.incarnation}-${this.random.int(0, 1 << 30).toString(16)}`;
    // KIP-966: the clean-shutdown file names the broker epoch; without it the last shutdown was unclean.
    const marker = this.disk.read<{ brokerEpoch?: number } | string>(`${LOG_DIR}/${CLEAN_SHUTDOWN_FILE}`);
    const m = marker[marker.length - 1]?.data;
    this.previousBrokerEpoch = typeof m === 'object' && m !== null && typeof m.brokerEpoch === 'number' ? m.brokerEpoch : -1;
    const c = opts.config;
    this.logManager = new LogManager(
      {
        disk: this.disk,
        trace: this.trace,
        node: this.id,
        tasks: actorTaskScheduler(this),
        random: this.random.fork('log'),
        // Retention moves a follower's start offset outside its fetcher, whose next request must carry it.
        onLogStartOffsetIncremented: (tp) => this.replicas?.logStartOffsetMoved(tp.topic, tp.partition),
      },
      {
        ...DEFAULT_LOG_MANAGER_CONFIG,
        'log.dirs': LOG_DIR,
        'log.retention.check.interval.ms': c['log.retention.check.interval.ms'],
        'log.initial.task.delay.ms': c['log.initial.task.delay.ms'],
        'log.cleaner.enable': c['log.cleaner.enable'],
        'log.cleaner.backoff.ms': c['log.cleaner.backoff.ms'],
        'log.cleaner.io.max.bytes.per.second': c['log.cleaner.io.max.bytes.per.second'],
        'replica.high.watermark.checkpoint.interval.ms': c['replica.high.watermark.checkpoint.interval.ms'],
        'producer.id.expiration.ms': c['producer.id.expiration.ms'],
      },
      (topic) => this.logConfigOf(topic),
    );
    this.throttles = new ReplicationThrottles(opts.brokerId, opts.config);
    this.metrics = new BrokerMetrics(this.now, opts.keepRequestTimes ?? true);
    this.replicas = new ReplicaManager(this.replicaHost());
    this.wire = opts.listeners ? opts.listeners.frontEnd(this.wireHost(opts.listeners)) : null;
    this.raft = new KafkaRaftClient<MetadataRecord>(
      processRaftIo(this),
      {
        quorum: quorumConfig(opts.voters, {
          'controller.quorum.election.timeout.ms': c['controller.quorum.election.timeout.ms'],
          'controller.quorum.fetch.timeout.ms': c['controller.quorum.fetch.timeout.ms'],
          'controller.quorum.request.timeout.ms': c['controller.quorum.request.timeout.ms'],
          'controller.quorum.retry.backoff.ms': c['controller.quorum.retry.backoff.ms'],
        }),
        recordBytes: metadataRecordBytes,
      },
      {
        onCommit: (batches, committedOffset) => this.onMetadata(batches, committedOffset),
        onLeaderChange: () => {
          if (!this.registered) this.register();
        },
        onFatalError: (reason) => this.exit(`fatal: ${reason}`),
      },
    );
  }

  /**
   * The metrics now: the meters' rates since the last sample, and ReplicaManager's gauges from the partitions it
   * holds [ReplicaManager.scala: LeaderCount, PartitionCount, UnderReplicatedPartitions (`isUnderReplicated`:
   * ISR below the replication factor, adding replicas not counted), UnderMinIsrPartitionCount, AtMinIsrPartitionCount,
   * ReassigningPartitions].
   */
  sampleMetrics(nowUs: number): Record<string, number> {
    let leaders = 0;
    let under = 0;
    let underMin = 0;
    let atMin = 0;
    let reassigning = 0;
    for (const p of this.replicas.partitions.values()) {
      if (!p.isLeader) continue;
      leaders++;
      const reg = this.image.partitionByName(p.topic, p.partition);
      const adding = reg?.addingReplicas.length ?? 0;
      if (adding > 0 || (reg?.removingReplicas.length ?? 0) > 0) reassigning++;
      if (p.replicas.length - adding - p.isr.length > 0) under++;
      const minIsr = this.image.effectiveMinIsr(p.topic);
      if (p.isr.length < minIsr) underMin++;
      else if (p.isr.length === minIsr) atMin++;
    }
    return this.metrics.sample(nowUs, {
      UnderReplicatedPartitions: under,
      UnderMinIsrPartitionCount: underMin,
      AtMinIsrPartitionCount: atMin,
      LeaderCount: leaders,
      PartitionCount: this.replicas.partitions.size,
      ReassigningPartitions: reassigning,
    });
  }

  get brokerEpoch(): number {
    return this.brokerEpochValue;
  }

  get isFenced(): boolean {
    return this.fenced;
  }

  override onStart(): void {
    this.trace.emit('broker.state', this.id, { state: 'recovery' });
    this.logManager.startup();
    this.extension = this.opts.extensions?.(this) ?? null;
    this.raft.start();
    this.replicas.startIsrExpiration();
    this.register();
    const hb = ms(this.config['broker.heartbeat.interval.ms']);
    const beat = () => {
      if (this.shutdownBegun) return; // the shutdown drives its own heartbeats, then none
      this.heartbeat();
      this.setTimer(hb, beat);
    };
    this.setTimer(hb, beat);
  }

  override onDisconnect(peer: string): void {
    this.metrics.peerGone(peer);
    this.raft.onDisconnect(peer);
    this.net.onDisconnect(peer);
    this.wire?.onDisconnect(peer);
  }

  onMessage(from: string, msg: unknown): void {
    if (this.raft.handleMessage(from, msg)) return;
    const m = msg as { type: string; correlationId: number };
    if (m.type.endsWith('Response') && this.net.handleResponse(from, m)) return;
    if (!this.serving) {
      // A starting broker opens its listeners only once the controller has unfenced this incarnation; until
      // then a client's connection is refused. So a restarted leader never serves, in its old epoch, a log
      // that lost its unflushed tail [BrokerServer.startup: enable request processing after unfencing].
      this.disconnect(from);
      return;
    }
    if (isWireData(m)) {
      // Without listeners nobody speaks the Kafka protocol here: the connection is refused.
      if (this.wire) this.wire.onData(from, m.data);
      else this.disconnect(from);
      return;
    }
    this.handleRequest(from, m);
  }

  /** Serves one request from a simulated client (or, through the wire front end, from a real one). */
  private handleRequest(from: string, m: { type: string; correlationId: number }): void {
    if (!isResponse(m.type)) {
      this.metrics.requestReceived(from, m.correlationId, m.type, m.type === 'Fetch' && (m as FetchRequest).replicaId >= 0, this.now);
      // acks=0 gets no answer: the request is done once handled [RequestChannel: a NoOpResponse completes it].
      if (m.type === 'Produce' && (m as ProduceRequest).acks === 0) {
        this.replicas.handleProduce(from, m as ProduceRequest);
        this.metrics.responseSent(from, m.correlationId, this.now);
        return;
      }
    }
    switch (m.type) {
      case 'ApiVersions':
        // The first request on a new client connection; its answer means the connection is ready.
        this.send(from, { type: 'ApiVersionsResponse', correlationId: m.correlationId, error: 'NONE' }, 64);
        return;
      case 'Produce':
        if (this.extension?.verifyProduce) return this.extension.verifyProduce(from, m as ProduceRequest, (refused) => this.replicas.handleProduce(from, m as ProduceRequest, refused));
        return this.replicas.handleProduce(from, m as ProduceRequest);
      case 'Fetch':
        return this.replicas.handleFetch(from, m as FetchRequest);
      case 'Metadata':
        return this.handleMetadata(from, m as MetadataRequest);
      case 'ListOffsets':
        return this.handleListOffsets(from, m as ListOffsetsRequest);
      case 'OffsetsForLeaderEpoch':
        return this.handleOffsetsForLeaderEpoch(from, m as OffsetsForLeaderEpochRequest);
      case 'InitProducerId':
        // With a transactional id the transaction coordinator answers (when the scenario runs one).
        if ((m as InitProducerIdRequest).transactionalId !== null && this.extension?.handle(from, m)) return;
        return this.handleInitProducerId(from, m as InitProducerIdRequest);
      case 'WriteTxnMarkers':
        return this.handleWriteTxnMarkers(from, m as WriteTxnMarkersRequest);
    }
    if (this.extension?.handle(from, m)) return;
    if (isResponse(m.type)) return; // a late response nobody waits for any more
    this.send(from, { type: `${m.type}Response`, correlationId: m.correlationId, error: 'INVALID_REQUEST' }, 32);
  }

  /** Every message leaves through here: the answer to a request the wire front end made for a real client goes back to it. */
  override send(to: string, msg: unknown, bytes = 64): void {
    const m = msg as { type?: string; correlationId?: number };
    if (m.correlationId !== undefined && m.type !== undefined && m.type.endsWith('Response')) this.metrics.responseSent(to, m.correlationId, this.now);
    if (this.wire !== null && this.wire.claim(to, msg)) return;
    super.send(to, msg, bytes);
  }

  // ---- metadata ----

  /** Committed metadata records, in order: apply them, then bring local replicas in line [BrokerMetadataPublisher]. */
  private onMetadata(batches: readonly RaftBatch<MetadataRecord>[], committedOffset: number): void {
    const touched = new Set<string>();
    // Topics whose log configs may have changed; null = every topic (cluster or broker defaults changed).
    let configChanged: Set<string> | null = this.logConfigsSynced ? new Set() : null;
    const deleted: string[] = [];
    for (const b of batches) {
      for (let i = 0; i < b.records.length; i++) {
        const r = b.records[i]!;
        if (r.type === 'RemoveTopicRecord') {
          const t = this.image.topicById(r.topicId);
          if (t) deleted.push(t.name);
        }
        this.image.replay(r, b.baseOffset + i);
        if (r.type === 'TopicRecord' && configChanged) configChanged.add(r.name);
        if (r.type === 'ConfigRecord' && configChanged && r.resourceType !== 'GROUP') {
          if (r.resourceType === 'TOPIC') configChanged.add(r.resourceName);
          else configChanged = null;
        }
        if (r.type === 'PartitionRecord' || r.type === 'PartitionChangeRecord') touched.add(`${r.topicId}\u0000${r.partitionId}`);
        if (r.type === 'ClearElrRecord' || (r.type === 'ConfigRecord' && r.resourceType !== 'GROUP')) for (const t of this.image.topics()) for (let p = 0; p < t.partitions.length; p++) touched.add(`${t.topicId}\u0000${p}`);
      }
    }
    // Logs opened before the metadata was known (recovery at startup) took Kafka's defaults: give them their
    // topic's configs now, and after every config change [BrokerMetadataPublisher; DynamicConfigPublisher ->
    // LogManager.updateTopicConfig].
    for (const t of this.image.topics()) {
      if (configChanged === null || configChanged.has(t.name)) this.logManager.updateTopicConfig(t.name, this.logConfigOf(t.name));
    }
    if (configChanged === null || configChanged.size > 0) this.throttles.refresh(this.image);
    this.logConfigsSynced = true;
    // A deleted topic's replicas stop and their logs go [ReplicaManager.stopPartitions with deletion].
    for (const name of deleted) this.replicas.deleteTopic(name);
    this.metadataOffset = committedOffset - 1;
    const mine = this.image.broker(this.brokerId);
    if (mine && mine.epoch === this.brokerEpochValue) this.fenced = mine.fenced;
    if (this.registered && !this.fenced && !this.serving) {
      this.serving = true;
      this.trace.emit('broker.state', this.id, { state: 'running' });
    }
    // Partition changes only take effect once this broker is registered with its current epoch.
    for (const k of [...touched].sort()) {
      const [topicId, p] = k.split('\u0000') as [string, string];
      const reg = this.image.partition(topicId, Number(p));
      const topic = this.image.topicById(topicId);
      if (!reg || !topic) continue;
      this.replicas.applyPartitionState(topic.name, Number(p), {
        leader: reg.leader,
        leaderEpoch: reg.leaderEpoch,
        partitionEpoch: reg.partitionEpoch,
        replicas: reg.replicas,
        isr: reg.isr,
        elr: reg.elr,
      });
    }
    this.extension?.onMetadataApplied?.(this.image);
  }

  /** The topic's log configs as the applied metadata says (topic > cluster > static > Kafka default). */
  private logConfigOf(topic: string): LogConfig {
    const get = (n: string) => this.image.effectiveTopicConfig(topic, n);
    const num = (n: keyof LogConfig & string, d: number) => {
      const v = get(n);
      return v === undefined ? d : Number(v);
    };
    const policy = (get('cleanup.policy') ?? DEFAULT_LOG_CONFIG['cleanup.policy']).split(',').sort().join(',');
    return {
      ...DEFAULT_LOG_CONFIG,
      'segment.bytes': num('segment.bytes', DEFAULT_LOG_CONFIG['segment.bytes']),
      'segment.ms': num('segment.ms', DEFAULT_LOG_CONFIG['segment.ms']),
      'segment.index.bytes': num('segment.index.bytes', DEFAULT_LOG_CONFIG['segment.index.bytes']),
      'index.interval.bytes': num('index.interval.bytes', DEFAULT_LOG_CONFIG['index.interval.bytes']),
      'retention.ms': num('retention.ms', DEFAULT_LOG_CONFIG['retention.ms']),
      'retention.bytes': num('retention.bytes', DEFAULT_LOG_CONFIG['retention.bytes']),
      'cleanup.policy': (policy === 'compact,delete' ? 'compact,delete' : policy === 'compact' ? 'compact' : 'delete') as CleanupPolicy,
      'delete.retention.ms': num('delete.retention.ms', DEFAULT_LOG_CONFIG['delete.retention.ms']),
      'min.compaction.lag.ms': num('min.compaction.lag.ms', DEFAULT_LOG_CONFIG['min.compaction.lag.ms']),
      'max.compaction.lag.ms': num('max.compaction.lag.ms', DEFAULT_LOG_CONFIG['max.compaction.lag.ms']),
      'min.cleanable.dirty.ratio': num('min.cleanable.dirty.ratio', DEFAULT_LOG_CONFIG['min.cleanable.dirty.ratio']),
      'flush.messages': num('flush.messages', DEFAULT_LOG_CONFIG['flush.messages']),
      'flush.ms': num('flush.ms', DEFAULT_LOG_CONFIG['flush.ms']),
      'message.timestamp.type': get('message.timestamp.type') === 'LogAppendTime' ? 'LogAppendTime' : 'CreateTime',
      'max.message.bytes': num('max.message.bytes', DEFAULT_LOG_CONFIG['max.message.bytes']),
    };
  }

  // ---- lifecycle with the controller ----

  private controllerNode(): string | null {
    return this.raft.leaderId;
  }

  /** BrokerRegistration with the active controller [BrokerLifecycleManager.sendBrokerRegistration]. */
  private register(): void {
    if (this.registered || this.registering) return;
    const controller = this.controllerNode();
    if (!controller) return; // retried when the observer learns the leader, and on every heartbeat tick
    this.registering = true;
    this.net.send(
      controller,
      {
        type: 'BrokerRegistration',
        brokerId: this.brokerId,
        incarnationId: this.incarnationId,
        rack: this.opts.rack,
        previousBrokerEpoch: this.previousBrokerEpoch,
      },
      { timeoutMs: this.config['controller.quorum.request.timeout.ms'] },
      (o: Outcome<BrokerRegistrationResponse>) => {
        this.registering = false;
        if (o.ok && o.response.error === 'NONE') {
          this.registered = true;
          this.brokerEpochValue = o.response.brokerEpoch;
          this.trace.emit('broker.registered', this.id, { brokerEpoch: this.brokerEpochValue, previousBrokerEpoch: this.previousBrokerEpoch });
          this.heartbeat();
        }
      },
    );
  }

  // ---- shutdown (SIGTERM) ----

  /**
   * SIGTERM [BrokerServer.shutdown]: with controlled.shutdown.enable and a RUNNING broker, enter
   * PENDING_CONTROLLED_SHUTDOWN — stop fetching for replicas that leave the ISR, and heartbeat at once with
   * wantShutDown so the controller moves every leadership away — and wait until the controller answers
   * shouldShutDown (or BROKER_SHUTDOWN_TIMEOUT_MS pass); otherwise go straight to the shutdown.
   * [core/.../server/BrokerLifecycleManager.scala `BeginControlledShutdownEvent`]
   */
  override onStop(): void {
    if (this.shutdownBegun) return;
    this.shutdownBegun = true;
    if (!this.config['controlled.shutdown.enable']) {
      this.completeShutdown('controlled.shutdown.enable=false');
      return;
    }
    if (!this.serving) {
      this.completeShutdown('skipped controlled shutdown: the broker was not running yet');
      return;
    }
    this.pendingControlledShutdown = true;
    this.replicas.beginControlledShutdown();
    this.trace.emit('broker.state', this.id, { state: 'pending-controlled-shutdown' });
    this.setTimer(ms(BROKER_SHUTDOWN_TIMEOUT_MS), () => {
      if (this.pendingControlledShutdown) this.completeShutdown(`timed out after ${BROKER_SHUTDOWN_TIMEOUT_MS} ms waiting for the controller to approve controlled shutdown`);
    });
    this.scheduleShutdownHeartbeat(0);
  }

  private scheduleShutdownHeartbeat(delayUs: number): void {
    if (this.shutdownHeartbeatTimer !== null) this.cancelTimer(this.shutdownHeartbeatTimer);
    this.shutdownHeartbeatTimer = this.setTimer(delayUs, () => {
      this.shutdownHeartbeatTimer = null;
      this.controlledShutdownHeartbeat();
    });
  }

  /** A heartbeat with wantShutDown; shouldShutDown in the answer ends the wait [BrokerLifecycleManager `BrokerHeartbeatResponseEvent`]. */
  private controlledShutdownHeartbeat(): void {
    if (!this.pendingControlledShutdown) return;
    const controller = this.controllerNode();
    if (this.heartbeatInFlight) {
      // One heartbeat at a time: this one goes out as soon as the answer to the one in flight is in.
      this.shutdownHeartbeatAfterResponse = true;
      return;
    }
    if (!this.registered || !controller) {
      this.scheduleShutdownHeartbeat(ms(this.heartbeatBackoff.backoff(this.heartbeatFailures++)));
      return;
    }
    this.sendHeartbeat(controller, true, (o) => {
      if (!this.pendingControlledShutdown) return;
      if (!o.ok || o.response.error !== 'NONE') {
        this.scheduleShutdownHeartbeat(ms(this.heartbeatBackoff.backoff(this.heartbeatFailures++)));
        return;
      }
      this.heartbeatFailures = 0;
      if (o.response.shouldShutDown) {
        this.completeShutdown('the controller asked the broker to shut down (SHUTDOWN_NOW)');
        return;
      }
      const next = this.gotControlledShutdownResponse ? this.config['broker.heartbeat.interval.ms'] : CONTROLLED_SHUTDOWN_FIRST_RESEND_MS;
      this.gotControlledShutdownResponse = true;
      this.scheduleShutdownHeartbeat(ms(next));
    });
  }

  /**
   * The rest of BrokerServer.shutdown, once the controller let go (or the wait ended): no more heartbeats or
   * requests, the fetchers stop, every log is flushed and checkpointed and the clean-shutdown file names this
   * broker epoch; the process exits when that file is durable. [BrokerServer.scala `shutdown`; LogManager `shutdown`]
   */
  private completeShutdown(reason: string): void {
    this.pendingControlledShutdown = false;
    if (this.shutdownHeartbeatTimer !== null) this.cancelTimer(this.shutdownHeartbeatTimer);
    this.shutdownHeartbeatTimer = null;
    this.trace.emit('broker.state', this.id, { state: 'shutting-down' });
    this.trace.emit('broker.shutdown', this.id, { reason, brokerEpoch: this.brokerEpochValue });
    this.serving = false;
    this.replicas.shutdown();
    this.raft.shutdown(RAFT_SHUTDOWN_TIMEOUT_MS, () => {});
    this.logManager.shutdown(this.brokerEpochValue, () => this.exit('clean shutdown'));
  }

  /** One BrokerHeartbeat to the active controller; `wantShutDown` during a controlled shutdown [BrokerLifecycleManager]. */
  private sendHeartbeat(controller: string, wantShutDown: boolean, done: (o: Outcome<BrokerHeartbeatResponse>) => void): void {
    this.heartbeatInFlight = true;
    this.net.send(
      controller,
      { type: 'BrokerHeartbeat', brokerId: this.brokerId, brokerEpoch: this.brokerEpochValue, currentMetadataOffset: this.metadataOffset, wantFence: false, wantShutDown },
      { timeoutMs: this.config['controller.quorum.request.timeout.ms'] },
      (o: Outcome<BrokerHeartbeatResponse>) => {
        this.heartbeatInFlight = false;
        done(o);
      },
    );
  }

  private heartbeat(): void {
    if (!this.registered) {
      this.register();
      return;
    }
    const controller = this.controllerNode();
    if (!controller) return;
    this.sendHeartbeat(controller, false, (o) => {
      if (this.shutdownHeartbeatAfterResponse) {
        this.shutdownHeartbeatAfterResponse = false;
        this.scheduleShutdownHeartbeat(0);
      }
      // A broker never fences itself: a failed heartbeat is just retried on the next tick.
      if (o.ok && o.response.error === 'STALE_BROKER_EPOCH') {
        this.registered = false;
        this.register();
      }
    });
  }

  // ---- requests ----

  private handleMetadata(from: string, req: MetadataRequest): void {
    const image = this.image;
    const brokers = image
      .brokers()
      .filter((b) => !b.fenced)
      .map((b) => ({ id: b.id, rack: b.rack }));
    const topics: MetadataResponse['topics'][number][] = image
      .topics()
      .filter((t) => !t.name.startsWith('__') && (req.topics === null || req.topics.includes(t.name)))
      .map((t) => ({
        name: t.name,
        topicId: t.topicId,
        error: 'NONE' as const,
        partitions: t.partitions.map(
          (p, partition): PartitionMetadata => ({
            partition,
            error: p.leader >= 0 ? 'NONE' : 'LEADER_NOT_AVAILABLE',
            leader: p.leader,
            leaderEpoch: p.leaderEpoch,
            replicas: p.replicas,
            isr: p.isr,
            elr: p.elr,
          }),
        ),
      }));
    for (const name of req.topics ?? []) {
      if (!topics.some((t) => t.name === name)) topics.push({ name, error: 'UNKNOWN_TOPIC_OR_PARTITION', partitions: [] });
    }
    const controllerId = Number(/\d+$/.exec(this.controllerNode() ?? '')?.[0] ?? -1);
    this.send(from, { type: 'MetadataResponse', correlationId: req.correlationId, brokers, controllerId, topics }, 64 + 48 * topics.length);
  }

  private handleListOffsets(from: string, req: ListOffsetsRequest): void {
    const partitions = req.partitions.map((q) => {
      const p = this.replicas.partition(q.topic, q.partition);
      if (!p) return { topic: q.topic, partition: q.partition, error: 'NOT_LEADER_OR_FOLLOWER' as const, offset: -1, leaderEpoch: -1 };
      const err = p.checkLeaderEpoch(q.currentLeaderEpoch);
      if (err !== 'NONE') return { topic: q.topic, partition: q.partition, error: err, offset: -1, leaderEpoch: -1 };
      const answer = listOffsetsAnswer({
        timestamp: q.timestamp,
        logStartOffset: p.log.logStartOffset,
        highWatermark: p.log.highWatermark,
        // Latest (and a timestamp lookup) ends at the LSO for read_committed. [src: Partition.scala `fetchOffsetForTimestamp`]
        lastFetchableOffset: req.isolationLevel === 'read_committed' ? p.log.lastStableOffset : p.log.highWatermark,
        leaderEpoch: p.leaderEpoch,
        leaderEpochStartOffset: p.leaderEpochStartOffset,
        findByTimestamp: (t) => p.log.fetchOffsetByTimestamp(t),
      });
      return { topic: q.topic, partition: q.partition, ...answer };
    });
    this.send(from, { type: 'ListOffsetsResponse', correlationId: req.correlationId, partitions }, 32 * partitions.length);
  }

  private handleOffsetsForLeaderEpoch(from: string, req: OffsetsForLeaderEpochRequest): void {
    const partitions = req.partitions.map((q) => {
      const p = this.replicas.partition(q.topic, q.partition);
      if (!p) return { topic: q.topic, partition: q.partition, error: 'NOT_LEADER_OR_FOLLOWER' as const, leaderEpoch: -1, endOffset: -1 };
      const err = p.checkLeaderEpoch(q.currentLeaderEpoch);
      if (err !== 'NONE') return { topic: q.topic, partition: q.partition, error: err, leaderEpoch: -1, endOffset: -1 };
      const e = p.log.endOffsetForEpoch(q.leaderEpoch);
      return { topic: q.topic, partition: q.partition, error: 'NONE' as const, leaderEpoch: e.epoch, endOffset: e.endOffset };
    });
    this.send(from, { type: 'OffsetsForLeaderEpochResponse', correlationId: req.correlationId, partitions }, 32 * partitions.length);
  }

  /**
   * WriteTxnMarkers from a transaction coordinator: append each COMMIT/ABORT marker as leader (origin
   * COORDINATOR, acks=all, request.timeout.ms) and answer per partition once all are replicated or failed.
   * [src: core/.../server/KafkaApis.scala `handleWriteTxnMarkersRequest`]
   */
  private handleWriteTxnMarkers(from: string, req: WriteTxnMarkersRequest): void {
    this.writeTxnMarkers(req, (markers) => this.send(from, { type: 'WriteTxnMarkersResponse', correlationId: req.correlationId, markers }, 16 + 16 * markers.length));
  }

  /** The marker appends of a WriteTxnMarkers request; also what this broker's own coordinator uses for partitions it leads. */
  writeTxnMarkers(req: Omit<WriteTxnMarkersRequest, 'type' | 'correlationId'>, respond: (markers: WriteTxnMarkersResponse['markers']) => void): void {
    const out = req.markers.map((m) => ({ producerId: m.producerId, partitions: m.partitions.map((tp) => ({ topic: tp.topic, partition: tp.partition, error: 'NONE' as KafkaError })) }));
    let pending = 0;
    for (const m of req.markers) pending += m.partitions.length;
    const answer = () => respond(out);
    if (pending === 0) return answer();
    req.markers.forEach((m, i) => {
      m.partitions.forEach((tp, j) => {
        const done = (error: KafkaError) => {
          out[i]!.partitions[j]!.error = error;
          // The group coordinator completes the transaction's offsets on __consumer_offsets. [KafkaApis `handleWriteTxnMarkersRequest` -> GroupCoordinator.completeTransaction]
          if (error === 'NONE') this.extension?.onTxnMarkerWritten?.(tp.topic, tp.partition, m.producerId, m.transactionResult === 'COMMIT');
          if (--pending === 0) answer();
        };
        if (this.image.partitionByName(tp.topic, tp.partition) === undefined) return done('UNKNOWN_TOPIC_OR_PARTITION');
        const marker = buildEndTxnMarker(m.transactionResult, m.producerId, m.producerEpoch, m.coordinatorEpoch, Math.floor(this.now / 1000));
        this.replicas.appendAsLeaderAndWait(tp.topic, tp.partition, marker, WRITE_TXN_MARKERS_TIMEOUT_MS, done, 'COORDINATOR');
      });
    });
  }

  /**
   * A producer id from this broker's block for the transaction coordinator, or undefined while a new block is
   * being fetched from the controller (Kafka's RPCProducerIdManager then answers COORDINATOR_LOAD_IN_PROGRESS).
   */
  nextProducerId(): number | undefined {
    if (this.producerIdNext < 0 || this.producerIdNext >= this.producerIdEnd) {
      this.allocateProducerIds();
      return undefined;
    }
    return this.producerIdNext++;
  }

  /** Sends a request to the active controller (the share-group DLQ's CreateTopics); NOT_CONTROLLER-free: no known controller fails at once. */
  sendToController<Req extends { type: string }, Resp>(request: Req, timeoutMs: number, done: (o: Outcome<Resp>) => void): void {
    const controller = this.controllerNode();
    if (!controller) return done({ ok: false, error: 'NOT_CONTROLLER' });
    this.net.send<Req, Resp>(controller, request, { timeoutMs }, done);
  }

  /** Sends an inter-broker request (the transaction coordinator's WriteTxnMarkers). */
  sendToBroker<Req extends { type: string }, Resp>(brokerId: number, request: Req, timeoutMs: number, done: (o: Outcome<Resp>) => void): void {
    this.net.send<Req, Resp>(brokerActorId(brokerId), request, { timeoutMs }, done);
  }

  /** InitProducerId for an idempotent producer: an id from this broker's block [ProducerIdManager]. */
  private handleInitProducerId(from: string, req: InitProducerIdRequest): void {
    const answer = () => {
      if (this.producerIdNext < 0 || this.producerIdNext >= this.producerIdEnd) {
        this.producerIdWaiters.push(answer);
        this.allocateProducerIds();
        return;
      }
      const producerId = this.producerIdNext++;
      this.send(from, { type: 'InitProducerIdResponse', correlationId: req.correlationId, error: 'NONE', producerId, producerEpoch: 0 }, 32);
    };
    if (!this.registered) {
      this.send(from, { type: 'InitProducerIdResponse', correlationId: req.correlationId, error: 'COORDINATOR_NOT_AVAILABLE', producerId: -1, producerEpoch: -1 }, 32);
      return;
    }
    answer();
  }

  private allocateProducerIds(): void {
    const controller = this.controllerNode();
    if (this.allocatingProducerIds || !controller) {
      if (!controller) this.setTimer(ms(100), () => this.allocateProducerIds());
      return;
    }
    this.allocatingProducerIds = true;
    this.net.send(
      controller,
      { type: 'AllocateProducerIds', brokerId: this.brokerId, brokerEpoch: this.brokerEpochValue },
      { timeoutMs: this.config['controller.quorum.request.timeout.ms'] },
      (o: Outcome<AllocateProducerIdsResponse>) => {
        this.allocatingProducerIds = false;
        if (o.ok && o.response.error === 'NONE') {
          this.producerIdNext = o.response.producerIdStart;
          this.producerIdEnd = o.response.producerIdStart + o.response.producerIdLen;
          const waiters = this.producerIdWaiters;
          this.producerIdWaiters = [];
          for (const w of waiters) w();
        } else {
          this.setTimer(ms(this.config['controller.quorum.retry.backoff.ms'] + 100), () => this.allocateProducerIds());
        }
      },
    );
  }

  // ---- what the wire front end needs ----

  private wireHost(listeners: BrokerListeners): WireBroker {
    return {
      brokerId: this.brokerId,
      node: this.id,
      clusterId: listeners.clusterId,
      config: this.config,
      staticConfig: this.opts.staticConfig,
      image: this.image,
      trace: this.trace,
      random: this.random.fork('wire'),
      // Read each time: a real-time server learns the wall-clock offset once the cluster has booted.
      get epochMs() {
        return listeners.epochMs;
      },
      nowUs: () => this.now,
      endpoint: (id) => listeners.endpoint(id),
      dispatch: (peer, request) => this.handleRequest(peer, request),
      toController: (request, timeoutMs, done) => {
        const controller = this.controllerNode();
        if (!controller) return done(null);
        // A copy: `send` stamps its correlation id on the body, and forwardToController sends this one again.
        this.net.send(controller, { ...request }, { timeoutMs }, (o: Outcome<unknown>) => done(o.ok ? o.response : null));
      },
      sendData: (peer, data) => super.send(peer, new WireData(data), data.length),
      close: (peer) => this.disconnect(peer),
      setTimer: (d, fn) => {
        this.setTimer(d, fn);
      },
    };
  }

  // ---- what partitions and fetchers need ----

  private replicaHost(): ReplicaManagerHost {
    const self = this;
    return {
      brokerId: this.opts.brokerId,
      nodeId: brokerActorId(this.opts.brokerId),
      trace: this.trace,
      config: this.opts.config,
      legacyHighWatermarkTruncation: this.opts.legacyHighWatermarkTruncation,
      get logManager() {
        return self.logManager;
      },
      get brokerEpoch() {
        return self.brokerEpochValue;
      },
      nowMs: () => Math.floor(this.now / 1000),
      nowUs: () => this.now,
      random: this.random.fork('fetch-sessions'),
      effectiveMinIsr: (topic) => this.image.effectiveMinIsr(topic),
      isReplicaIsrEligible: (id, epoch) => {
        const b = this.image.broker(id);
        return b !== undefined && !b.fenced && !b.inControlledShutdown && (epoch < 0 || b.epoch === epoch);
      },
      sendAlterPartition: (p, newIsr) => this.sendAlterPartition(p, newIsr),
      onHighWatermarkIncreased: (p) => this.replicas.onHighWatermarkIncreased(p),
      sendFetch: (leader, req, bytes, timeoutMs, done) =>
        this.net.send(brokerActorId(leader), req, { timeoutMs, bytes }, done),
      setTimer: (d, fn) => {
        this.setTimer(d, fn);
      },
      setTimerId: (d, fn): TimerId => this.setTimer(d, fn),
      cancelTimer: (id) => this.cancelTimer(id),
      reply: (to, msg, bytes) => this.send(to, msg, bytes),
      closeConnection: (to) => this.disconnect(to),
      emitTruncate: (p, from, to, reason) =>
        this.trace.emit('replica.truncate', this.id, { topic: p.topic, partition: p.partition, broker: this.brokerId, from, to, reason, leader: p.leader, leaderEpoch: p.leaderEpoch }),
      emitFollowerHighWatermark: (p, hw) =>
        this.trace.detail &&
        this.trace.emit('replica.hw', this.id, { topic: p.topic, partition: p.partition, broker: this.brokerId, hw, leo: p.log.logEndOffset, role: 'follower' }),
      shouldLeaderThrottle: (p, replicaId) => this.throttles.shouldLeaderThrottle(p, replicaId, Math.floor(this.now / 1000)),
      recordLeaderThrottled: (p, bytes) => this.throttles.recordLeader(p, bytes, Math.floor(this.now / 1000)),
      shouldFollowerThrottle: (p) => this.throttles.shouldFollowerThrottle(p, Math.floor(this.now / 1000)),
      followerThrottleConfigured: () => this.throttles.followerThrottleConfigured,
      recordFollowerThrottled: (p, bytes) => {
        this.metrics.replicationBytesIn.mark(bytes);
        this.throttles.recordFollower(p, bytes, Math.floor(this.now / 1000));
      },
      metrics: this.metrics,
      metadataLeader: (topic, partition) => {
        const p = this.image.partitionByName(topic, partition);
        return p ? { leaderId: p.leader, leaderEpoch: p.leaderEpoch } : { leaderId: -1, leaderEpoch: -1 };
      },
      isAliveBroker: (id) => this.image.broker(id)?.fenced === false,
      emitFollowerAppend: (p, base, last, epoch) =>
        this.trace.detail &&
        this.trace.emit('replica.append', this.id, { topic: p.topic, partition: p.partition, broker: this.brokerId, base, last, epoch, role: 'follower' }),
    };
  }

  /** AlterPartition to the active controller, retried after network errors [AlterPartitionManager]. */
  private sendAlterPartition(p: Partition, newIsr: readonly number[]): void {
    const controller = this.controllerNode();
    const retry = () => {
      const again = p.pendingProposal;
      if (again && p.isLeader) this.sendAlterPartition(p, again);
    };
    if (!controller) {
      this.setTimer(ms(100), retry);
      return;
    }
    this.net.send(
      controller,
      {
        type: 'AlterPartition',
        brokerId: this.brokerId,
        brokerEpoch: this.brokerEpochValue,
        topic: p.topic,
        partition: p.partition,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        newIsr: newIsr.map((id) => ({ brokerId: id, brokerEpoch: this.image.broker(id)?.epoch ?? -1 })),
      },
      { timeoutMs: this.config['controller.quorum.request.timeout.ms'] },
      (o: Outcome<AlterPartitionResponse>) => {
        if (!o.ok) {
          this.setTimer(ms(this.config['controller.quorum.retry.backoff.ms'] + 50), retry);
          return;
        }
        const r = o.response;
        const outcome = p.onAlterPartitionResponse(
          r.error,
          r.error === 'NONE' ? { leaderEpoch: r.leaderEpoch, partitionEpoch: r.partitionEpoch, isr: r.isr } : null,
        );
        if (outcome === 'retry') this.setTimer(ms(this.config['controller.quorum.retry.backoff.ms'] + 50), retry);
      },
    );
  }
}
