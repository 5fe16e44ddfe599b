/**
 * Feature flags of the metadata log (FeatureLevelRecord names) that change controller rules.
 * [server-common/.../common/EligibleLeaderReplicasVersion.java]
 */

/** KIP-966 Eligible Leader Replicas: level 1 turns ELR on. On by default for new clusters since Kafka 4.1. */
export const ELIGIBLE_LEADER_REPLICAS_VERSION = 'eligible.leader.replicas.version';

/** The first level of eligible.leader.replicas.version that enables ELR (ELRV_1). */
export const ELRV_1 = 1;
