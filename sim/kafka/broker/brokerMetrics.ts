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

/** The metric names a request counts under, by request type (and follower or consumer Fetch): built once each. */
const NAMES = new Map<string, readonly string[]>();

function metricNamesOf(type: string, followerFetch: boolean): readonly string[] {
  const key = type === 'Fetch' ? (followerFetch ? 'Fetch/follower' : 'Fetch/consumer') : type;
  let names = NAMES.get(key);
  if (names === undefined) {
    const api = requestMetricName(type);
    names = type === 'Fetch' ? [followerFetch ? 'FetchFollower' : 'FetchConsumer', api] : [api];
    NAMES.set(key, names);
  }
  return names;
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
  /** Requests being served: peer -> correlation id -> (metric names, receipt time). */
  private readonly inFlight = new Map<string, Map<number, { names: readonly string[]; atUs: Micros }>>();

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
    const names = metricNamesOf(type, followerFetch);
    for (const n of names) this.stats(n).rate.mark();
    if (!this.keepRequestTimes) return;
    let peer = this.inFlight.get(from);
    if (!peer) this.inFlight.set(from, (peer = new Map()));
    peer.set(correlationId, { names, atUs: nowUs });
  }

  /** A response left for `to`: the request it answers is done (TotalTimeMs). */
  responseSent(to: string, correlationId: number, nowUs: Micros): void {
    const peer = this.inFlight.get(to);
    const r = peer?.get(correlationId);
    if (!r) return;
    peer!.delete(correlationId);
    const ms = (nowUs - r.atUs) / 1000;
    for (const n of r.names) this.stats(n).time.record(ms);
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
