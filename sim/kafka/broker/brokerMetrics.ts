/**
 * A broker's metrics [core/src/main/scala/kafka/server/ReplicaManager.scala gauges and meters; BrokerTopicStats;
 * network/RequestChannel.scala `RequestMetrics`]: meters the broker marks as it works, request times from
 * receipt to the response leaving, and the gauges read from its partitions when sampled.
 */
import type { Micros } from '../../core/time';
import { requestMetricName } from '../metrics/catalog';
import { IntervalHistogram, Meter } from '../metrics/meters';

interface RequestStats {
  readonly rate: Meter;
  readonly time: IntervalHistogram;
}

/** What a sample reads from the broker's partitions (its own state). */
export interface PartitionGauges {
  readonly UnderReplicatedPartitions: number;
  readonly UnderMinIsrPartitionCount: number;
  readonly AtMinIsrPartitionCount: number;
  readonly LeaderCount: number;
  readonly PartitionCount: number;
  readonly ReassigningPartitions: number;
}

export class BrokerMetrics {
  readonly isrShrinks: Meter;
  readonly isrExpands: Meter;
  readonly messagesIn: Meter;
  readonly bytesIn: Meter;
  readonly bytesOut: Meter;
  readonly replicationBytesIn: Meter;
  readonly replicationBytesOut: Meter;
  private readonly requests = new Map<string, RequestStats>();
  /** The stats a request of a type counts towards (a Fetch also by follower or consumer), made once per kind. */
  private readonly statsOfKind = new Map<string, readonly RequestStats[]>();
  /** Requests being served: peer -> correlation id -> (their stats, receipt time). */
  private readonly inFlight = new Map<string, Map<number, { stats: readonly RequestStats[]; atUs: Micros }>>();

  /** The last sample (an API first seen after it gets a rate over the time since). */
  private lastSampleUs: Micros;

  /**
   * @param keepRequestTimes false when nothing samples the metrics: the request meters still count, but no
   *   request's receipt or duration is kept (nobody would read them, and they pile up until the run ends).
   */
  constructor(
    startUs: Micros,
    private readonly keepRequestTimes = true,
  ) {
    this.lastSampleUs = startUs;
    this.isrShrinks = new Meter(startUs);
    this.isrExpands = new Meter(startUs);
    this.messagesIn = new Meter(startUs);
    this.bytesIn = new Meter(startUs);
    this.bytesOut = new Meter(startUs);
    this.replicationBytesIn = new Meter(startUs);
    this.replicationBytesOut = new Meter(startUs);
  }

  /** A request arrived; a Fetch counts as Fetch and as FetchConsumer or FetchFollower, as Kafka's RequestChannel counts it. */
  requestReceived(from: string, correlationId: number, type: string, followerFetch: boolean, nowUs: Micros): void {
    const kind = type === 'Fetch' ? (followerFetch ? 'FetchFollower' : 'FetchConsumer') : type;
    let stats = this.statsOfKind.get(kind);
    if (stats === undefined) {
      const api = requestMetricName(type);
      const names = type === 'Fetch' ? [kind, api] : [api];
      this.statsOfKind.set(kind, (stats = names.map((n) => this.stats(n))));
    }
    for (let i = 0; i < stats.length; i++) stats[i]!.rate.mark();
    if (!this.keepRequestTimes) return;
    let peer = this.inFlight.get(from);
    if (!peer) this.inFlight.set(from, (peer = new Map()));
    peer.set(correlationId, { stats, atUs: nowUs });
  }

  /** A response left for `to`: the request it answers is done (TotalTimeMs). */
  responseSent(to: string, correlationId: number, nowUs: Micros): void {
    const peer = this.inFlight.get(to);
    const r = peer?.get(correlationId);
    if (!r) return;
    peer!.delete(correlationId);
    const ms = (nowUs - r.atUs) / 1000;
    for (let i = 0; i < r.stats.length; i++) r.stats[i]!.time.record(ms);
  }

  /** A peer's connection closed: the requests it had in flight are never answered. */
  peerGone(peer: string): void {
    this.inFlight.delete(peer);
  }

  private stats(name: string): RequestStats {
    let s = this.requests.get(name);
    if (!s) this.requests.set(name, (s = { rate: new Meter(this.lastSampleUs), time: new IntervalHistogram() }));
    return s;
  }

  sample(nowUs: Micros, gauges: PartitionGauges): Record<string, number> {
    this.lastSampleUs = nowUs;
    const out: Record<string, number> = {
      ...gauges,
      IsrShrinksPerSec: this.isrShrinks.read(nowUs),
      IsrExpandsPerSec: this.isrExpands.read(nowUs),
      MessagesInPerSec: this.messagesIn.read(nowUs),
      BytesInPerSec: this.bytesIn.read(nowUs),
      BytesOutPerSec: this.bytesOut.read(nowUs),
      ReplicationBytesInPerSec: this.replicationBytesIn.read(nowUs),
      ReplicationBytesOutPerSec: this.replicationBytesOut.read(nowUs),
    };
    for (const name of [...this.requests.keys()].sort()) {
      const s = this.requests.get(name)!;
      out[`RequestsPerSec.${name}`] = s.rate.read(nowUs);
      const t = s.time.read();
      if (t) {
        out[`TotalTimeMs.p50.${name}`] = t.p50;
        out[`TotalTimeMs.p99.${name}`] = t.p99;
        out[`TotalTimeMs.p999.${name}`] = t.p999;
      }
    }
    return out;
  }
}
