/**
 * Kafka's share consumer (KafkaShareConsumer) as a process, with the application loop around it: it joins its
 * share group with ShareGroupHeartbeat, fetches from the leaders of its assigned partitions with ShareFetch
 * (acquiring records, up to max.poll.records), hands the records to the application, and sends the
 * application's acknowledgements piggy-backed on the next ShareFetch or in a ShareAcknowledge (commitSync /
 * commitAsync). On close it acknowledges what is pending and closes its share sessions, which releases what it
 * still holds. [src: clients/.../consumer/internals/ShareConsumerImpl.java, ShareConsumeRequestManager.java,
 * ShareHeartbeatRequestManager.java, ShareMembershipManager.java, ShareFetchBuffer.java, Acknowledgements.java]
 */
import { ms, type Micros } from '../../../core/time';
import type { ProcessContext } from '../../../world/host';
import { Process } from '../../../world/process';
import type { ShareConsumerConfig } from '../../config/configs';
import type { MetadataResponse } from '../../protocol';
import { NetworkClient } from '../../net/networkClient';
import { brokerActorId, ClientMetadata, leastLoadedNode } from '../metadataCache';
import { tpKey } from '../../topicPartition';
import { CoordinatorDiscovery } from '../consumer/coordinatorDiscovery';
import { drawProcessingMs } from '../consumer/processingModel';
import type { AcknowledgeType } from '../../share/acknowledgeType';
import type { AcknowledgementBatch } from '../../share/sharePartition';
import type {
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
  ShareFetchRequest,
  ShareFetchResponse,
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
  TopicPartitions,
} from '../../share/shareProtocol';
import { acknowledgementBatches, failureFor, type ShareProcessingModel } from './shareProcessing';

export interface ShareConsumerOptions {
  readonly id: string;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly config: ShareConsumerConfig;
  readonly bootstrap: readonly number[];
  /** Scenario times already on the simulated clock (ms). */
  readonly processing: ShareProcessingModel;
}


/** What the consumer says when the cluster does not serve share groups (in our words). */
const SHARE_GROUPS_UNSUPPORTED = 'the cluster does not support share groups (the share.version feature is 0)';

/** One record handed to the application, with the delivery count the broker gave it. */
export interface ShareRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly deliveryCount: number;
  readonly key: string | null;
  readonly value: string | null;
}

type Via = 'fetch' | 'commitSync' | 'commitAsync' | 'close' | 'unassigned' | 'renew';

export class ShareConsumer extends Process {
  readonly config: ShareConsumerConfig;
  readonly net: NetworkClient;
  private readonly metadata: ClientMetadata;
  private readonly discovery: CoordinatorDiscovery;
  private readonly memberId: string;
  private memberEpoch = 0;
  private heartbeatIntervalMs = 5000;
  private heartbeatInFlight = false;
  private assignment: readonly TopicPartitions[] = [];
  private metadataInFlight = false;
  /** Records fetched, not yet returned by poll. */
  private buffer: ShareRecord[] = [];
  /** Acknowledgements not yet sent, per partition key, in offset order. */
  private pending = new Map<string, { topic: string; partition: number; acks: { offset: number; type: AcknowledgeType }[] }>();
  /** Nodes with a ShareFetch in flight, and the share session epoch of each node. */
  private readonly fetching = new Set<number>();
  private readonly sessionEpochs = new Map<number, number>();
  private pollWaiter: { readonly deadlineUs: Micros; readonly cb: (r: readonly ShareRecord[]) => void } | null = null;
  private closing = false;

