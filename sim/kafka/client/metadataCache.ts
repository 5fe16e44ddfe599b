import type { Random } from '../../core/random';
import type { LeaderHint, MetadataResponse, PartitionMetadata } from '../protocol';

/** The process id of broker `id` on the simulated network. */
export function brokerActorId(id: number): string {
  return `broker-${id}`;
}

/** The broker id of a process id like "broker-3", or null. */
export function brokerIdOf(actorId: string): number | null {
  const m = /^broker-(\d+)$/.exec(actorId);
  return m ? Number(m[1]) : null;
}

/** The known broker with the fewest requests in flight; ties rotate by a seeded draw [NetworkClient.leastLoadedNode]. */
export function leastLoadedNode(nodes: readonly number[], inFlight: (actorId: string) => number, random: Random): number {
  const offset = random.int(0, nodes.length);
  let best = nodes[offset]!;
  let bestLoad = Infinity;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[(offset + i) % nodes.length]!;
    const load = inFlight(brokerActorId(n));
    if (load < bestLoad) {
      best = n;
      bestLoad = load;
    }
  }
  return best;
}

/**
 * A client's view of the cluster (Kafka's Metadata / MetadataCache on the client): which broker leads
 * each partition and with which leader epoch. It is only as fresh as the last Metadata response.
 */
export class ClientMetadata {
  private readonly topics = new Map<string, PartitionMetadata[]>();
  /** Topic ids learned from Metadata (v10+), both ways. */
  private readonly idsByName = new Map<string, string>();
  private readonly namesById = new Map<string, string>();
  private brokers: number[] = [];
  /** Simulated time of the last successful update (us), -1 never. */
  lastUpdateUs = -1;
  /** Bumped on every update, so callers can tell whether a leader changed since they looked. */
  version = 0;

  // Refresh timing, as Kafka's Metadata keeps it (used by the producer; see timeToNextUpdate).
  /** A refresh was asked for: an unknown leader, a stale-metadata error, a disconnect, a new topic. */
  private needUpdate = false;
  /** Last response or failure of a Metadata request (us), -1 never. */
  lastRefreshUs = -1;
  /** Consecutive failed Metadata requests. */
  private attempts = 0;
  /** Consecutive responses that changed nothing (leaders, epochs, partition counts). */
  private equivalentResponseCount = 0;

  constructor(readonly bootstrap: readonly number[]) {
    this.brokers = [...bootstrap];
  }

  update(r: MetadataResponse, nowUs: number): void {
    let changed = false;
    this.brokers = r.brokers.map((b) => b.id).sort((a, b) => a - b);
    if (this.brokers.length === 0) this.brokers = [...this.bootstrap];
    for (const t of r.topics) {
      if (t.error !== 'NONE') continue;
      if (t.topicId !== undefined && this.idsByName.get(t.name) !== t.topicId) {
        this.idsByName.set(t.name, t.topicId);
        this.namesById.set(t.topicId, t.name);
      }
      const parts = [...t.partitions].sort((a, b) => a.partition - b.partition);
      const old = this.topics.get(t.name);
      // Never go back to an older leader epoch from a stale broker's answer.
      if (old) {
        for (let i = 0; i < parts.length; i++) {
          const o = old[i];
          const n = parts[i]!;
          if (o && o.leaderEpoch > n.leaderEpoch) parts[i] = o;
        }
      }
      if (!old || old.length !== parts.length || parts.some((p, i) => p.leader !== old[i]!.leader || p.leaderEpoch !== old[i]!.leaderEpoch)) changed = true;
      this.topics.set(t.name, parts);
    }
    this.lastUpdateUs = nowUs;
    this.lastRefreshUs = nowUs;
    this.version++;
    this.needUpdate = false;
    this.attempts = 0;
    this.equivalentResponseCount = changed ? 0 : this.equivalentResponseCount + 1;
  }

