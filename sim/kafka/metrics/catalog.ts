/**
 * The metrics series an actor samples into the trace (`metrics.sample`), each under a short key, with the JMX
 * name Kafka gives it, how it is exported as Prometheus text, and how an alert rule combines it across actors.
 *
 * Keys: a family name (`UnderReplicatedPartitions`, `records-lag-max`), for request metrics with the API after
 * a dot and the percentile before it (`RequestsPerSec.Produce`, `TotalTimeMs.p99.FetchConsumer`).
 * [core/src/main/scala/kafka/server/ReplicaManager.scala (gauges, IsrShrinksPerSec); BrokerTopicStats
 *  (BrokerTopicMetrics); network/RequestChannel.scala RequestMetrics; metadata/.../controller/metrics/
 *  ControllerMetadataMetrics.java, QuorumControllerMetrics.java; clients/.../producer/internals/SenderMetricsRegistry.java;
 *  clients/.../consumer/internals/FetchMetricsRegistry.java, ConsumerCoordinator metrics]
 */

export type MetricRole = 'broker' | 'controller' | 'producer' | 'consumer';
/** How a rule over a series combines the actors sampled at one moment when it names none. */
export type Aggregate = 'sum' | 'max' | 'min';

export interface MetricFamily {
  readonly name: string;
  readonly role: MetricRole;
  /** The JMX ObjectName; `{request}` and `{client-id}` are filled in per series. */
  readonly mbean: string;
  /** The MBean attribute the value is read from. */
  readonly attribute: string;
  readonly kind: 'gauge' | 'rate' | 'latency';
  readonly unit: string;
  readonly aggregate: Aggregate;
  readonly help: string;
  /** Not a Kafka metric: the simulator's own (its name says what it measures). */
  readonly simulatorOnly?: true;
}

const RM = 'kafka.server:type=ReplicaManager,name=';
const BTM = 'kafka.server:type=BrokerTopicMetrics,name=';
const KC = 'kafka.controller:type=KafkaController,name=';
const PRODUCER = 'kafka.producer:type=producer-metrics,client-id={client-id}';
const FETCH = 'kafka.consumer:type=consumer-fetch-manager-metrics,client-id={client-id}';
const COORD = 'kafka.consumer:type=consumer-coordinator-metrics,client-id={client-id}';

function gauge(role: MetricRole, name: string, mbean: string, aggregate: Aggregate, help: string, unit = 'partitions'): MetricFamily {
  return { name, role, mbean, attribute: 'Value', kind: 'gauge', unit, aggregate, help };
}
function meter(role: MetricRole, name: string, mbean: string, help: string, unit: string): MetricFamily {
  return { name, role, mbean, attribute: 'Count (as a rate per second over the sample interval)', kind: 'rate', unit, aggregate: 'sum', help };
}
function client(role: MetricRole, name: string, mbean: string, kind: MetricFamily['kind'], unit: string, aggregate: Aggregate, help: string): MetricFamily {
  return { name, role, mbean, attribute: name, kind, unit, aggregate, help };
}
function requestTime(percentile: 'p50' | 'p99' | 'p999', attribute: string, help: string): MetricFamily {
  return { name: `TotalTimeMs.${percentile}`, role: 'broker', mbean: 'kafka.network:type=RequestMetrics,name=TotalTimeMs,request={request}', attribute, kind: 'latency', unit: 'ms', aggregate: 'max', help };
}

