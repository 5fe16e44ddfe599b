import { ValidationError } from '../core/validate';
import type { ClusterBootError } from '../kafka/cluster';
import { BROKER_CONFIGS } from '../kafka/config/configs';
import type { ResolvedCluster } from './validate';

/**
 * What a cluster that did not boot says: the broker configs the scenario changed from Kafka's defaults are
 * what prevents it (a cluster of defaults always boots), with the reason when it is a known one. Kafka
 * accepts each of these values on its own (its validators are atLeast(0) or none), so the run is refused
 * here, where it is known that it cannot start, rather than by the validator.
 */
export function bootFailure(e: ClusterBootError, cluster: ResolvedCluster): Error {
  const c = cluster.brokerConfig;
  const changed = Object.keys(cluster.brokerOverrides).filter((k) => c[k as keyof typeof c] !== BROKER_CONFIGS[k as keyof typeof BROKER_CONFIGS]?.default);
  if (changed.length === 0) return e; // not the scenario's doing: an internal error
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
  const set = changed.map((k) => `${k}=${String(c[k as keyof typeof c])}`).join(', ');
  return new ValidationError(
    'cluster.broker',
    set,
    'broker configs with which the cluster can start',
    `the cluster did not boot within ${e.limitMs / 1000} s of simulated time: ${e.phase}${reasons.length > 0 ? `; ${reasons.join('; ')}` : `; it boots with Kafka's defaults, so one of ${set} prevents it`}`,
  );
}