  constructor(
    ctx: ProcessContext,
    readonly opts: ShareConsumerOptions,
  ) {
    super(opts.id, ctx);
    this.config = opts.config;
    this.net = new NetworkClient(this);
    this.metadata = new ClientMetadata(opts.bootstrap);
    // KIP-1082: the member makes its own id (a UUID in Kafka; a seeded one here).
    this.memberId = `${opts.id}-${this.random.fork('member-id').int(0, 0x7fffffff).toString(16).padStart(8, '0')}`;
    this.discovery = new CoordinatorDiscovery(
      {
        get now() {
          return ctx.scheduler.now;
        },
        net: this.net,
        config: this.config,
        setTimer: (d, fn) => this.setTimer(d, fn),
        leastLoadedNode: () => this.leastLoadedNode(),
        requestMetadata: () => this.refreshMetadata(),
        wake: () => this.heartbeatSoon(),
      },
      opts.groupId,
    );
  }

  override onStart(): void {
    this.refreshMetadata();
    const startIn = Math.max(0, ms(this.opts.processing.startMs) - this.now);
    this.setTimer(startIn, () => {
      this.heartbeat();
      this.loop();
    });
    if (this.opts.processing.stopMs !== undefined) this.setTimer(Math.max(0, ms(this.opts.processing.stopMs) - this.now), () => this.close());
  }

  onMessage(from: string, msg: unknown): void {
    this.net.handleResponse(from, msg as { correlationId?: number });
  }

  override onDisconnect(peer: string): void {
    this.net.onDisconnect(peer);
  }

  // ---- the application: poll, process, acknowledge, commit ----

  private loop(): void {
    if (this.closing) return;
    this.poll(this.opts.processing.pollTimeoutMs, (records) => {
      if (this.closing) return;
      if (records.length === 0) return this.loop();
      let totalMs = 0;
      const explicit = this.config['share.acknowledgement.mode'] === 'explicit';
      const outcomes: AcknowledgeType[] = records.map((r) => {
        totalMs += drawProcessingMs(this.opts.processing.recordTime, this.random);
        const f = explicit ? failureFor(this.opts.processing.failures, r) : undefined;
        if (!f) return 'ACCEPT';
        this.trace.emit('share.process.fail', this.id, { group: this.opts.groupId, memberId: this.memberId, topic: r.topic, partition: r.partition, offset: r.offset, deliveryCount: r.deliveryCount, type: f.ack, rule: f.name });
        return f.ack;
      });
      // KIP-1222: while a long batch runs, the application renews its records' locks (RENEW keeps them acquired).
      let done = false;
      const every = this.opts.processing.renewIntervalMs;
      if (explicit && every !== undefined && every < totalMs) {
        const renew = (): void => {
          if (done || this.closing) return;
          for (const r of records) this.acknowledge(r, 'RENEW');
          this.commit('renew', () => {});
          this.setTimer(ms(every), renew);
        };
        this.setTimer(ms(every), renew);
      }
      this.setTimer(ms(totalMs), () => {
        done = true;
        if (this.closing) return;
        // Explicit mode: acknowledge(record, type) each. Implicit mode: the next poll (or a commit) accepts every
        // record the last poll returned. [ShareConsumerImpl.java `poll`, `acknowledgeBatchIfImplicitAcknowledgement`]
        records.forEach((r, i) => this.acknowledge(r, outcomes[i]!));
        switch (this.opts.processing.commit) {
          case 'sync':
            return this.commit('commitSync', () => this.loop());
          case 'async':
            this.commit('commitAsync', () => {});
            return this.loop();
          default:
            return this.loop();
        }
      });
    });
  }

  /** KafkaShareConsumer.acknowledge(record, type). */
  private acknowledge(r: ShareRecord, type: AcknowledgeType): void {
    const k = tpKey(r.topic, r.partition);
    let p = this.pending.get(k);
    if (!p) this.pending.set(k, (p = { topic: r.topic, partition: r.partition, acks: [] }));
    p.acks.push({ offset: r.offset, type });
  }

  /** poll(timeout): `cb` once, with records or an empty list at the timeout. */
  private poll(timeoutMs: number, cb: (r: readonly ShareRecord[]) => void): void {
    this.pollWaiter = { deadlineUs: this.now + ms(timeoutMs), cb };
    this.setTimer(ms(timeoutMs), () => this.pollAttempt());
    this.pollAttempt();
  }

