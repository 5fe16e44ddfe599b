import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { ProcessContext } from '../../world/host';
import { Process } from '../../world/process';
import type { BrokerConfig } from '../config/configs';
import type { KafkaError } from '../errors';
import { ELIGIBLE_LEADER_REPLICAS_VERSION } from '../metadata/features';
import { bootstrapRecords } from '../metadata/bootstrap';
import { MetadataImage } from '../metadata/metadataImage';
import { metadataRecordBytes, type MetadataRecord } from '../metadata/records';
import { newUuid } from '../metadata/uuid';
import type {
  AllocateProducerIdsRequest,
  AlterPartitionReassignmentsRequest,
  AlterPartitionRequest,
  ElectLeadersRequest,
  IncrementalAlterConfigsRequest,
  BrokerHeartbeatRequest,
  BrokerRegistrationRequest,
  CreateTopicsRequest,
} from '../protocol';
import { isResponse } from '../protocol';
import { KafkaRaftClient, RAFT_SHUTDOWN_TIMEOUT_MS } from '../raft/kafkaRaftClient';
import type { RaftBatch } from '../raft/messages';
import { quorumConfig } from '../raft/quorumConfig';
import { processRaftIo } from '../raft/raftIo';
import { alterConfigs } from './rules/alterConfigs';
import { alterPartition } from './rules/alterPartition';
import { alterPartitionReassignments, listPartitionReassignments } from './rules/alterPartitionReassignments';
import { electLeaders } from './rules/electLeader';
import {
  activateHeartbeatStates,
  lowestActiveOffset,
  maybeFenceOneStaleBroker,
  maybeUpdateControlledShutdownOffset,
  newHeartbeatState,
  processBrokerHeartbeat,
  staleBrokerCheckIntervalMs,
  type BrokerHeartbeatState,
} from './rules/brokerHeartbeat';
import { registerBroker } from './rules/brokerRegistration';
import type { ControllerResult, PartitionElection } from './rules/controllerResult';
import { createTopic } from './rules/createTopic';
import { createPartitions, type CreatePartitionsRequest, type CreatePartitionsTopicResult } from './rules/createPartitions';
import { deleteTopics, type DeleteTopicsRequest } from './rules/deleteTopics';
import { maybeBalancePartitionLeaders } from './rules/preferredLeaderElection';
import { maybeElectUncleanLeaders } from './rules/uncleanLeaderElection';
import { IMMEDIATE_RESCHEDULE_MS } from './rules/controllerConfigs';
import { Meter } from '../metrics/meters';
import { defineKinds, list, nullable, num, str, type KindsOf } from '../../core/traceSchema';