  /**
   * KIP-951: the leaders a Produce or Fetch response named with NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH.
   * One is taken only if it is complete, newer than the epoch known, its broker is known (in the response's node
   * endpoints or the last Metadata), and the partition is cached; the refresh that was asked for still happens
   * [clients/.../Metadata.java `updatePartitionLeadership`]. Returns the partitions whose leader moved.
   */
  updatePartitionLeadership(hints: readonly { topic: string; partition: number; hint: LeaderHint }[], nodeEndpoints: readonly number[]): { topic: string; partition: number }[] {
    const updated: { topic: string; partition: number }[] = [];
    for (const { topic, partition, hint } of hints) {
      if (hint.leaderId < 0 || hint.leaderEpoch < 0) continue;
      const parts = this.topics.get(topic);
      const old = parts?.[partition];
      if (!parts || !old) continue;
      if (old.leaderEpoch >= 0 && hint.leaderEpoch <= old.leaderEpoch) continue;
      if (!nodeEndpoints.includes(hint.leaderId) && !this.brokers.includes(hint.leaderId)) continue;
      const next = [...parts];
      next[partition] = { ...old, leader: hint.leaderId, leaderEpoch: hint.leaderEpoch };
      this.topics.set(topic, next);
      updated.push({ topic, partition });
    }
    if (updated.length > 0) this.version++;
    return updated;
  }

  /** Asks for a refresh at the next opportunity [Metadata.requestUpdate]. */
  requestUpdate(): void {
    this.needUpdate = true;
  }

  /** A topic never seen before: fetch it without waiting for the refresh backoff [Metadata.requestUpdateForNewTopics]. */
  requestUpdateForNewTopics(): void {
    this.needUpdate = true;
    this.lastRefreshUs = -1;
    this.equivalentResponseCount = 0;
  }

  get updateRequested(): boolean {
    return this.needUpdate;
  }

  /** A Metadata request failed (no answer) [Metadata.failedUpdate]. */
  failedUpdate(nowUs: number): void {
    this.lastRefreshUs = nowUs;
    this.attempts++;
    this.equivalentResponseCount = 0;
  }

  /**
   * How long until the next Metadata request may go [Metadata.timeToNextUpdate, timeToAllowUpdate]: now when a
   * refresh was asked for, else when metadata.max.age.ms has passed since the last success; never sooner than the
   * refresh backoff after the last attempt. The backoff (retry.backoff.ms growing to retry.backoff.max.ms) grows
   * with consecutive failures, and with consecutive answers that changed nothing (KIP-580), so a client waiting for
   * a leader election does not hammer the brokers. `backoffUs(n)` is the n-th backoff (n from 0).
   */
  timeToNextUpdate(nowUs: number, metadataMaxAgeUs: number, backoffUs: (attempts: number) => number): number {
    const expired = this.lastUpdateUs < 0 ? 0 : Math.max(this.lastUpdateUs + metadataMaxAgeUs - nowUs, 0);
    const timeToExpire = this.needUpdate ? 0 : expired;
    if (this.lastRefreshUs < 0) return timeToExpire;
    // A periodic refresh starts the equivalent-response backoff over.
    if (expired === 0) this.equivalentResponseCount = 0;
    const forAttempts = Math.max(this.lastRefreshUs + backoffUs(this.attempts > 0 ? this.attempts - 1 : 0) - nowUs, 0);
    const forEquivalent = Math.max(this.lastRefreshUs + (this.equivalentResponseCount > 0 ? backoffUs(this.equivalentResponseCount - 1) : 0) - nowUs, 0);
    return Math.max(timeToExpire, forAttempts, forEquivalent);
  }

  knownBrokers(): readonly number[] {
    return this.brokers;
  }

  topicId(topic: string): string | undefined {
    return this.idsByName.get(topic);
  }

  topicName(topicId: string): string | undefined {
    return this.namesById.get(topicId);
  }

  partitionCount(topic: string): number | null {
    return this.topics.get(topic)?.length ?? null;
  }

  partition(topic: string, partition: number): PartitionMetadata | undefined {
    return this.topics.get(topic)?.[partition];
  }

  /** The leader's broker id, or -1 when unknown or leaderless. */
  leaderOf(topic: string, partition: number): number {
    return this.topics.get(topic)?.[partition]?.leader ?? -1;
  }

  leaderEpochOf(topic: string, partition: number): number {
    return this.topics.get(topic)?.[partition]?.leaderEpoch ?? -1;
  }
}
