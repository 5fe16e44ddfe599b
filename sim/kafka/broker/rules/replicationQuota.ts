/**
 * Replication throttling (KIP-73), as kafka-reassign-partitions --throttle sets it up: a byte-rate quota per
 * broker for the leader side (`leader.replication.throttled.rate`) and the follower side
 * (`follower.replication.throttled.rate`), applied only to the partitions the topic configs
 * `leader.replication.throttled.replicas` / `follower.replication.throttled.replicas` name for this broker, and
 * only to replicas outside the ISR: a throttle slows a reassignment's catch-up, never the ISR.
 * [core/src/main/scala/kafka/server/ReplicationQuotaManager.scala; ReplicaManager.scala `shouldLeaderThrottle`;
 * ReplicaFetcherThread.scala `shouldFollowerThrottle`; clients/.../metrics/stats/SimpleRate.java, SampledStat.java]
 */

/** Every partition of the topic is throttled ("*"). */
export const ALL_REPLICAS = 'all' as const;

/**
 * The partitions of a topic throttled on `brokerId` from a `*.replication.throttled.replicas` value: "*" or a
 * comma-separated list of `partition:broker` pairs (empty: none). Malformed entries are ignored here; the config
 * validator refuses them. [QuotaConfigHandler `parseThrottledPartitions`; ThrottledReplicaListValidator]
 */
export function throttledPartitions(value: string | undefined, brokerId: number): typeof ALL_REPLICAS | ReadonlySet<number> {
  const v = (value ?? '').trim();
  if (v === '*') return ALL_REPLICAS;
  const out = new Set<number>();
  for (const entry of v.split(',')) {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(entry);
    if (m && Number(m[2]) === brokerId) out.add(Number(m[1]));
  }
  return out;
}

interface Sample {
  startMs: number;
  lastEventMs: number;
  value: number;
}

/**
 * The byte rate a replication quota measures: `replication.quota.window.num` samples of
 * `replication.quota.window.size.seconds` each; rate = bytes in the retained samples / max(time since the oldest
 * sample started, one window). A first burst of up to one window's worth of the bound passes before throttling.
 * [SampledStat `record`, `purgeObsoleteSamples`; SimpleRate `windowSize`]
 */
export class ReplicationQuota {
  private readonly samples: Sample[] = [];
  private current = 0;

  constructor(
    /** Bytes per second; Infinity = unthrottled (Kafka's Long.MAX_VALUE default). */
    public bound: number,
    private readonly numSamples = 11,
    private readonly windowMs = 1000,
  ) {}

  record(bytes: number, nowMs: number): void {
    let s = this.currentSample(nowMs);
    if (nowMs - s.startMs >= this.windowMs) s = this.advance(nowMs);
    s.value += bytes;
    s.lastEventMs = nowMs;
  }

  /** Bytes per second over the retained samples. */
  rate(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let total = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const s of this.samples) {
      total += s.value;
      if (s.startMs < oldest) oldest = s.startMs;
    }
    if (this.samples.length === 0) oldest = nowMs;
    const windowMs = Math.max(nowMs - oldest, this.windowMs);
    return total / (windowMs / 1000);
  }

  /** [ReplicationQuotaManager `isQuotaExceeded`: Sensor.checkQuotas, a rate above the bound] */
  isQuotaExceeded(nowMs: number): boolean {
    return Number.isFinite(this.bound) && this.rate(nowMs) > this.bound;
  }

  private currentSample(nowMs: number): Sample {
    if (this.samples.length === 0) this.samples.push({ startMs: nowMs, lastEventMs: nowMs, value: 0 });
    return this.samples[this.current]!;
  }

  /** One extra slot for the sample overlapping the window's start [SampledStat `advance`]. */
  private advance(nowMs: number): Sample {
    this.current = (this.current + 1) % (this.numSamples + 1);
    if (this.current >= this.samples.length) {
      const s = { startMs: nowMs, lastEventMs: nowMs, value: 0 };
      this.samples.push(s);
      return s;
    }
    const s = this.samples[this.current]!;
    s.startMs = nowMs;
    s.lastEventMs = nowMs;
    s.value = 0;
    return s;
  }

  /** Samples without an event in the whole monitored span start over [SampledStat `purgeObsoleteSamples`]. */
  private purgeObsolete(nowMs: number): void {
    const expireAge = this.numSamples * this.windowMs;
    for (const s of this.samples) {
      if (nowMs - s.lastEventMs >= expireAge) {
        s.startMs = nowMs;
        s.lastEventMs = nowMs;
        s.value = 0;
      }
    }
  }
}
