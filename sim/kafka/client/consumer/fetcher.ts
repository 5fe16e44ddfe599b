/**
 * Sends Fetch requests for the assigned partitions and buffers what comes back
 * [clients/.../consumer/internals/AbstractFetcher.java `prepareFetchRequests`, `handleFetchSuccess`;
 *  FetchCollector.java `handleInitializeErrors`]: one request in flight per leader, covering every fetchable
 * partition that leader leads and that has no data buffered; the broker waits up to fetch.max.wait.ms for
 * fetch.min.bytes and returns only records below the high watermark.
 */
import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { ConsumerConfig } from '../../config/configs';
import type { KafkaError } from '../../errors';
import type { NetworkClient, Outcome } from '../../net/networkClient';
import { tpKey, type FetchRequest, type FetchResponse, type LeaderHint } from '../../protocol';
import type { ClientMetadata } from '../metadataCache';
import { brokerActorId } from '../metadataCache';
import { CompletedFetch, type FetchBuffer } from './fetchBuffer';
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

export class Fetcher {
  private readonly inFlight = new Set<number>();
  private readonly backoffUntil = new Map<number, Micros>();

  constructor(private readonly host: FetcherHost) {}

  /** Sends a fetch to every leader that has fetchable partitions and no fetch in flight; returns how many were sent. */
  sendFetches(): number {
    const h = this.host;
    const byNode = new Map<number, PartitionState[]>();
    let unknownLeader = false;
    for (const s of h.subscriptions.assignedPartitions()) {
      if (!h.subscriptions.isFetchable(s) || h.buffer.has(s.key)) continue;
      const leader = h.metadata.leaderOf(s.topic, s.partition);
      if (leader < 0) {
        unknownLeader = true;
        continue;
      }
      if (this.inFlight.has(leader) || (this.backoffUntil.get(leader) ?? 0) > h.now) continue;
      let list = byNode.get(leader);
      if (!list) byNode.set(leader, (list = []));
      list.push(s);
    }
    if (unknownLeader) h.requestMetadata();
    const nodes = [...byNode.keys()].sort((a, b) => a - b);
    for (const node of nodes) this.send(node, byNode.get(node)!);
    return nodes.length;
  }

  hasInFlight(): boolean {
    return this.inFlight.size > 0;
  }

  private send(node: number, parts: PartitionState[]): void {
    const h = this.host;
    const c = h.config;
    const sent = parts.map((s) => ({ key: s.key, offset: s.position! }));
    const request: Omit<FetchRequest, 'correlationId'> = {
      type: 'Fetch',
      replicaId: -1,
      replicaEpoch: -1,
      maxWaitMs: c['fetch.max.wait.ms'],
      minBytes: c['fetch.min.bytes'],
      maxBytes: c['fetch.max.bytes'],
      isolationLevel: c['isolation.level'],
      partitions: parts.map((s) => ({
        topic: s.topic,
        partition: s.partition,
        fetchOffset: s.position!,
        lastFetchedEpoch: -1,
        currentLeaderEpoch: h.metadata.leaderEpochOf(s.topic, s.partition),
        logStartOffset: -1,
        maxBytes: c['max.partition.fetch.bytes'],
      })),
    };
    this.inFlight.add(node);
    h.net.send<typeof request, FetchResponse>(brokerActorId(node), request, { timeoutMs: c['request.timeout.ms'] }, (o) => this.onResponse(node, sent, o));
  }

  private onResponse(node: number, sent: readonly { key: string; offset: number }[], o: Outcome<FetchResponse>): void {
    const h = this.host;
    this.inFlight.delete(node);
    if (!o.ok || o.response.error !== 'NONE') {
      // Back off this node for a while and look up the leaders again. [AbstractFetcher.java `handleFetchFailure`]
      this.backoffUntil.set(node, h.now + ms(h.config['retry.backoff.ms']));
      h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
      h.requestMetadata();
      h.wake();
      return;
    }
    const offsets = new Map(sent.map((x) => [x.key, x.offset]));
    let refresh = false;
    const hints: { topic: string; partition: number; hint: LeaderHint }[] = [];
    for (const p of o.response.partitions) {
      const key = tpKey(p.topic, p.partition);
      if (p.currentLeader && (p.error === 'NOT_LEADER_OR_FOLLOWER' || p.error === 'FENCED_LEADER_EPOCH')) hints.push({ topic: p.topic, partition: p.partition, hint: p.currentLeader });
      const fetchOffset = offsets.get(key);
      const s = h.subscriptions.get(key);
      // Revoked, or moved by a seek or reset while the fetch was out: the data is stale.
      if (fetchOffset === undefined || !s || s.position !== fetchOffset) continue;
      if (p.error === 'NONE') {
        s.highWatermark = p.highWatermark;
        s.logStartOffset = p.logStartOffset;
        if (p.batches.length > 0) h.buffer.add(new CompletedFetch(key, p.topic, p.partition, fetchOffset, p.batches));
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
