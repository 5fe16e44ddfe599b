/**
 * Positions that need the partition leader: resets through ListOffsets (auto.offset.reset, seeks to a time) and
 * position validation through OffsetsForLeaderEpoch after a leader change (KIP-320).
 * [clients/.../consumer/internals/OffsetFetcher.java `resetPositionsIfNeeded`, `validatePositionsIfNeeded`;
 *  OffsetFetcherUtils.java; SubscriptionState.java `maybeCompleteValidation`]
 */
import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { Trace } from '../../../core/trace';
import type { ConsumerConfig } from '../../config/configs';
import type { NetworkClient, Outcome } from '../../net/networkClient';
import { tpKey, type ListOffsetsResponse, type OffsetsForLeaderEpochResponse } from '../../protocol';
import type { ClientMetadata } from '../metadataCache';
import { brokerActorId } from '../metadataCache';
import { REFRESH_METADATA_ERRORS } from './fetcher';
import { describeTarget, listOffsetsTimestamp, resetTargetFor, type ResetTarget } from './offsetReset';
import type { PartitionState, SubscriptionState } from './subscriptionState';

export interface OffsetFetcherHost {
  readonly id: string;
  readonly now: Micros;
  readonly trace: Trace;
  readonly net: NetworkClient;
  readonly metadata: ClientMetadata;
  readonly subscriptions: SubscriptionState;
  readonly config: ConsumerConfig;
  requestMetadata(): void;
  /** The buffered data of a partition is void (its position moved). */
  clearBuffered(key: string): void;
  wake(): void;
  fatal(error: string, detail: string): void;
  setTimer(delay: Micros, fn: () => void): unknown;
}

const NO_REQUESTS: readonly [number, PartitionState[]][] = [];

export class OffsetFetcher {
  private readonly inFlight = new Set<string>();
  private readonly retryAt = new Map<string, Micros>();
  /** The last `byLeader` walk found a partition `wanted` picks (whether or not it could be asked for yet). */
  private sawWanted = false;
  /**
   * `subscriptions.version` when a walk last found no partition waiting for a reset: until a reset is asked for
   * or the assignment changes, none can be, and the poll skips the walk. -1: walk.
   */
  private noResetsAt = -1;
  /**
   * `subscriptions.version` and `metadata.version` when validation last found every position validated against
   * the leader epoch it knows and none awaiting a check: until a position or a leader epoch moves, that holds.
   */
  private validatedAt = -1;
  private validatedAtMetadata = -1;

  constructor(private readonly host: OffsetFetcherHost) {}

  /**
   * The assigned partitions `wanted` picks that are neither in flight nor backing off, grouped by leader in broker
   * id order (one request each); a partition whose leader is unknown asks for metadata instead.
   */
  private byLeader(wanted: (s: PartitionState) => boolean): readonly [number, PartitionState[]][] {
    const h = this.host;
    // Every poll asks, and almost always no partition is wanted: build nothing until one is.
    let byNode: Map<number, PartitionState[]> | null = null;
    this.sawWanted = false;
    for (const s of h.subscriptions.assignedPartitions()) {
      if (!wanted(s)) continue;
      this.sawWanted = true;
      if (this.inFlight.has(s.key) || (this.retryAt.get(s.key) ?? 0) > h.now) continue;
      const leader = h.metadata.leaderOf(s.topic, s.partition);
      if (leader < 0) {
        h.requestMetadata();
        continue;
      }
      byNode ??= new Map();
      let list = byNode.get(leader);
      if (!list) byNode.set(leader, (list = []));
      list.push(s);
    }
    return byNode === null ? NO_REQUESTS : [...byNode].sort((a, b) => a[0] - b[0]);
  }

  /** ListOffsets for every partition waiting for a reset, one request per leader. */
  resetPositionsIfNeeded(): void {
    const h = this.host;
    const version = h.subscriptions.version;
    if (this.noResetsAt === version) return;
    const requests = this.byLeader((s) => s.reset !== null);
    if (!this.sawWanted) this.noResetsAt = version;
    for (const [node, parts] of requests) {
      const items = parts.map((s) => ({ s, target: s.reset! }));
      for (const it of items) this.inFlight.add(it.s.key);
      const request = {
        type: 'ListOffsets' as const,
        isolationLevel: h.config['isolation.level'],
        partitions: items.map((it) => ({
          topic: it.s.topic,
          partition: it.s.partition,
          timestamp: listOffsetsTimestamp(it.target),
          currentLeaderEpoch: h.metadata.leaderEpochOf(it.s.topic, it.s.partition),
        })),
      };
      h.net.send<typeof request, ListOffsetsResponse>(brokerActorId(node), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => this.onListOffsets(items, o));
    }
  }

