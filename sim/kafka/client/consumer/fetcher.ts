/**
 * Sends Fetch requests for the assigned partitions and buffers what comes back
 * [clients/.../consumer/internals/AbstractFetch.java `prepareFetchRequests`, `handleFetchSuccess`;
 *  FetchCollector.java `handleInitializeErrors`]: one request in flight per leader, covering every fetchable
 * partition that leader leads and that has no data buffered, through an incremental fetch session with that
 * broker (KIP-227: a partition with buffered data leaves the session until it is fetched again); the broker
 * waits up to fetch.max.wait.ms for fetch.min.bytes and returns only records below the high watermark.
 */
import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { ConsumerConfig } from '../../config/configs';
import type { KafkaError } from '../../errors';
import type { NetworkClient, Outcome } from '../../net/networkClient';
import { REQUEST_HEADER_BYTES, tpKey, type FetchRequest, type FetchResponse, type LeaderHint } from '../../protocol';
import { FetchSessionHandler } from '../fetchSessionHandler';
import type { ClientMetadata } from '../metadataCache';
import { brokerActorId } from '../metadataCache';
import { CompletedFetch, type FetchBuffer } from './fetchBuffer';
import { classifyFetchedBatches } from './abortedTransactions';
import type { PartitionState, SubscriptionState } from './subscriptionState';

/** Errors after which the client's view of the leader is stale. */
export const REFRESH_METADATA_ERRORS: ReadonlySet<KafkaError> = new Set<KafkaError>([
  'NOT_LEADER_OR_FOLLOWER',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'KAFKA_STORAGE_ERROR',
  'FENCED_LEADER_EPOCH',
  'LEADER_NOT_AVAILABLE',
  'OFFSET_NOT_AVAILABLE',
  'NETWORK_EXCEPTION',
  'REQUEST_TIMED_OUT',
]);

export interface FetcherHost {
  readonly now: Micros;
  readonly net: NetworkClient;
  readonly metadata: ClientMetadata;
  readonly subscriptions: SubscriptionState;
  readonly buffer: FetchBuffer;
  readonly config: ConsumerConfig;
  requestMetadata(): void;
  /** OFFSET_OUT_OF_RANGE at the partition's current position. */
  onOffsetOutOfRange(s: PartitionState, fetchOffset: number): void;
  /** Something arrived that a waiting poll() may want. */
  wake(): void;
  setTimer(delay: Micros, fn: () => void): unknown;
}

/** The assigned partitions one broker leads (or none does: leader -1), in assignment order, with their leader epochs. */
interface LeaderGroup {
  readonly leader: number;
  readonly parts: PartitionState[];
  readonly leaderEpochs: number[];
}

export class Fetcher {
  private readonly inFlight = new Set<number>();
  private readonly backoffUntil = new Map<number, Micros>();
  /** One fetch session per broker [AbstractFetch.sessionHandlers]. */
  private readonly sessions = new Map<number, FetchSessionHandler>();
  /** The assignment by leader, in broker id order; rebuilt when the assignment or the metadata changes. */
  private groups: LeaderGroup[] = [];
  private groupsAt = -1;
  private groupsAtMetadata = -1;

  constructor(private readonly host: FetcherHost) {}

  private leaderGroups(): readonly LeaderGroup[] {
    const h = this.host;
    const subs = h.subscriptions;
    const md = h.metadata;
    if (this.groupsAt === subs.assignmentVersion && this.groupsAtMetadata === md.version) return this.groups;
    const byLeader = new Map<number, LeaderGroup>();
    for (const s of subs.assignedPartitions()) {
      const leader = md.leaderOf(s.topic, s.partition);
      let g = byLeader.get(leader);
      if (!g) byLeader.set(leader, (g = { leader, parts: [], leaderEpochs: [] }));
      g.parts.push(s);
      g.leaderEpochs.push(md.leaderEpochOf(s.topic, s.partition));
    }
    this.groups = [...byLeader.values()].sort((a, b) => a.leader - b.leader);
    this.groupsAt = subs.assignmentVersion;
    this.groupsAtMetadata = md.version;
    return this.groups;
  }

