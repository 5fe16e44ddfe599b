/**
 * The controller's timer settings with Kafka 4.x names and defaults, as the controller process reads them from
 * its broker config (sim/kafka/config holds the full definitions).
 * [server/.../config/KRaftConfigs.java; ReplicationConfigs.java; QuorumController.java]
 */
export interface ControllerTimerConfig {
  /** broker.heartbeat.interval.ms */
  readonly brokerHeartbeatIntervalMs: number;
  /** broker.session.timeout.ms */
  readonly brokerSessionTimeoutMs: number;
  /** auto.leader.rebalance.enable */
  readonly autoLeaderRebalanceEnable: boolean;
  /** leader.imbalance.check.interval.seconds */
  readonly leaderImbalanceCheckIntervalSeconds: number;
  /** unclean.leader.election.interval.ms */
  readonly uncleanLeaderElectionIntervalMs: number;
}

export const KAFKA_CONTROLLER_TIMER_DEFAULTS: ControllerTimerConfig = {
  brokerHeartbeatIntervalMs: 2000,
  brokerSessionTimeoutMs: 9000,
  autoLeaderRebalanceEnable: true,
  leaderImbalanceCheckIntervalSeconds: 300,
  uncleanLeaderElectionIntervalMs: 300_000,
};

/** A rebalance run that hit MAX_ELECTIONS_PER_IMBALANCE runs again after this instead of the interval. */
export const IMMEDIATE_RESCHEDULE_MS = 10;