  private pollAttempt(): void {
    const w = this.pollWaiter;
    if (!w || this.closing) return;
    if (this.buffer.length > 0 || this.now >= w.deadlineUs) {
      const records = this.buffer.splice(0, this.config['max.poll.records']);
      this.pollWaiter = null;
      if (records.length > 0) this.emitPoll(records);
      return w.cb(records);
    }
    this.sendFetches();
  }

  private emitPoll(records: readonly ShareRecord[]): void {
    const parts: { topic: string; partition: number; offsets: number[]; deliveryCounts: number[]; keys: (string | null)[] }[] = [];
    for (const r of records) {
      let cur = parts[parts.length - 1];
      if (!cur || cur.topic !== r.topic || cur.partition !== r.partition) parts.push((cur = { topic: r.topic, partition: r.partition, offsets: [], deliveryCounts: [], keys: [] }));
      cur.offsets.push(r.offset);
      cur.deliveryCounts.push(r.deliveryCount);
      cur.keys.push(r.key);
    }
    this.trace.emit('share.poll', this.id, { group: this.opts.groupId, memberId: this.memberId, count: records.length, records: parts });
  }

  // ---- ShareFetch ----

  private assignedByLeader(): Map<number, { topic: string; partition: number }[]> {
    const out = new Map<number, { topic: string; partition: number }[]>();
    for (const tp of this.assignment) {
      for (const partition of tp.partitions) {
        const leader = this.metadata.leaderOf(tp.topic, partition);
        if (leader < 0) {
          this.refreshMetadata();
          continue;
        }
        const list = out.get(leader) ?? [];
        list.push({ topic: tp.topic, partition });
        out.set(leader, list);
      }
    }
    return out;
  }

  /** Takes the pending acknowledgements of the given partitions (or all), as batches. */
  private takeAcks(keys: ReadonlySet<string> | null, via: Via): Map<string, { topic: string; partition: number; batches: AcknowledgementBatch[] }> {
    const out = new Map<string, { topic: string; partition: number; batches: AcknowledgementBatch[] }>();
    for (const [k, p] of this.pending) {
      if (keys && !keys.has(k)) continue;
      this.pending.delete(k);
      const batches = acknowledgementBatches(p.acks);
      out.set(k, { topic: p.topic, partition: p.partition, batches });
      for (const b of batches) {
        const offsets: number[] = [];
        for (let o = b.firstOffset; o <= b.lastOffset; o++) offsets.push(o);
        this.trace.emit('share.ack', this.id, { group: this.opts.groupId, memberId: this.memberId, topic: p.topic, partition: p.partition, type: b.type, offsets, via });
      }
    }
    return out;
  }

  private nextSessionEpoch(node: number): number {
    const e = this.sessionEpochs.get(node) ?? 0;
    this.sessionEpochs.set(node, e === 2_147_483_647 ? 1 : e + 1);
    return e;
  }

  private sendFetches(): void {
    if (this.memberEpoch <= 0) return;
    // Acknowledgements of partitions no longer assigned cannot ride on a fetch: they go in a ShareAcknowledge.
    const assigned = new Set(this.assignment.flatMap((tp) => tp.partitions.map((p) => tpKey(tp.topic, p))));
    if ([...this.pending.keys()].some((k) => !assigned.has(k))) this.commit('unassigned', () => {}, false, (k) => !assigned.has(k));
    for (const [node, parts] of this.assignedByLeader()) {
      if (this.fetching.has(node)) continue;
      const keys = new Set(parts.map((p) => tpKey(p.topic, p.partition)));
      const acks = this.takeAcks(keys, 'fetch');
      const req = {
        type: 'ShareFetch' as const,
        groupId: this.opts.groupId,
        memberId: this.memberId,
        shareSessionEpoch: this.nextSessionEpoch(node),
        maxWaitMs: this.config['fetch.max.wait.ms'],
        minBytes: this.config['fetch.min.bytes'],
        maxRecords: this.config['max.poll.records'],
        partitions: parts.map((p) => ({ topic: p.topic, partition: p.partition, acknowledgementBatches: acks.get(tpKey(p.topic, p.partition))?.batches ?? [] })),
      } satisfies Omit<ShareFetchRequest, 'correlationId'>;
      this.fetching.add(node);
      this.net.send<typeof req, ShareFetchResponse>(brokerActorId(node), req, { timeoutMs: this.config['request.timeout.ms'] + req.maxWaitMs }, (o) => {
        this.fetching.delete(node);
        if (!o.ok) {
          this.refreshMetadata();
        } else {
          for (const p of o.response.partitions) {
            if (p.error !== 'NONE') {
              this.refreshMetadata();
              continue;
            }
            // Acquired for this member, even if the partition was taken away meanwhile (see setAssignment).
            this.buffer.push(...recordsOf(p));
          }
        }
        if (!this.closing) this.setTimer(o.ok ? 0 : ms(this.config['retry.backoff.ms']), () => this.pollAttempt());
      });
    }
  }