  /**
   * Sends a fetch to every leader that has fetchable partitions and no fetch in flight; returns how many were sent.
   * Only the partitions of leaders free to be fetched from are looked at (the others wait for their answers).
   */
  sendFetches(): number {
    const h = this.host;
    const c = h.config;
    const subs = h.subscriptions;
    const buffer = h.buffer;
    const maxBytes = c['max.partition.fetch.bytes'];
    let building: number[] | null = null;
    let unknownLeader = false;
    for (const g of this.leaderGroups()) {
      const leader = g.leader;
      const parts = g.parts;
      if (leader < 0) {
        for (let i = 0; i < parts.length; i++) {
          const s = parts[i]!;
          if (subs.isFetchable(s) && !buffer.has(s.key)) unknownLeader = true;
        }
        continue;
      }
      if (this.inFlight.has(leader) || (this.backoffUntil.get(leader) ?? 0) > h.now) continue;
      let session: FetchSessionHandler | undefined;
      for (let i = 0; i < parts.length; i++) {
        const s = parts[i]!;
        if (!subs.isFetchable(s) || buffer.has(s.key)) continue;
        if (!session) {
          session = this.sessions.get(leader);
          if (!session) this.sessions.set(leader, (session = new FetchSessionHandler()));
          session.begin();
          (building ??= []).push(leader);
        }
        session.add(s.key, s.topic, s.partition, s.position!, -1, g.leaderEpochs[i]!, -1, maxBytes);
      }
    }
    if (unknownLeader) h.requestMetadata();
    if (building === null) return 0;
    // In broker id order (the groups are).
    for (const node of building) this.send(node, this.sessions.get(node)!);
    return building.length;
  }

  hasInFlight(): boolean {
    return this.inFlight.size > 0;
  }

  /**
   * close(): asks every broker that holds a session for this consumer to drop it, with a fetch of nothing at the
   * FINAL epoch; nothing waits for the answers. [AbstractFetch.closeInternal, maybeCloseFetchSessions]
   */
  closeSessions(): void {
    const c = this.host.config;
    for (const node of [...this.sessions.keys()].sort((a, b) => a - b)) {
      const session = this.sessions.get(node)!;
      if (!session.hasSession) continue;
      session.close();
      session.begin();
      const data = session.build();
      const request: FetchRequest = {
        type: 'Fetch',
        replicaId: -1,
        replicaEpoch: -1,
        maxWaitMs: 0,
        minBytes: c['fetch.min.bytes'],
        maxBytes: c['fetch.max.bytes'],
        isolationLevel: c['isolation.level'],
        sessionId: data.sessionId,
        sessionEpoch: data.sessionEpoch,
        partitions: [],
        forgottenTopicsData: [],
        correlationId: 0,
      };
      this.host.net.send<typeof request, FetchResponse>(brokerActorId(node), request, { timeoutMs: c['request.timeout.ms'], bytes: REQUEST_HEADER_BYTES }, () => {});
    }
    this.sessions.clear();
  }

  private send(node: number, session: FetchSessionHandler): void {
    const h = this.host;
    const c = h.config;
    const data = session.build();
    const request: FetchRequest = {
      type: 'Fetch',
      replicaId: -1,
      replicaEpoch: -1,
      maxWaitMs: c['fetch.max.wait.ms'],
      minBytes: c['fetch.min.bytes'],
      maxBytes: c['fetch.max.bytes'],
      isolationLevel: c['isolation.level'],
      sessionId: data.sessionId,
      sessionEpoch: data.sessionEpoch,
      partitions: data.partitions,
      forgottenTopicsData: data.forgottenTopicsData,
      correlationId: 0, // last, where NetworkClient.send stamps it: the request has its final shape from the start
    };
    this.inFlight.add(node);
    const bytes = REQUEST_HEADER_BYTES + (data.partitions.length + data.forgottenTopicsData.length) * 32;
    h.net.send<typeof request, FetchResponse>(brokerActorId(node), request, { timeoutMs: c['request.timeout.ms'], bytes }, (o) => this.onResponse(node, session, o));
  }

