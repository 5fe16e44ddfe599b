import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import { mergePartitionChange, type PartitionRegistration } from '../../metadata/partitionRegistration';
import type { LeaderRecoveryState } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';
import { buildPartitionChange } from './partitionChangeBuilder';

/** One partition of an AlterPartition request (the leader proposing a new ISR). */
export interface AlterPartitionData {
  /** The requesting broker: it must be the partition's leader. */
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  /** The proposed ISR with each member's broker epoch as the leader knows it (-1: do not check). */
  readonly newIsr: readonly { readonly brokerId: number; readonly brokerEpoch: number }[];
  /** Default RECOVERED (the wire default). */
  readonly leaderRecoveryState?: LeaderRecoveryState;
}

export interface AlterPartitionReply {
  readonly error: KafkaError;
  /** The committed state after the change (only meaningful when error is NONE). */
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly partitionEpoch: number;
  readonly leaderRecoveryState: LeaderRecoveryState;
}

function sameMembers(replicas: readonly number[], isr: readonly number[]): boolean {
  // Replicas.validateIsr: no negative ids, no duplicates, every member a replica.
  const seen = new Set<number>();
  for (const r of isr) {
    if (r < 0 || seen.has(r) || !replicas.includes(r)) return false;
    seen.add(r);
  }
  return true;
}

/**
 * The checks, in Kafka's order: unknown partition; a request from the future (higher leader or partition epoch:
 * this controller is probably stale) -> NOT_CONTROLLER; stale leader epoch -> FENCED_LEADER_EPOCH; not from the
 * leader -> INVALID_REQUEST; stale partition epoch -> INVALID_UPDATE_VERSION; an ISR that is not a subset of
 * the replicas or lacks the leader, or a RECOVERING leader with more than itself in the ISR, or RECOVERED ->
 * RECOVERING -> INVALID_REQUEST; an ISR member that is unregistered, in controlled shutdown, fenced, or known
 * by a stale broker epoch -> INELIGIBLE_REPLICA (OPERATION_NOT_ATTEMPTED for request versions <= 1).
 * [metadata/.../controller/ReplicationControlManager.java `validateAlterPartitionData`, `ineligibleReplicasForIsr`]
 */
export function validateAlterPartition(image: MetadataView, request: AlterPartitionData, partition: PartitionRegistration | undefined): KafkaError {
  if (!partition) return 'UNKNOWN_TOPIC_OR_PARTITION';
  if (request.leaderEpoch > partition.leaderEpoch) return 'NOT_CONTROLLER';
  if (request.partitionEpoch > partition.partitionEpoch) return 'NOT_CONTROLLER';
  if (request.leaderEpoch < partition.leaderEpoch) return 'FENCED_LEADER_EPOCH';
  if (request.brokerId !== partition.leader) return 'INVALID_REQUEST';
  if (request.partitionEpoch < partition.partitionEpoch) return 'INVALID_UPDATE_VERSION';
  const newIsr = request.newIsr.map((b) => b.brokerId);
  if (!sameMembers(partition.replicas, newIsr)) return 'INVALID_REQUEST';
  if (!newIsr.includes(partition.leader)) return 'INVALID_REQUEST';
  const recovery = request.leaderRecoveryState ?? 'RECOVERED';
  if (recovery === 'RECOVERING' && newIsr.length > 1) return 'INVALID_REQUEST';
  if (partition.leaderRecoveryState === 'RECOVERED' && recovery === 'RECOVERING') return 'INVALID_REQUEST';
  for (const member of request.newIsr) {
    const registration = image.broker(member.brokerId);
    if (!registration || registration.inControlledShutdown || registration.fenced) return 'INELIGIBLE_REPLICA';
    if (member.brokerEpoch !== -1 && member.brokerEpoch !== registration.epoch) return 'INELIGIBLE_REPLICA';
  }
  return 'NONE';
}

function reply(error: KafkaError, p: PartitionRegistration | undefined): AlterPartitionReply {
  return {
    error,
    leaderId: p?.leader ?? -1,
    leaderEpoch: p?.leaderEpoch ?? -1,
    isr: p?.isr ?? [],
    partitionEpoch: p?.partitionEpoch ?? -1,
    leaderRecoveryState: p?.leaderRecoveryState ?? 'RECOVERED',
  };
}

/**
 * AlterPartition from a partition leader (ISR shrink or expand): check the requester's broker epoch
 * (STALE_BROKER_EPOCH), validate, then build the change with the ELR rules (a replica leaving the ISR below
 * min ISR joins the ELR; reaching min ISR clears it). The reply carries the state after the change, which the
 * leader adopts once the record is committed. Topics are named, so an unknown topic is
 * UNKNOWN_TOPIC_OR_PARTITION (Kafka's reply for request versions that name topics).
 * [metadata/.../controller/ReplicationControlManager.java `alterPartition`]
 */
export function alterPartition(image: MetadataView, request: AlterPartitionData): ControllerResult<AlterPartitionReply> {
  const requester = image.broker(request.brokerId);
  if (!requester || requester.epoch !== request.brokerEpoch) {
    return { records: [], response: reply('STALE_BROKER_EPOCH', undefined), elections: [] };
  }
  const topic = image.topicByName(request.topic);
  const partition = topic?.partitions[request.partition];
  const error = validateAlterPartition(image, request, partition);
  if (error !== 'NONE' || !topic || !partition) return { records: [], response: reply(error, undefined), elections: [] };

  const change = buildPartitionChange({
    topicId: topic.topicId,
    partitionId: request.partition,
    partition,
    isAcceptableLeader: (r) => image.isActive(r),
    minIsr: image.effectiveMinIsr(topic.name),
    elrEnabled: image.elrEnabled(),
    election: image.uncleanLeaderElectionEnabled(topic.name) ? 'UNCLEAN' : 'ONLINE',
    targetIsr: request.newIsr.map((b) => b.brokerId),
    targetLeaderRecoveryState: request.leaderRecoveryState ?? 'RECOVERED',
  });
  if (!change.record) return { records: [], response: reply('NONE', partition), elections: [] };
  const after = mergePartitionChange(partition, change.record);
  const elections = change.leaderChange
    ? [{ topicId: topic.topicId, topicName: topic.name, partitionId: request.partition, ...change.leaderChange, reason: 'alterPartition' }]
    : [];
  // The leader itself passed validation, so it stays; only a completed reassignment could move it.
  const response = change.leaderChange && after.leader !== request.brokerId ? reply('NEW_LEADER_ELECTED', undefined) : reply('NONE', after);
  return { records: [change.record], response, elections };
}
