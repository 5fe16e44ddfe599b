import { LONG_MAX, type BrokerConfig } from '../config/configs';
import type { MetadataImage } from '../metadata/metadataImage';
import type { Partition } from './partition';
import { ALL_REPLICAS, ReplicationQuota, throttledPartitions } from './rules/replicationQuota';

type Throttled = typeof ALL_REPLICAS | ReadonlySet<number>;

/**
 * This broker's two replication quotas and which partitions they apply to, re-read from the metadata when
 * configs change: the rates from the broker's dynamic config (its own, then the cluster default, then the
 * static config), the partitions from each topic's `*.replication.throttled.replicas`.
 * [core/src/main/scala/kafka/server/ReplicationQuotaManager.scala; ConfigHandler.scala `QuotaConfigHandler`,
 * `BrokerConfigHandler`; DynamicConfig.Broker]
 */
export class ReplicationThrottles {
  readonly leader: ReplicationQuota;
  readonly follower: ReplicationQuota;
  private leaderParts = new Map<string, Throttled>();
  private followerParts = new Map<string, Throttled>();

  constructor(
    private readonly brokerId: number,
    private readonly config: BrokerConfig,
  ) {
    const num = config['replication.quota.window.num'];
    const windowMs = config['replication.quota.window.size.seconds'] * 1000;
    this.leader = new ReplicationQuota(Infinity, num, windowMs);
    this.follower = new ReplicationQuota(Infinity, num, windowMs);
    this.leader.bound = this.rate(undefined, 'leader.replication.throttled.rate');
    this.follower.bound = this.rate(undefined, 'follower.replication.throttled.rate');
  }

  private rate(image: MetadataImage | undefined, name: 'leader.replication.throttled.rate' | 'follower.replication.throttled.rate'): number {
    const v = image?.resourceConfigs('BROKER', String(this.brokerId))?.get(name) ?? image?.resourceConfigs('BROKER', '')?.get(name);
    const n = v === undefined ? this.config[name] : Number(v);
    return !Number.isFinite(n) || n >= LONG_MAX ? Infinity : n;
  }

  /** Configs changed: read the rates and every topic's throttled replicas again. */
  refresh(image: MetadataImage): void {
    this.leader.bound = this.rate(image, 'leader.replication.throttled.rate');
    this.follower.bound = this.rate(image, 'follower.replication.throttled.rate');
    const leader = new Map<string, Throttled>();
    const follower = new Map<string, Throttled>();
    for (const t of image.topics()) {
      const l = throttledPartitions(image.effectiveTopicConfig(t.name, 'leader.replication.throttled.replicas'), this.brokerId);
      const f = throttledPartitions(image.effectiveTopicConfig(t.name, 'follower.replication.throttled.replicas'), this.brokerId);
      if (l === ALL_REPLICAS || l.size > 0) leader.set(t.name, l);
      if (f === ALL_REPLICAS || f.size > 0) follower.set(t.name, f);
    }
    this.leaderParts = leader;
    this.followerParts = follower;
  }

  private static named(parts: ReadonlyMap<string, Throttled>, p: Partition): boolean {
    if (parts.size === 0) return false;
    const t = parts.get(p.topic);
    return t !== undefined && (t === ALL_REPLICAS || t.has(p.partition));
  }

  /** [ReplicaManager.scala `shouldLeaderThrottle`: throttled, the follower not in the ISR, and the quota exceeded] */
  shouldLeaderThrottle(p: Partition, replicaId: number, nowMs: number): boolean {
    return ReplicationThrottles.named(this.leaderParts, p) && !p.isr.includes(replicaId) && this.leader.isQuotaExceeded(nowMs);
  }

  /** Some topic names throttled follower replicas here (else `shouldFollowerThrottle` is false for every partition). */
  get followerThrottleConfigured(): boolean {
    return this.followerParts.size > 0;
  }

  /** [ReplicaFetcherThread.scala `shouldFollowerThrottle`: not in the ISR, throttled, and the quota exceeded] */
  shouldFollowerThrottle(p: Partition, nowMs: number): boolean {
    return ReplicationThrottles.named(this.followerParts, p) && !p.isr.includes(this.brokerId) && this.follower.isQuotaExceeded(nowMs);
  }

  recordLeader(p: Partition, bytes: number, nowMs: number): void {
    if (ReplicationThrottles.named(this.leaderParts, p)) this.leader.record(bytes, nowMs);
  }

  recordFollower(p: Partition, bytes: number, nowMs: number): void {
    if (ReplicationThrottles.named(this.followerParts, p)) this.follower.record(bytes, nowMs);
  }
}
