import { ValidationError } from '../core/validate';
import type { ClusterBootError } from '../kafka/cluster';
import { BROKER_CONFIGS } from '../kafka/config/configs';
import type { ResolvedCluster } from './validate';

/**
 * What a cluster that did not boot says: the settings the scenario changed from the defaults — broker configs,
 * the network's latencies, the disk's — are what prevents it (a cluster of defaults always boots), with the
 * reason when it is a known one. Kafka accepts each of these values on its own (its validators are atLeast(0) or
 * none), so the run is refused here, where it is known that it cannot start, rather than by the validator.
 */
export function bootFailure(e: ClusterBootError, cluster: ResolvedCluster): Error {
  const c = cluster.brokerConfig;
  const changedConfigs = Object.keys(cluster.brokerOverrides).filter((k) => c[k as keyof typeof c] !== BROKER_CONFIGS[k as keyof typeof BROKER_CONFIGS]?.default);
  const changedWorld = [
    ...Object.entries(cluster.network ?? {}).map(([k, v]) => `cluster.network.${k}=${String(v)}`),
    ...Object.entries(cluster.disk ?? {}).map(([k, v]) => `cluster.disk.${k}=${String(v)}`),
  ];
  if (changedConfigs.length === 0 && changedWorld.length === 0) return e; // not the scenario's doing: an internal error
  const reasons: string[] = [];
  // A broker is fenced when no heartbeat came within the session timeout [BrokerHeartbeatManager `isExpired`].
  if (c['broker.session.timeout.ms'] <= c['broker.heartbeat.interval.ms']) {
    reasons.push(`broker.session.timeout.ms=${c['broker.session.timeout.ms']} is not longer than broker.heartbeat.interval.ms=${c['broker.heartbeat.interval.ms']}, so a broker is fenced between two heartbeats`);
  }
  // Raft: a follower that fetches nothing within the fetch timeout starts an election; a request that takes
  // longer than the request timeout is abandoned; both are far below a network round trip here.
  for (const k of ['controller.quorum.fetch.timeout.ms', 'controller.quorum.election.timeout.ms', 'controller.quorum.request.timeout.ms'] as const) {
    if (c[k] < 10) reasons.push(`${k}=${c[k]} leaves the controller quorum no time for a round trip, so it never keeps a leader`);
  }
  // A round trip slower than the controller request timeout: brokers' registrations and heartbeats time out.
  const latency = Math.max(cluster.network?.sameZoneLatencyMs ?? 0, cluster.network?.crossZoneLatencyMs ?? 0);
  if (2 * latency >= c['controller.quorum.request.timeout.ms']) {
    reasons.push(`a network round trip of ${2 * latency} ms is not shorter than controller.quorum.request.timeout.ms=${c['controller.quorum.request.timeout.ms']}, so requests to the controllers time out`);
  }
  const settings = [...changedConfigs.map((k) => `${k}=${String(c[k as keyof typeof c])}`), ...changedWorld].join(', ');
  const path = changedWorld.length === 0 ? 'cluster.broker' : 'cluster';
  return new ValidationError(
    path,
    settings,
    changedWorld.length === 0 ? 'broker configs with which the cluster can start' : 'settings with which the cluster can start',
    `the cluster did not boot within ${e.limitMs / 1000} s of simulated time: ${e.phase}${reasons.length > 0 ? `; ${reasons.join('; ')}` : `; it boots with Kafka's defaults, so one of ${settings} prevents it`}`,
  );
}
