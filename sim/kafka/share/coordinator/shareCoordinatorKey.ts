/**
 * Which partition of `__share_group_state` holds a share-partition's state: its leader is that key's share
 * coordinator. The key is "group:topicId:partition" (the topic id, not its name).
 * [src: share-coordinator/.../ShareCoordinatorService.java `partitionFor`; server-common/.../share/SharePartitionKey.java `asCoordinatorKey`]
 */
import { javaStringHashCode, kafkaAbs } from '../../coordinator/groupCoordinatorPartition';

/** Kafka's internal topic of share-group state. [clients/.../common/internals/Topic.java `SHARE_GROUP_STATE_TOPIC_NAME`] */
export const SHARE_GROUP_STATE_TOPIC = '__share_group_state';

/** `Utils.abs(key.asCoordinatorKey().hashCode()) % share.coordinator.state.topic.num.partitions`. */
export function shareStatePartition(groupId: string, topicId: string, partition: number, numPartitions: number): number {
  return kafkaAbs(javaStringHashCode(`${groupId}:${topicId}:${partition}`)) % numPartitions;
}