  private onListOffsets(items: readonly { s: PartitionState; target: ResetTarget }[], o: Outcome<ListOffsetsResponse>): void {
    const h = this.host;
    const byKey = new Map<string, ListOffsetsResponse['partitions'][number]>();
    if (o.ok) for (const p of o.response.partitions) byKey.set(tpKey(p.topic, p.partition), p);
    let refresh = !o.ok;
    for (const { s, target } of items) {
      this.inFlight.delete(s.key);
      // Only if the partition still waits for this very reset (not revoked, sought or reset again meanwhile).
      if (h.subscriptions.get(s.key) !== s || s.reset !== target) continue;
      const p = byKey.get(s.key);
      if (!p || p.error !== 'NONE') {
        if (!p || REFRESH_METADATA_ERRORS.has(p.error)) refresh = true;
        this.backoff(s.key);
        continue;
      }
      if (p.offset < 0) {
        // No record at or after the timestamp: the end of the log, as a seek past the last record.
        s.reset = { kind: 'latest' };
        continue;
      }
      const from = s.resetFrom;
      h.subscriptions.seek(s, p.offset, p.leaderEpoch);
      s.validatedLeaderEpoch = h.metadata.leaderEpochOf(s.topic, s.partition);
      h.clearBuffered(s.key);
      h.trace.emit('consumer.offset.reset', h.id, { topic: s.topic, partition: s.partition, from, to: p.offset, strategy: describeTarget(target), reason: s.resetReason });
    }
    if (refresh) h.requestMetadata();
    h.wake();
  }

  /**
   * A position whose leader epoch is known is checked against the current leader: if the leader's log ends before
   * the position for that epoch, the log was truncated (unclean election, lost data) and the position moves back.
   */
  validatePositionsIfNeeded(): void {
    const h = this.host;
    const version = h.subscriptions.version;
    const metadataVersion = h.metadata.version;
    // Every position was validated against the leader epoch known then, and no leader epoch or position moved.
    if (this.validatedAt === version && this.validatedAtMetadata === metadataVersion) return;
    // A leader change since the position was established calls for a check. [SubscriptionState.java `maybeValidatePositionForCurrentLeader`]
    for (const s of h.subscriptions.assignedPartitions()) {
      if (s.position === null || s.awaitingValidation) continue;
      const epoch = h.metadata.leaderEpochOf(s.topic, s.partition);
      if (epoch > s.validatedLeaderEpoch) {
        if (s.positionEpoch >= 0 && s.validatedLeaderEpoch >= 0) s.awaitingValidation = true;
        else s.validatedLeaderEpoch = epoch;
      }
    }
    const requests = this.byLeader((s) => s.awaitingValidation && s.position !== null);
    if (!this.sawWanted) {
      this.validatedAt = version;
      this.validatedAtMetadata = metadataVersion;
    }
    for (const [node, parts] of requests) {
      const sent = parts.map((s) => ({ s, position: s.position!, epoch: s.positionEpoch, leaderEpoch: h.metadata.leaderEpochOf(s.topic, s.partition) }));
      for (const x of sent) this.inFlight.add(x.s.key);
      const request = {
        type: 'OffsetsForLeaderEpoch' as const,
        partitions: sent.map((x) => ({ topic: x.s.topic, partition: x.s.partition, currentLeaderEpoch: x.leaderEpoch, leaderEpoch: x.epoch })),
      };
      h.net.send<typeof request, OffsetsForLeaderEpochResponse>(brokerActorId(node), request, { timeoutMs: h.config['request.timeout.ms'] }, (o) => this.onValidation(sent, o));
    }
  }

  private onValidation(sent: readonly { s: PartitionState; position: number; epoch: number; leaderEpoch: number }[], o: Outcome<OffsetsForLeaderEpochResponse>): void {
    const h = this.host;
    const byKey = new Map<string, OffsetsForLeaderEpochResponse['partitions'][number]>();
    if (o.ok) for (const p of o.response.partitions) byKey.set(tpKey(p.topic, p.partition), p);
    let refresh = !o.ok;
    for (const x of sent) {
      const s = x.s;
      this.inFlight.delete(s.key);
      if (h.subscriptions.get(s.key) !== s || !s.awaitingValidation || s.position !== x.position) continue;
      const p = byKey.get(s.key);
      if (!p || p.error !== 'NONE') {
        if (!p || REFRESH_METADATA_ERRORS.has(p.error)) refresh = true;
        this.backoff(s.key);
        continue;
      }
      s.awaitingValidation = false;
      s.validatedLeaderEpoch = x.leaderEpoch;
      // The epoch checked may be older than the one known now: the next poll looks again.
      h.subscriptions.changed();
      if (p.endOffset >= 0 && p.leaderEpoch >= 0 && p.endOffset >= x.position) continue;
      // Truncation: the log ends before our position in that epoch (or the epoch is unknown).
      h.trace.emit('consumer.truncation', h.id, { topic: s.topic, partition: s.partition, position: x.position, endOffset: p.endOffset, leaderEpoch: p.leaderEpoch });
      h.clearBuffered(s.key);
      const target = resetTargetFor(h.config['auto.offset.reset']);
      if (target === null) {
        h.fatal('LogTruncationException', `${s.key}: truncation detected at ${x.position} and auto.offset.reset=none`);
      } else if (p.endOffset >= 0 && p.leaderEpoch >= 0) {
        // Continue from the first offset known to diverge.
        h.subscriptions.seek(s, p.endOffset, p.leaderEpoch);
        s.validatedLeaderEpoch = x.leaderEpoch;
      } else {
        h.subscriptions.requestReset(s, target, 'truncation with unknown end offset');
      }
    }
    if (refresh) h.requestMetadata();
    h.wake();
  }

  private backoff(key: string): void {
    const h = this.host;
    this.retryAt.set(key, h.now + ms(h.config['retry.backoff.ms']));
    h.setTimer(ms(h.config['retry.backoff.ms']), () => h.wake());
  }
}
