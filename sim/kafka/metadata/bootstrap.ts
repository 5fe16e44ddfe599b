import { ELIGIBLE_LEADER_REPLICAS_VERSION, ELRV_1 } from './features';
import type { MetadataRecord } from './records';

export interface BootstrapOptions {
  /**
   * KIP-966 Eligible Leader Replicas. On by default: new clusters get eligible.leader.replicas.version=1 since
   * Kafka 4.1 (docs 4.1 operations, eligible-leader-replicas). False models a 4.0 cluster or one that kept it off.
   */
  readonly eligibleLeaderReplicas?: boolean;
  /** min.insync.replicas of the static config; with ELR on it becomes the cluster-level config. Default 1. */
  readonly minInsyncReplicas?: number;
  /** Further cluster-wide dynamic configs (BROKER resource ''), e.g. unclean.leader.election.enable. */
  readonly clusterConfigs?: Readonly<Record<string, string>>;
  /** Group configs (GROUP resources) an operator set before any client ran: group id -> name -> value. */
  readonly groupConfigs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/**
 * The records a freshly formatted cluster starts its metadata log with: the finalized feature levels,
 * with ELR on a cluster-level min.insync.replicas (ELR requires one rather than per-broker values), and the
 * scenario's group configs (as if kafka-configs --entity-type groups ran before the clients started).
 * [metadata/.../controller/ConfigurationControlManager.java `maybeGenerateElrSafetyRecords`;
 * metadata/.../bootstrap/BootstrapMetadata.java]
 */
export function bootstrapRecords(options: BootstrapOptions = {}): MetadataRecord[] {
  const elr = options.eligibleLeaderReplicas ?? true;
  const records: MetadataRecord[] = [];
  if (elr) {
    records.push({ type: 'FeatureLevelRecord', name: ELIGIBLE_LEADER_REPLICAS_VERSION, featureLevel: ELRV_1 });
  }
  const cluster = { ...(options.clusterConfigs ?? {}) };
  if (elr && cluster['min.insync.replicas'] === undefined) {
    cluster['min.insync.replicas'] = String(options.minInsyncReplicas ?? 1);
  }
  for (const name of Object.keys(cluster).sort()) {
    records.push({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name, value: cluster[name]! });
  }
  for (const group of Object.keys(options.groupConfigs ?? {}).sort()) {
    const configs = options.groupConfigs![group]!;
    for (const name of Object.keys(configs).sort()) records.push({ type: 'ConfigRecord', resourceType: 'GROUP', resourceName: group, name, value: configs[name]! });
  }
  return records;
}
