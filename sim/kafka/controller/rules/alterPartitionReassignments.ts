import type { KafkaError } from '../../errors';
import type { MetadataView, TopicImage } from '../../metadata/metadataImage';
import type { PartitionRegistration } from '../../metadata/partitionRegistration';
import type { ControllerResult } from './controllerResult';
import { manualAssignmentError } from './createTopic';
import { buildPartitionChange } from './partitionChangeBuilder';
import { isReassignmentInProgress, reassignmentReplicas, reassignmentRevert } from './partitionReassignmentReplicas';

/** One partition of an AlterPartitionReassignments request: the target replicas, or null to cancel. */
export interface ReassignablePartition {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[] | null;
}

export interface ReassignablePartitionResult {
  readonly topic: string;
  readonly partition: number;
  readonly error: KafkaError;
  readonly message: string;
}

/** One reassignment in progress, as ListPartitionReassignments answers. */
export interface OngoingReassignment {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
}

class ReassignmentError extends Error {
  constructor(
    readonly error: KafkaError,
    message: string,
  ) {
    super(message);
  }
}

/** [ReplicationControlManager.java `validateManualPartitionAssignment`] */
function validateAssignment(image: MetadataView, replicas: readonly number[]): void {
  const error = manualAssignmentError(image, replicas);
  if (error) throw new ReassignmentError('INVALID_REPLICA_ASSIGNMENT', error);
}

/**
 * Start (or replace) a reassignment: the replica list becomes target + removed, with adding/removing set; the
 * new replicas start as followers and catch up, and the change that brings the last of them into the ISR
 * completes it (PartitionChangeBuilder). A reorder of replicas already in sync completes at once.
 * [ReplicationControlManager.java `changePartitionReassignment`]
 */
function changeReassignment(image: MetadataView, topic: TopicImage, partitionId: number, p: PartitionRegistration, target: readonly number[]) {
  validateAssignment(image, target);
  const r = reassignmentReplicas(p.replicas, target);
  return buildPartitionChange({
    topicId: topic.topicId,
    partitionId,
    partition: p,
    isAcceptableLeader: (b) => image.isActive(b),
    minIsr: image.effectiveMinIsr(topic.name),
    elrEnabled: image.elrEnabled(),
    targetReplicas: r.replicas,
    targetRemoving: r.removing,
    targetAdding: r.adding,
  });
}

/** kafka-reassign-partitions --cancel: back to the original replicas. [ReplicationControlManager.java `cancelPartitionReassignment`] */
function cancelReassignment(image: MetadataView, topic: TopicImage, partitionId: number, p: PartitionRegistration) {
  if (!isReassignmentInProgress({ removing: p.removingReplicas, adding: p.addingReplicas })) {
    throw new ReassignmentError('NO_REASSIGNMENT_IN_PROGRESS', 'No partition reassignment is in progress for this topic-partition.');
  }
  const revert = reassignmentRevert({ replicas: p.replicas, removing: p.removingReplicas, adding: p.addingReplicas }, p.isr);
  const unclean = image.uncleanLeaderElectionEnabled(topic.name);
  if (revert.unclean && !unclean) {
    throw new ReassignmentError('INVALID_REPLICA_ASSIGNMENT', `Unable to revert partition assignment for ${topic.name}:${partitionId} because it would require an unclean leader election.`);
  }
  return buildPartitionChange({
    topicId: topic.topicId,
    partitionId,
    partition: p,
    isAcceptableLeader: (b) => image.isActive(b),
    minIsr: image.effectiveMinIsr(topic.name),
    elrEnabled: image.elrEnabled(),
    election: unclean ? 'UNCLEAN' : 'ONLINE',
    targetIsr: revert.isr,
    targetReplicas: revert.replicas,
    targetRemoving: [],
    targetAdding: [],
  });
}

/**
 * AlterPartitionReassignments: each partition succeeds or fails on its own, and the records of the ones that
 * succeed are written together. [ReplicationControlManager.java `alterPartitionReassignments`, `alterPartitionReassignment`]
 */
export function alterPartitionReassignments(image: MetadataView, request: readonly ReassignablePartition[]): ControllerResult<ReassignablePartitionResult[]> {
  const result: ControllerResult<ReassignablePartitionResult[]> = { records: [], response: [], elections: [] };
  for (const r of request) {
    try {
      const topic = image.topicByName(r.topic);
      if (!topic) throw new ReassignmentError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find a topic named ${r.topic}.`);
      const p = topic.partitions[r.partition];
      if (!p) throw new ReassignmentError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition ${r.topic}:${r.partition}.`);
      const change = r.replicas === null ? cancelReassignment(image, topic, r.partition, p) : changeReassignment(image, topic, r.partition, p, r.replicas);
      if (change.record) result.records.push(change.record);
      if (change.leaderChange) {
        result.elections.push({ topicId: topic.topicId, topicName: topic.name, partitionId: r.partition, ...change.leaderChange, reason: 'alterPartitionReassignment' });
      }
      result.response.push({ topic: r.topic, partition: r.partition, error: 'NONE', message: '' });
    } catch (e) {
      if (!(e instanceof ReassignmentError)) throw e;
      result.response.push({ topic: r.topic, partition: r.partition, error: e.error, message: e.message });
    }
  }
  return result;
}

/** ListPartitionReassignments: every partition with a reassignment in progress, in topic then partition order. [`listPartitionReassignments`] */
export function listPartitionReassignments(image: MetadataView): OngoingReassignment[] {
  const out: OngoingReassignment[] = [];
  for (const t of image.topics()) {
    t.partitions.forEach((p, partition) => {
      if (isReassignmentInProgress({ removing: p.removingReplicas, adding: p.addingReplicas })) {
        out.push({ topic: t.name, partition, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas });
      }
    });
  }
  return out;
}