export const METRIC_FAMILIES: readonly MetricFamily[] = [
  // ---- broker: kafka.server ReplicaManager gauges, from the partitions this broker leads or holds ----
  gauge('broker', 'UnderReplicatedPartitions', `${RM}UnderReplicatedPartitions`, 'sum', 'partitions this broker leads whose ISR is smaller than the replication factor (adding replicas not counted)'),
  gauge('broker', 'UnderMinIsrPartitionCount', `${RM}UnderMinIsrPartitionCount`, 'sum', 'partitions this broker leads whose ISR is below min.insync.replicas: acks=all writes fail with NOT_ENOUGH_REPLICAS'),
  gauge('broker', 'AtMinIsrPartitionCount', `${RM}AtMinIsrPartitionCount`, 'sum', 'partitions this broker leads whose ISR is exactly min.insync.replicas: one more loss stops acks=all writes'),
  gauge('broker', 'LeaderCount', `${RM}LeaderCount`, 'sum', 'partitions this broker leads'),
  gauge('broker', 'PartitionCount', `${RM}PartitionCount`, 'sum', 'replicas this broker holds'),
  gauge('broker', 'ReassigningPartitions', `${RM}ReassigningPartitions`, 'sum', 'partitions this broker leads that are being reassigned'),
  meter('broker', 'IsrShrinksPerSec', `${RM}IsrShrinksPerSec`, 'ISR shrinks this broker committed as leader', 'shrinks/s'),
  meter('broker', 'IsrExpandsPerSec', `${RM}IsrExpandsPerSec`, 'ISR expansions this broker committed as leader', 'expands/s'),
  // ---- broker: BrokerTopicMetrics (all topics) ----
  meter('broker', 'MessagesInPerSec', `${BTM}MessagesInPerSec`, 'records appended as leader', 'records/s'),
  meter('broker', 'BytesInPerSec', `${BTM}BytesInPerSec`, 'bytes appended as leader from clients', 'bytes/s'),
  meter('broker', 'BytesOutPerSec', `${BTM}BytesOutPerSec`, 'bytes sent to consumers', 'bytes/s'),
  meter('broker', 'ReplicationBytesInPerSec', `${BTM}ReplicationBytesInPerSec`, 'bytes appended as follower', 'bytes/s'),
  meter('broker', 'ReplicationBytesOutPerSec', `${BTM}ReplicationBytesOutPerSec`, 'bytes sent to followers', 'bytes/s'),
  // ---- broker: kafka.network RequestMetrics, per API (the key adds .<request>) ----
  meter('broker', 'RequestsPerSec', 'kafka.network:type=RequestMetrics,name=RequestsPerSec,request={request}', 'requests received', 'requests/s'),
  requestTime('p50', '50thPercentile', 'median time from receipt to response sent, waiting in purgatory included (a Fetch waits up to fetch.max.wait.ms)'),
  requestTime('p99', '99thPercentile', '99th percentile of the same'),
  requestTime('p999', '999thPercentile', '99.9th percentile of the same'),
  // ---- controller: every controller computes these from the metadata it has applied ----
  gauge('controller', 'ActiveControllerCount', `${KC}ActiveControllerCount`, 'sum', '1 on the active controller, 0 elsewhere: the sum over the quorum should be 1', 'controllers'),
  gauge('controller', 'OfflinePartitionsCount', `${KC}OfflinePartitionsCount`, 'max', 'partitions without a leader: nobody can write or read them'),
  gauge('controller', 'PreferredReplicaImbalanceCount', `${KC}PreferredReplicaImbalanceCount`, 'max', 'partitions not led by their preferred (first) replica'),
  gauge('controller', 'GlobalPartitionCount', `${KC}GlobalPartitionCount`, 'max', 'partitions in the cluster'),
  gauge('controller', 'GlobalTopicCount', `${KC}GlobalTopicCount`, 'max', 'topics in the cluster', 'topics'),
  gauge('controller', 'FencedBrokerCount', `${KC}FencedBrokerCount`, 'max', 'registered brokers that are fenced', 'brokers'),
  gauge('controller', 'ActiveBrokerCount', `${KC}ActiveBrokerCount`, 'max', 'registered brokers that are unfenced', 'brokers'),
  meter('controller', 'UncleanLeaderElectionsPerSec', 'kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec', 'leaders elected from outside the ISR', 'elections/s'),
  // ---- controller: KafkaRaftMetrics of the metadata log, on every controller ----
  client('controller', 'log-end-offset', 'kafka.server:type=raft-metrics', 'gauge', 'offset', 'max', "this controller's metadata log end offset: a voter far below the leader's is behind"),
  client('controller', 'high-watermark', 'kafka.server:type=raft-metrics', 'gauge', 'offset', 'max', 'the committed end of the metadata log as this controller knows it (-1 before it knows)'),
  client('controller', 'current-epoch', 'kafka.server:type=raft-metrics', 'gauge', 'epoch', 'max', 'the quorum epoch this controller is in: a rise is an election'),
  // ---- producer ----
  client('producer', 'record-send-rate', PRODUCER, 'rate', 'records/s', 'sum', 'records sent to brokers'),
  client('producer', 'record-retry-rate', PRODUCER, 'rate', 'records/s', 'sum', 'records sent again after a retriable error'),
  client('producer', 'record-error-rate', PRODUCER, 'rate', 'records/s', 'sum', 'records whose send failed for good'),
  client('producer', 'request-latency-avg', PRODUCER, 'latency', 'ms', 'max', 'mean time from a Produce request to its response'),
  client('producer', 'request-latency-max', PRODUCER, 'latency', 'ms', 'max', 'longest time from a Produce request to its response'),
  // ---- consumer ----
  client('consumer', 'records-lag-max', FETCH, 'gauge', 'records', 'max', 'largest high watermark minus position over the assigned partitions'),
  client('consumer', 'records-lead-min', FETCH, 'gauge', 'records', 'min', 'smallest position minus log start offset: near 0, retention is about to delete what the consumer has not read'),
  client('consumer', 'records-consumed-rate', FETCH, 'rate', 'records/s', 'sum', 'records returned by poll()'),
  client('consumer', 'assigned-partitions', COORD, 'gauge', 'partitions', 'sum', 'partitions assigned to this consumer'),
  {
    ...client('consumer', 'lag-time-ms', 'kafkasim:type=consumer,client-id={client-id}', 'latency', 'ms', 'max', 'while it lags: how long ago the last record poll() returned was written (its timestamp); 0 when caught up (as lag exporters estimate lag in time)'),
    simulatorOnly: true,
  },
];