  private onResponse(node: number, session: FetchSessionHandler, o: Outcome<FetchResponse>): void {
    const h = this.host;
    this.inFlight.delete(node);
    if (!o.ok) {
      // Back off this node for a while and look up the leaders again; the next fetch opens a new session.
      // [AbstractFetch.java `handleFetchFailure` -> FetchSessionHandler.handleError]
      session.handleError();
      this.backoffUntil.set(node, h.now + ms(h.config['retry.backoff.ms']));
      h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
      h.requestMetadata();
      h.wake();
      return;
    }
    if (!session.handleResponse(o.response)) {
      // A session error: nothing to read here; the next fetch is a full one. [AbstractFetch.handleFetchSuccess]
      h.wake();
      return;
    }
    let refresh = false;
    const hints: { topic: string; partition: number; hint: LeaderHint }[] = [];
    for (const p of o.response.partitions) {
      const key = tpKey(p.topic, p.partition);
      if (p.currentLeader && (p.error === 'NOT_LEADER_OR_FOLLOWER' || p.error === 'FENCED_LEADER_EPOCH')) hints.push({ topic: p.topic, partition: p.partition, hint: p.currentLeader });
      // The offset the session asked from (sent now or in an earlier request).
      const fetchOffset = session.sessionPartition(key)?.fetchOffset;
      const s = h.subscriptions.get(key);
      // Revoked, or moved by a seek or reset while the fetch was out: the data is stale.
      if (fetchOffset === undefined || !s || s.position !== fetchOffset) continue;
      if (p.error === 'NONE') {
        s.highWatermark = p.highWatermark;
        s.logStartOffset = p.logStartOffset;
        s.lastStableOffset = p.lastStableOffset ?? p.highWatermark;
        if (p.batches.length > 0) h.buffer.add(new CompletedFetch(key, p.topic, p.partition, fetchOffset, p.batches, abortedBatches(h.config['isolation.level'], p)));
      } else if (p.error === 'OFFSET_OUT_OF_RANGE') {
        h.onOffsetOutOfRange(s, fetchOffset);
      } else if (REFRESH_METADATA_ERRORS.has(p.error)) {
        refresh = true;
      }
    }
    // KIP-951: the new leaders the broker named; a moved leader makes the position be validated against it
    // (validatePositionsIfNeeded sees the newer epoch) [AbstractFetch.handleFetchSuccess → updatePartitionLeadership].
    if (hints.length > 0) h.metadata.updatePartitionLeadership(hints, o.response.nodeEndpoints ?? []);
    if (refresh) h.requestMetadata();
    h.wake();
  }
}

/**
 * Which batches of a read_committed response belong to aborted transactions (null when none can: the response
 * listed no aborted transaction). [src: CompletedFetch.java `nextFetchedRecord`]
 */
function abortedBatches(isolation: ConsumerConfig['isolation.level'], p: FetchResponse['partitions'][number]): boolean[] | null {
  if (isolation !== 'read_committed' || p.abortedTransactions === undefined || p.abortedTransactions.length === 0) return null;
  const views = p.batches.map((b) => ({
    baseOffset: b.baseOffset,
    lastOffset: b.baseOffset + b.lastOffsetDelta,
    producerId: b.producerId,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    ...(b.controlType !== undefined ? { controlType: b.controlType } : {}),
  }));
  return classifyFetchedBatches(isolation, views, p.abortedTransactions).map((v) => v === 'aborted');
}