/** The active controller's decisions, as committed to the metadata log. */
export const CONTROLLER_KINDS = defineKinds({
  /** This controller became the active controller (the Raft leader of the metadata log). */
  'controller.active': { epoch: num },
  'controller.inactive': { epoch: num },
  /** A partition leader election, committed: who, why, chosen from which set (null: no replica could lead). */
  'controller.election': {
    topic: str,
    partition: num,
    previousLeader: num,
    leader: num,
    source: nullable(str),
    reason: str,
    leaderEpoch: num,
    isr: list(num),
    elr: list(num),
  },
  /** A partition's committed state changed (ISR, ELR, leader). */
  'controller.partition': {
    topic: str,
    partition: num,
    leader: num,
    leaderEpoch: num,
    partitionEpoch: num,
    isr: list(num),
    elr: list(num),
    replicas: list(num),
  },
  /** DeleteTopics removed a topic (its RemoveTopicRecord was appended). */
  'controller.topic-deleted': { topic: str, topicId: str },
  /** A broker's registration changed: registered, fenced, unfenced, controlled shutdown. */
  'controller.broker': { broker: num, brokerEpoch: num, change: str, reason: str },
  /**
   * A partition's reassignment state changed (committed): begun or replaced (adding/removing set), or done
   * (both empty, `replicas` the new assignment).
   */
  'controller.reassignment': { topic: str, partition: num, replicas: list(num), addingReplicas: list(num), removingReplicas: list(num) },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof CONTROLLER_KINDS> {}
}

/** Producer ids are handed to brokers in blocks of this size [ProducerIdControlManager: PRODUCER_ID_BLOCK_SIZE]. */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

export interface ControllerOptions {
  readonly id: string;
  readonly voters: readonly string[];
  readonly config: BrokerConfig;
  readonly eligibleLeaderReplicas: boolean;
  /** Cluster-wide topic defaults from the static broker config (min.insync.replicas, ...), written at bootstrap. */
  readonly clusterConfigs: Readonly<Record<string, string>>;
  /** Group configs written at bootstrap (group id -> name -> value). */
  readonly groupConfigs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

interface PendingWrite {
  /** Responds once every record up to this offset is committed. */
  readonly offset: number;
  readonly done: () => void;
  readonly elections: readonly PartitionElection[];
}

type Reply = (msg: object) => void;

/**
 * A KRaft controller [metadata/.../controller/QuorumController.java]: a voter of the metadata quorum. The
 * active one (the Raft leader) turns requests and timers into metadata records, appends them, applies them
 * to its image at once, and answers when they are committed. Every controller replays committed records.
 */
export class Controller extends Process {
  private readonly raft: KafkaRaftClient<MetadataRecord>;
  /** What is committed (every controller). */
  private committed = new MetadataImage();
  /** What the active controller has written, committed or not (null when not active). */
  private active: MetadataImage | null = null;
  private activeEpoch = -1;
  private nextOffset = 0;
  private committedOffset = 0;
  private pending: PendingWrite[] = [];
  private heartbeats = new Map<number, BrokerHeartbeatState>();
  private timers: TimerId[] = [];
  private stopping = false;
  private readonly placementRandom;
  private readonly idRandom;
  readonly metricsRole = 'controller';
  /** Leaders committed from outside the previous ISR [ControllerMetricsChanges.handlePartitionChange]. */
  private readonly uncleanElections: Meter;

  constructor(
    ctx: ProcessContext,
    private readonly opts: ControllerOptions,
  ) {
    super(opts.id, ctx);
    const c = opts.config;
    this.uncleanElections = new Meter(this.now);
    this.placementRandom = this.random.fork('placement');
    this.idRandom = this.random.fork('ids');
    this.raft = new KafkaRaftClient<MetadataRecord>(
      processRaftIo(this),
      {
        quorum: quorumConfig(opts.voters, {
          'controller.quorum.election.timeout.ms': c['controller.quorum.election.timeout.ms'],
          'controller.quorum.fetch.timeout.ms': c['controller.quorum.fetch.timeout.ms'],
          'controller.quorum.election.backoff.max.ms': c['controller.quorum.election.backoff.max.ms'],
          'controller.quorum.request.timeout.ms': c['controller.quorum.request.timeout.ms'],
          'controller.quorum.retry.backoff.ms': c['controller.quorum.retry.backoff.ms'],
          'controller.quorum.append.linger.ms': c['controller.quorum.append.linger.ms'],
        }),
        recordBytes: metadataRecordBytes,
      },
      {
        onCommit: (batches, committedOffset) => this.onCommit(batches, committedOffset),
        onLeaderChange: () => {},
        onBecomeLeader: (epoch) => this.becomeActive(epoch),
        onResign: (epoch) => this.resign(epoch),
        onFatalError: (reason) => this.exit(`fatal: ${reason}`),
      },
    );
  }

  /**
   * The metrics now. Every controller computes the cluster-wide ones from the metadata it has applied, as
   * Kafka's ControllerMetadataMetricsPublisher does, so a standby reports OfflinePartitionsCount too; only the
   * active one reports ActiveControllerCount 1 [ControllerMetadataMetrics.java, QuorumControllerMetrics.java].
   */
  sampleMetrics(nowUs: number): Record<string, number> {
    const img = this.committed;
    let partitions = 0;
    for (const t of img.topics()) partitions += t.partitions.length;
    let fenced = 0;
    for (const b of img.brokers()) if (b.fenced) fenced++;
    return {
      ActiveControllerCount: this.isActive ? 1 : 0,
      OfflinePartitionsCount: img.partitionsWithNoLeader().length,
      PreferredReplicaImbalanceCount: img.imbalancedPartitions().length,
      GlobalPartitionCount: partitions,
      GlobalTopicCount: img.topics().length,
      FencedBrokerCount: fenced,
      ActiveBrokerCount: img.brokers().length - fenced,
      UncleanLeaderElectionsPerSec: this.uncleanElections.read(nowUs),
      // raft-metrics: this replica's metadata log [raft/internals/KafkaRaftMetrics.java]
      'log-end-offset': this.raft.endOffset,
      'high-watermark': this.raft.highWatermark ?? -1,
      'current-epoch': this.raft.epoch,
    };
  }

  /** The committed metadata (tests, the UI and the fault resolver read it; never other actors). */
  get image(): MetadataImage {
    return this.committed;
  }

  get isActive(): boolean {
    return this.active !== null;
  }

  get raftClient(): KafkaRaftClient<MetadataRecord> {
    return this.raft;
  }

  override onStart(): void {
    this.raft.start();
  }

  override onDisconnect(peer: string): void {
    this.raft.onDisconnect(peer);
  }

  /**
   * SIGTERM [ControllerServer.shutdown; KafkaRaftClient.shutdown]: an active controller resigns at once and its
   * EndQuorumEpoch lets the other voters elect a successor without waiting for their fetch timeout; the process
   * exits when a new leader is known (or after the raft's 5 s shutdown timeout).
   */
  override onStop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.raft.shutdown(RAFT_SHUTDOWN_TIMEOUT_MS, (timedOut) => this.exit(timedOut ? 'shutdown: no new quorum leader within the raft shutdown timeout' : 'clean shutdown'));
  }

  onMessage(from: string, msg: unknown): void {
    if (this.raft.handleMessage(from, msg)) return;
    const m = msg as { type: string; correlationId: number };
    if (isResponse(m.type)) return; // a late response nobody waits for any more
    const reply: Reply = (body) => this.send(from, { ...body, correlationId: m.correlationId }, 64);
    if (m.type === 'DescribeQuorum') {
      // Answered by the raft leader (kafka-metadata-quorum describe) [KafkaRaftClient.handleDescribeQuorumRequest].
      const quorum = this.raft.describeQuorum();
      reply(quorum ? { type: 'DescribeQuorumResponse', error: 'NONE', quorum } : { type: 'DescribeQuorumResponse', error: 'NOT_LEADER_OR_FOLLOWER', leaderHint: this.raft.leaderId });
      return;
    }
    if (!this.active) {
      reply({ type: `${m.type}Response`, error: 'NOT_CONTROLLER', leaderHint: this.raft.leaderId });
      return;
    }
    switch (m.type) {
      case 'BrokerRegistration':
        return this.handleRegistration(m as BrokerRegistrationRequest, reply);
      case 'BrokerHeartbeat':
        return this.handleHeartbeat(m as BrokerHeartbeatRequest, reply);
      case 'AlterPartition':
        return this.handleAlterPartition(m as AlterPartitionRequest, reply);
      case 'CreateTopics':
        return this.handleCreateTopics(m as CreateTopicsRequest, reply);
      case 'CreatePartitions':
        return this.handleCreatePartitions(m as CreatePartitionsRequest, reply);
      case 'DeleteTopics':
        return this.handleDeleteTopics(m as DeleteTopicsRequest, reply);
      case 'AllocateProducerIds':
        return this.handleAllocateProducerIds(m as AllocateProducerIdsRequest, reply);
      case 'AlterPartitionReassignments':
        return this.handleAlterPartitionReassignments(m as AlterPartitionReassignmentsRequest, reply);
      case 'ListPartitionReassignments':
        // Answered from what the active controller has written (Kafka reads at the last committed offset).
        return reply({ type: 'ListPartitionReassignmentsResponse', reassignments: listPartitionReassignments(this.committed) });
      case 'ElectLeaders':
        return this.handleElectLeaders(m as ElectLeadersRequest, reply);
      case 'IncrementalAlterConfigs':
        return this.handleIncrementalAlterConfigs(m as IncrementalAlterConfigsRequest, reply);
      default:
        reply({ type: `${m.type}Response`, error: 'INVALID_REQUEST' });
    }
  }

  // ---- committed records (every controller) ----

  private onCommit(batches: readonly RaftBatch<MetadataRecord>[], committedOffset: number): void {
    for (const b of batches) {
      for (let i = 0; i < b.records.length; i++) {
        const r = b.records[i]!;
        const prevIsr = r.type === 'PartitionChangeRecord' ? this.committed.partition(r.topicId, r.partitionId)?.isr : undefined;
        this.committed.replay(r, b.baseOffset + i);
        if (prevIsr && r.type === 'PartitionChangeRecord' && r.leader !== undefined && r.leader >= 0 && !prevIsr.includes(r.leader)) this.uncleanElections.mark();
        // The active controller reports each committed partition change once (ISR, ELR, leader).
        if (this.active && (r.type === 'PartitionRecord' || r.type === 'PartitionChangeRecord')) {
          this.tracePartition(r.topicId, r.partitionId);
          if (r.addingReplicas !== undefined || r.removingReplicas !== undefined) this.traceReassignment(r.topicId, r.partitionId);
        }
      }
    }
    this.committedOffset = committedOffset;
    if (this.active) this.completePending();
  }

  private completePending(): void {
    while (this.pending.length > 0 && this.pending[0]!.offset < this.committedOffset) {
      const p = this.pending.shift()!;
      this.traceElections(p.elections);
      p.done();
    }
  }

  // ---- becoming and ceasing to be the active controller ----

  private becomeActive(epoch: number): void {
    this.active = this.committed.clone();
    this.activeEpoch = epoch;
    this.nextOffset = this.raft.endOffset;
    this.pending = [];
    this.trace.emit('controller.active', this.id, { epoch });
    // Every live broker's session starts again now [ClusterControlManager.activate].
    this.heartbeats = new Map(activateHeartbeatStates(this.active, this.now).map((s) => [s.brokerId, s]));
    if (this.active.featureLevel(ELIGIBLE_LEADER_REPLICAS_VERSION) === 0 && this.active.brokers().length === 0 && this.active.topics().length === 0) {
      const records = bootstrapRecords({
        eligibleLeaderReplicas: this.opts.eligibleLeaderReplicas,
        minInsyncReplicas: this.opts.config['min.insync.replicas'],
        clusterConfigs: this.opts.clusterConfigs,
        ...(this.opts.groupConfigs && { groupConfigs: this.opts.groupConfigs }),
      });
      if (records.length > 0 && this.isFirstBoot()) this.write({ records, response: undefined, elections: [] }, () => {});
    }
    this.startTimers();
  }

  /** Nothing was ever committed beyond leader changes: this is a freshly formatted cluster. */
  private isFirstBoot(): boolean {
    return this.committed.brokers().length === 0 && this.committed.topics().length === 0 && this.committed.featureLevel(ELIGIBLE_LEADER_REPLICAS_VERSION) === 0 && !this.bootstrapped;
  }

  private get bootstrapped(): boolean {
    return this.committed.resourceConfigs('BROKER', '') !== undefined;
  }

  private resign(epoch: number): void {
    if (!this.active) return;
    this.active = null;
    this.pending = [];
    for (const t of this.timers) this.cancelTimer(t);
    this.timers = [];
    this.trace.emit('controller.inactive', this.id, { epoch });
  }

  private startTimers(): void {
    const c = this.opts.config;
    const every = (periodMs: number, fn: () => boolean | void) => {
      const tick = () => {
        if (!this.active) return;
        const again = fn();
        this.timers.push(this.setTimer(ms(again === true ? IMMEDIATE_RESCHEDULE_MS : periodMs), tick));
      };
      this.timers.push(this.setTimer(ms(periodMs), tick));
    };
    // The metadata log advances even when idle, so observers see a live leader [QuorumController maybeScheduleNextWriteNoOpRecord].
    if (c['metadata.max.idle.interval.ms'] > 0) {
      every(c['metadata.max.idle.interval.ms'], () => {
        this.write({ records: [{ type: 'NoOpRecord' }], response: undefined, elections: [] }, () => {});
      });
    }
    every(staleBrokerCheckIntervalMs(c['broker.session.timeout.ms']), () => this.fenceStaleBroker());
    // The preferred-leader and unclean-election tasks are periodic from activation, whatever the partitions look
    // like, and run again after 10 ms when a run hit its record cap [PeriodicTaskControlManager, KAFKA-17793 (4.0);
    // 3.x armed the balancer only when a write left a partition imbalanced].

    if (c['auto.leader.rebalance.enable']) {
      every(c['leader.imbalance.check.interval.seconds'] * 1000, () => {
        const r = maybeBalancePartitionLeaders(this.active!);
        if (r.records.length > 0) this.write(r, () => {});
        return r.response;
      });
    }
    every(c['unclean.leader.election.interval.ms'], () => {
      const r = maybeElectUncleanLeaders(this.active!);
      if (r.records.length > 0) this.write(r, () => {});
      return r.response;
    });
  }

  // ---- writing ----

  /**
   * Appends a rule's records, applies them to the active image at once, and calls `done` once they (and
   * everything before them) are committed. Returns the offset of the first record, or null when no longer
   * the leader.
   */
  private write<T>(result: ControllerResult<T>, done: () => void): number | null {
    const image = this.active!;
    const first = this.nextOffset;
    if (result.records.length > 0) {
      const last = this.raft.append(result.records, this.activeEpoch);
      if (last === null) return null;
      result.records.forEach((r, i) => image.replay(r, first + i));
      this.nextOffset = last + 1;
    }
    this.pending.push({ offset: this.nextOffset - 1, done, elections: result.elections });
    this.completePending();
    return first;
  }

  private tracePartition(topicId: string, partitionId: number): void {
    const p = this.committed.partition(topicId, partitionId);
    const t = this.committed.topicById(topicId);
    if (!p || !t) return;
    this.trace.emit('controller.partition', this.id, {
      topic: t.name,
      partition: partitionId,
      leader: p.leader,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      isr: [...p.isr],
      elr: [...p.elr],
      replicas: [...p.replicas],
    });
  }

  private traceReassignment(topicId: string, partitionId: number): void {
    const p = this.committed.partition(topicId, partitionId);
    const t = this.committed.topicById(topicId);
    if (!p || !t) return;
    this.trace.emit('controller.reassignment', this.id, {
      topic: t.name,
      partition: partitionId,
      replicas: [...p.replicas],
      addingReplicas: [...p.addingReplicas],
      removingReplicas: [...p.removingReplicas],
    });
  }

  private traceElections(elections: readonly PartitionElection[]): void {
    for (const e of elections) {
      const p = this.committed.partition(e.topicId, e.partitionId);
      this.trace.emit('controller.election', this.id, {
        topic: e.topicName,
        partition: e.partitionId,
        previousLeader: e.previousLeader,
        leader: e.newLeader,
        source: e.source,
        reason: e.reason,
        leaderEpoch: p?.leaderEpoch ?? -1,
        isr: p ? [...p.isr] : [],
        elr: p ? [...p.elr] : [],
      });
    }
  }

  // ---- requests ----

  private handleRegistration(req: BrokerRegistrationRequest, reply: Reply): void {
    const image = this.active!;
    const hb = this.heartbeats.get(req.brokerId);
    const sessionValid = hb !== undefined && !hb.fenced && hb.lastContact + ms(this.opts.config['broker.session.timeout.ms']) >= this.now;
    const r = registerBroker(image, req, this.nextOffset, sessionValid);
    if (r.response.error !== 'NONE') {
      reply({ type: 'BrokerRegistrationResponse', error: r.response.error, brokerEpoch: -1 });
      return;
    }
    const epoch = r.response.brokerEpoch;
    const unclean = req.previousBrokerEpoch < 0 || (image.broker(req.brokerId) !== undefined && image.broker(req.brokerId)!.epoch !== req.previousBrokerEpoch);
    this.write(r, () => {
      this.heartbeats.set(req.brokerId, newHeartbeatState(req.brokerId, epoch, this.now, true));
      this.trace.emit('controller.broker', this.id, { broker: req.brokerId, brokerEpoch: epoch, change: 'registered', reason: unclean ? 'unclean shutdown' : 'clean shutdown' });
      reply({ type: 'BrokerRegistrationResponse', error: 'NONE', brokerEpoch: epoch });
    });
    // The session starts now, fenced, so the stale check does not fence it before its first heartbeat.
    this.heartbeats.set(req.brokerId, newHeartbeatState(req.brokerId, epoch, this.now, true));
  }

  private handleHeartbeat(req: BrokerHeartbeatRequest, reply: Reply): void {
    const image = this.active!;
    const lowest = lowestActiveOffset(this.heartbeats.values());
    const r = processBrokerHeartbeat(image, this.heartbeats.get(req.brokerId), req, this.now, lowest);
    if (r.response.error !== 'NONE' || !r.state) {
      reply({ type: 'BrokerHeartbeatResponse', ...r.response });
      return;
    }
    let state = r.state;
    this.heartbeats.set(req.brokerId, state);
    const first = this.write(r, () => {
      if (r.transition) {
        this.trace.emit('controller.broker', this.id, { broker: req.brokerId, brokerEpoch: req.brokerEpoch, change: r.transition.to.toLowerCase(), reason: 'heartbeat' });
      }
      reply({ type: 'BrokerHeartbeatResponse', ...r.response });
    });
    if (r.response.inControlledShutdown && first !== null) {
      state = maybeUpdateControlledShutdownOffset(state, this.nextOffset - 1);
      this.heartbeats.set(req.brokerId, state);
    }
  }

  private fenceStaleBroker(): void {
    const image = this.active!;
    const r = maybeFenceOneStaleBroker(image, this.heartbeats.values(), this.now, this.opts.config['broker.session.timeout.ms']);
    if (!r.fenced) return;
    const fenced = r.fenced;
    this.heartbeats.set(fenced.brokerId, fenced);
    this.write(r, () => {
      this.trace.emit('controller.broker', this.id, { broker: fenced.brokerId, brokerEpoch: fenced.brokerEpoch, change: 'fenced', reason: `no heartbeat for broker.session.timeout.ms=${this.opts.config['broker.session.timeout.ms']}` });
    });
  }

  private handleAlterPartition(req: AlterPartitionRequest, reply: Reply): void {
    const r = alterPartition(this.active!, {
      brokerId: req.brokerId,
      brokerEpoch: req.brokerEpoch,
      topic: req.topic,
      partition: req.partition,
      leaderEpoch: req.leaderEpoch,
      partitionEpoch: req.partitionEpoch,
      newIsr: req.newIsr,
    });
    const resp = r.response;
    this.write(r, () =>
      reply({
        type: 'AlterPartitionResponse',
        error: resp.error,
        topic: req.topic,
        partition: req.partition,
        leaderId: resp.leaderId,
        leaderEpoch: resp.leaderEpoch,
        isr: resp.isr,
        partitionEpoch: resp.partitionEpoch,
      }),
    );
  }

  private handleCreateTopics(req: CreateTopicsRequest, reply: Reply): void {
    const results: { name: string; error: KafkaError; message: string }[] = [];
    let last: () => void = () => {};
    for (const t of req.topics) {
      const r = createTopic(
        this.active!,
        { name: t.name, numPartitions: t.numPartitions, replicationFactor: t.replicationFactor, configs: t.configs, ...(t.assignments && { assignments: t.assignments }) },
        this.placementRandom,
        newUuid(this.idRandom),
        { numPartitions: this.opts.config['num.partitions'], replicationFactor: this.opts.config['default.replication.factor'] },
      );
      results.push({ name: t.name, error: r.response.error, message: r.response.message });
      if (r.records.length > 0) this.write(r, () => {});
    }
    last = () => reply({ type: 'CreateTopicsResponse', topics: results });
    this.write({ records: [], response: undefined, elections: [] }, last);
  }

  /** CreatePartitions: each topic's new PartitionRecords, answered once committed [QuorumController.createPartitions]. */
  private handleCreatePartitions(req: CreatePartitionsRequest, reply: Reply): void {
    const results: CreatePartitionsTopicResult[] = [];
    for (const t of req.topics) {
      const r = createPartitions(this.active!, t, this.placementRandom);
      results.push(r.response);
      if (r.records.length > 0) this.write(r, () => {});
    }
    this.write({ records: [], response: undefined, elections: [] }, () => reply({ type: 'CreatePartitionsResponse', results }));
  }

  /** DeleteTopics: one RemoveTopicRecord per topic, answered once committed [QuorumController.deleteTopics]. */
  private handleDeleteTopics(req: DeleteTopicsRequest, reply: Reply): void {
    const r = deleteTopics(this.active!, req.topics);
    if (this.write(r, () => reply({ type: 'DeleteTopicsResponse', results: r.response })) === null) return;
    for (const t of r.response) if (t.error === 'NONE') this.trace.emit('controller.topic-deleted', this.id, { topic: t.name ?? '', topicId: t.topicId ?? '' });
  }

  /** AlterPartitionReassignments (kafka-reassign-partitions --execute / --cancel), answered once committed. */
  private handleAlterPartitionReassignments(req: AlterPartitionReassignmentsRequest, reply: Reply): void {
    const r = alterPartitionReassignments(this.active!, req.partitions);
    this.write(r, () => reply({ type: 'AlterPartitionReassignmentsResponse', partitions: r.response }));
  }

  /** ElectLeaders (kafka-leader-election), answered once committed. */
  private handleElectLeaders(req: ElectLeadersRequest, reply: Reply): void {
    const r = electLeaders(this.active!, req.electionType, req.partitions);
    this.write(r, () => reply({ type: 'ElectLeadersResponse', partitions: r.response }));
  }

  /** IncrementalAlterConfigs (kafka-configs --alter), all or nothing, answered once committed. */
  private handleIncrementalAlterConfigs(req: IncrementalAlterConfigsRequest, reply: Reply): void {
    const r = alterConfigs(this.active!, req.changes);
    this.write(r, () => reply({ type: 'IncrementalAlterConfigsResponse', ...r.response }));
  }

  private handleAllocateProducerIds(req: AllocateProducerIdsRequest, reply: Reply): void {
    const image = this.active!;
    const b = image.broker(req.brokerId);
    if (!b || b.epoch !== req.brokerEpoch) {
      reply({ type: 'AllocateProducerIdsResponse', error: 'STALE_BROKER_EPOCH', producerIdStart: -1, producerIdLen: 0 });
      return;
    }
    const start = image.nextProducerId();
    this.write(
      {
        records: [{ type: 'ProducerIdsRecord', brokerId: req.brokerId, brokerEpoch: req.brokerEpoch, nextProducerId: start + PRODUCER_ID_BLOCK_SIZE }],
        response: undefined,
        elections: [],
      },
      () => reply({ type: 'AllocateProducerIdsResponse', error: 'NONE', producerIdStart: start, producerIdLen: PRODUCER_ID_BLOCK_SIZE }),
    );
  }

  /** Kept for tests: the time until the next timer of the active controller, or Infinity. */
  get heartbeatStates(): ReadonlyMap<number, BrokerHeartbeatState> {
    return this.heartbeats;
  }

  /** Unused timer handle placeholder for clarity in subclasses. */
  protected static readonly NONE: TimerId = NO_TIMER;
  protected static epochOf(us: Micros): number {
    return us;
  }
}