  // ---- ShareAcknowledge (commitSync / commitAsync / close) ----

  /** Sends every pending acknowledgement in a ShareAcknowledge to each leader; `done` once all answered. */
  private commit(via: Via, done: () => void, closeSessions = false, only: (key: string) => boolean = () => true): void {
    const acks = this.takeAcks(new Set([...this.pending.keys()].filter(only)), via);
    const byNode = new Map<number, { topic: string; partition: number; acknowledgementBatches: AcknowledgementBatch[] }[]>();
    for (const a of acks.values()) {
      const leader = this.metadata.leaderOf(a.topic, a.partition);
      if (leader < 0) continue;
      const list = byNode.get(leader) ?? [];
      list.push({ topic: a.topic, partition: a.partition, acknowledgementBatches: a.batches });
      byNode.set(leader, list);
    }
    if (closeSessions) for (const node of this.sessionEpochs.keys()) if (!byNode.has(node)) byNode.set(node, []);
    let waiting = byNode.size;
    if (waiting === 0) return done();
    for (const [node, partitions] of byNode) {
      const req = {
        type: 'ShareAcknowledge' as const,
        groupId: this.opts.groupId,
        memberId: this.memberId,
        shareSessionEpoch: closeSessions ? -1 : this.nextSessionEpoch(node),
        partitions,
      } satisfies Omit<ShareAcknowledgeRequest, 'correlationId'>;
      this.net.send<typeof req, ShareAcknowledgeResponse>(brokerActorId(node), req, { timeoutMs: this.config['request.timeout.ms'] }, () => {
        if (--waiting === 0) done();
      });
    }
  }

  /** close(): acknowledge what is pending (implicit mode: accept the last poll's records), close the share sessions, leave the group, exit. */
  private close(): void {
    if (this.closing) return;
    this.closing = true;
    this.commit('close', () => {
      this.leaveGroup(() => this.exit('closed'));
    }, true);
  }

  // ---- ShareGroupHeartbeat ----

  private heartbeatSoon(): void {
    this.setTimer(0, () => this.heartbeat());
  }

