import type { MetadataView } from '../../metadata/metadataImage';
import type { ControllerResult } from './controllerResult';
import { buildPartitionChange } from './partitionChangeBuilder';

/** Kafka's MAX_ELECTIONS_PER_IMBALANCE: records one rebalance run may generate. */
export const MAX_ELECTIONS_PER_IMBALANCE = 1000;

/**
 * One run of the auto leader rebalance (auto.leader.rebalance.enable, every
 * leader.imbalance.check.interval.seconds): a PREFERRED election for each partition not led by its preferred
 * replica, in topic-creation then partition order, stopping at `maxRecords` records. Leadership moves only
 * where the preferred replica is a valid leader. The response is true when the cap was hit: the controller
 * should run again at once instead of waiting for the interval (Kafka waits 10 ms).
 * [metadata/.../controller/ReplicationControlManager.java `maybeBalancePartitionLeaders`,
 * `maybeTriggerLeaderChangeForPartitionsWithoutPreferredLeader`]
 */
export function maybeBalancePartitionLeaders(image: MetadataView, maxRecords = MAX_ELECTIONS_PER_IMBALANCE): ControllerResult<boolean> {
  const result: ControllerResult<boolean> = { records: [], response: false, elections: [] };
  const elrEnabled = image.elrEnabled();
  const isAcceptableLeader = (r: number): boolean => image.isActive(r);
  for (const tp of image.imbalancedPartitions()) {
    if (result.records.length >= maxRecords) break;
    const topic = image.topicById(tp.topicId);
    const partition = topic?.partitions[tp.partitionId];
    if (!topic || !partition) continue;
    const change = buildPartitionChange({
      topicId: tp.topicId,
      partitionId: tp.partitionId,
      partition,
      isAcceptableLeader,
      minIsr: image.effectiveMinIsr(topic.name),
      elrEnabled,
      election: 'PREFERRED',
    });
    if (change.record) result.records.push(change.record);
    if (change.leaderChange) {
      result.elections.push({ topicId: tp.topicId, topicName: topic.name, partitionId: tp.partitionId, ...change.leaderChange, reason: 'maybeBalancePartitionLeaders' });
    }
  }
  return { ...result, response: result.records.length >= maxRecords };
}