const BY_NAME = new Map(METRIC_FAMILIES.map((f) => [f.name, f]));

/** The request names Kafka's RequestMetrics uses, from the simulator's request types. */
export function requestMetricName(type: string): string {
  return type === 'OffsetsForLeaderEpoch' ? 'OffsetForLeaderEpoch' : type;
}

export interface SeriesKey {
  readonly family: MetricFamily;
  /** For request metrics: the API. */
  readonly request: string | null;
}

/** The family and API of a trace key, or null for a key no family has. */
export function parseSeriesKey(key: string): SeriesKey | null {
  const direct = BY_NAME.get(key);
  if (direct) return { family: direct, request: null };
  const dot = key.lastIndexOf('.');
  if (dot < 0) return null;
  const family = BY_NAME.get(key.slice(0, dot));
  if (!family || !family.mbean.includes('{request}')) return null;
  return { family, request: key.slice(dot + 1) };
}

/** The JMX ObjectName of a series as an actor reports it. */
export function mbeanOf(key: SeriesKey, clientId: string): string {
  return key.family.mbean.replace('{request}', key.request ?? '').replace('{client-id}', clientId);
}

/**
 * The Prometheus name and labels of a series, as the JMX exporter's usual Kafka rules write them: domain, type
 * and name lower-cased and joined by underscores, the request and client id as labels, a percentile as
 * `quantile`, and the actor as `instance`.
 */
export function prometheusOf(key: SeriesKey, instance: string): { name: string; labels: Record<string, string> } {
  const f = key.family;
  const labels: Record<string, string> = { instance };
  const m = /^([^:]+):type=([^,]+)(?:,name=([^,]+))?/.exec(f.mbean)!;
  const domain = m[1]!.replace(/\W+/g, '_');
  const type = m[2]!.replace(/\W+/g, '_');
  let name: string;
  if (f.role === 'producer' || f.role === 'consumer') {
    name = `${domain}_${type}_${f.name.replace(/\W+/g, '_')}`;
    labels['client_id'] = instance;
  } else {
    const base = (m[3] ?? f.name).replace(/\W+/g, '_');
    name = `${domain}_${type}_${base}`;
    if (key.request !== null) labels['request'] = key.request;
    const q = /\.p(\d+)$/.exec(f.name);
    if (q) labels['quantile'] = q[1] === '50' ? '0.50' : q[1] === '99' ? '0.99' : '0.999';
  }
  return { name: name.toLowerCase(), labels };
}
