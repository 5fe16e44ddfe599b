/**
 * What a classic member gives up and takes on around a rebalance, under the eager and the cooperative protocol.
 * [clients/.../consumer/internals/ConsumerCoordinator.java `onJoinPrepare`, `onJoinComplete`]
 */
import type { RebalanceProtocol } from './assignors/consumerPartitionAssignor';
import { tpKey, type TopicPartition } from '../../protocol';

export interface BeforeJoin {
  /** Handed over cleanly (onPartitionsRevoked: commits may still be made for them). */
  readonly revoked: readonly TopicPartition[];
  /** Lost: the member is no longer in the group, someone else may own them already (onPartitionsLost). */
  readonly lost: readonly TopicPartition[];
  /** Still owned while the member rejoins. */
  readonly kept: readonly TopicPartition[];
}

/**
 * Before JoinGroup: a member whose generation was reset has lost everything; otherwise eager members revoke
 * everything, cooperative members only what they no longer subscribe to.
 */
export function beforeJoin(
  protocol: RebalanceProtocol,
  owned: readonly TopicPartition[],
  subscribedTopics: readonly string[],
  generationValid: boolean,
): BeforeJoin {
  if (!generationValid) return { revoked: [], lost: owned, kept: [] };
  if (protocol === 'EAGER') return { revoked: owned, lost: [], kept: [] };
  const subscribed = new Set(subscribedTopics);
  return {
    revoked: owned.filter((tp) => !subscribed.has(tp.topic)),
    lost: [],
    kept: owned.filter((tp) => subscribed.has(tp.topic)),
  };
}

export interface AfterSync {
  /** Assigned and not owned before. */
  readonly added: readonly TopicPartition[];
  /** Owned before and not assigned now (cooperative: revoke them, then rejoin). */
  readonly revoked: readonly TopicPartition[];
  /** The cooperative protocol rejoins after revoking anything. */
  readonly rejoin: boolean;
}

/** After SyncGroup: the new assignment against what the member still owns. */
export function afterSync(protocol: RebalanceProtocol, owned: readonly TopicPartition[], assigned: readonly TopicPartition[]): AfterSync {
  const ownedKeys = new Set(owned.map((tp) => tpKey(tp.topic, tp.partition)));
  const assignedKeys = new Set(assigned.map((tp) => tpKey(tp.topic, tp.partition)));
  const added = assigned.filter((tp) => !ownedKeys.has(tpKey(tp.topic, tp.partition)));
  // Eager members own nothing here (they revoked everything before joining).
  const revoked = owned.filter((tp) => !assignedKeys.has(tpKey(tp.topic, tp.partition)));
  return { added, revoked, rejoin: protocol === 'COOPERATIVE' && revoked.length > 0 };
}