  private heartbeat(): void {
    if (this.heartbeatInFlight || this.closing) return;
    if (!this.discovery.ensureReady()) return;
    this.heartbeatInFlight = true;
    const req = {
      type: 'ShareGroupHeartbeat' as const,
      groupId: this.opts.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      rackId: null,
      subscribedTopicNames: this.memberEpoch === 0 ? this.opts.topics : null,
    } satisfies Omit<ShareGroupHeartbeatRequest, 'correlationId'>;
    this.net.send<typeof req, ShareGroupHeartbeatResponse>(this.discovery.actor(), req, { timeoutMs: this.config['request.timeout.ms'] }, (o) => {
      this.heartbeatInFlight = false;
      if (this.closing) return;
      let nextMs = this.heartbeatIntervalMs;
      if (!o.ok) {
        this.discovery.markUnknown(o.error);
        nextMs = this.config['retry.backoff.ms'];
      } else {
        const r = o.response;
        if (r.error === 'NONE') {
          this.memberEpoch = r.memberEpoch;
          this.heartbeatIntervalMs = r.heartbeatIntervalMs;
          nextMs = r.heartbeatIntervalMs;
          if (r.assignment !== null) this.setAssignment(r.assignment);
        } else if (r.error === 'UNSUPPORTED_VERSION') {
          // The cluster has share groups off (share.version 0): a fatal error, poll() throws and the application
          // ends. [src: clients/.../consumer/internals/ShareHeartbeatRequestManager.java `onErrorResponse`]
          this.closing = true;
          this.exit(`UnsupportedVersionException: ${SHARE_GROUPS_UNSUPPORTED}`);
          return;
        } else if (r.error === 'UNKNOWN_MEMBER_ID' || r.error === 'FENCED_MEMBER_EPOCH') {
          // Fenced: drop the assignment and join again at epoch 0, at once. [ShareMembershipManager.java `transitionToFenced`]
          this.memberEpoch = 0;
          this.setAssignment([]);
          nextMs = 0;
        } else {
          this.discovery.markUnknown(r.error);
          nextMs = this.config['retry.backoff.ms'];
        }
      }
      this.setTimer(ms(nextMs), () => this.heartbeat());
    });
  }

  private setAssignment(a: readonly TopicPartitions[]): void {
    this.assignment = a;
    const owned = new Set(a.flatMap((tp) => tp.partitions.map((p) => tpKey(tp.topic, p))));
    // Records already acquired for a partition no longer assigned are still this member's (their locks run):
    // it processes them and acknowledges them in a ShareAcknowledge, rather than spending a delivery of each.
    this.trace.emit('share.assignment', this.id, { group: this.opts.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch, owned: [...owned] });
    this.pollAttempt();
  }

  private leaveGroup(done: () => void): void {
    if (this.memberEpoch <= 0 || !this.discovery.known) return done();
    const req = { type: 'ShareGroupHeartbeat' as const, groupId: this.opts.groupId, memberId: this.memberId, memberEpoch: -1, rackId: null, subscribedTopicNames: null };
    this.net.send<typeof req, ShareGroupHeartbeatResponse>(this.discovery.actor(), req, { timeoutMs: this.config['request.timeout.ms'] }, () => done());
  }

  // ---- metadata ----

  private refreshMetadata(): void {
    if (this.metadataInFlight) return;
    this.metadataInFlight = true;
    const request = { type: 'Metadata' as const, topics: null };
    this.net.send<typeof request, MetadataResponse>(brokerActorId(this.leastLoadedNode()), request, { timeoutMs: this.config['request.timeout.ms'] }, (o) => {
      if (o.ok) this.metadata.update(o.response, this.now);
      this.setTimer(ms(o.ok ? 0 : this.config['retry.backoff.ms']), () => {
        this.metadataInFlight = false;
        if (!o.ok) this.refreshMetadata();
      });
    });
  }

  /** The known broker with the fewest requests in flight. */
  private leastLoadedNode(): number {
    return leastLoadedNode(this.metadata.knownBrokers(), (a) => this.net.inFlight(a), this.random);
  }
}

/** The acquired records of one partition's answer, with their delivery counts: only those the broker acquired for us. */
function recordsOf(p: ShareFetchResponse['partitions'][number]): ShareRecord[] {
  const count = new Map<number, number>();
  for (const a of p.acquiredRecords) for (let o = a.firstOffset; o <= a.lastOffset; o++) count.set(o, a.deliveryCount);
  const out: ShareRecord[] = [];
  for (const b of p.records) {
    if (b.isControl) continue;
    for (let i = 0; i < b.recordCount; i++) {
      const offset = b.offsetAt(i);
      const deliveryCount = count.get(offset);
      if (deliveryCount === undefined) continue;
      out.push({ topic: p.topic, partition: p.partition, offset, deliveryCount, key: b.keyAt(i), value: b.valueAt(i) });
    }
  }
  return out;
}
