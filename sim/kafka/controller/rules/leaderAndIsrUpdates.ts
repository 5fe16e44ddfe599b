import type { MetadataView } from '../../metadata/metadataImage';
import type { TopicIdPartition } from '../../metadata/partitionRegistration';
import { NO_LEADER, type MetadataRecord } from '../../metadata/records';
import type { PartitionElection } from './controllerResult';
import { buildPartitionChange } from './partitionChangeBuilder';

export interface LeaderAndIsrUpdate {
  /** Why (Kafka's context string), carried into the elections for the trace. */
  readonly reason: string;
  /** A broker leaving: removed from each target ISR and never an acceptable leader; NO_LEADER for none. */
  readonly brokerToRemove: number;
  /** A broker becoming able to lead: acceptable even though the image still shows it fenced; NO_LEADER for none. */
  readonly brokerToAdd: number;
  /** A broker that re-registered after an unclean shutdown: out of ISR and ELR, not acceptable; NO_LEADER for none. */
  readonly brokerWithUncleanShutdown: number;
}

/**
 * Re-runs the partition change for each given partition after a broker event: target ISR = ISR without the
 * removed and the uncleanly shut down broker, election UNCLEAN when the topic allows it, else ONLINE, and the
 * ELR rules with the topic's effective min ISR. Appends the records and elections to `records` / `elections`.
 * [metadata/.../controller/ReplicationControlManager.java `generateLeaderAndIsrUpdates`]
 */
export function generateLeaderAndIsrUpdates(
  image: MetadataView,
  update: LeaderAndIsrUpdate,
  partitions: readonly TopicIdPartition[],
  records: MetadataRecord[],
  elections: PartitionElection[],
): void {
  const { brokerToRemove, brokerToAdd, brokerWithUncleanShutdown } = update;
  const isAcceptableLeader = (r: number): boolean =>
    r !== brokerToRemove && r !== brokerWithUncleanShutdown && ((r === brokerToAdd && r !== NO_LEADER) || image.isActive(r));
  const elrEnabled = image.elrEnabled();
  const uncleanShutdownReplicas = brokerWithUncleanShutdown === NO_LEADER ? [] : [brokerWithUncleanShutdown];
  for (const tp of partitions) {
    const topic = image.topicById(tp.topicId);
    const partition = topic?.partitions[tp.partitionId];
    if (!topic || !partition) throw new Error(`generateLeaderAndIsrUpdates: no partition ${tp.topicId}:${tp.partitionId}`);
    const change = buildPartitionChange({
      topicId: tp.topicId,
      partitionId: tp.partitionId,
      partition,
      isAcceptableLeader,
      minIsr: image.effectiveMinIsr(topic.name),
      elrEnabled,
      election: image.uncleanLeaderElectionEnabled(topic.name) ? 'UNCLEAN' : 'ONLINE',
      targetIsr: partition.isr.filter((r) => r !== brokerToRemove && r !== brokerWithUncleanShutdown),
      uncleanShutdownReplicas,
    });
    if (change.record) records.push(change.record);
    if (change.leaderChange) {
      elections.push({ topicId: tp.topicId, topicName: topic.name, partitionId: tp.partitionId, ...change.leaderChange, reason: update.reason });
    }
  }
}
