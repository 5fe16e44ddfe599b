/**
 * Online migration of a live group between the classic and the consumer protocol (KIP-848), as pure decisions.
 * Upgrade: the first ConsumerGroupHeartbeat to a classic group turns it into a consumer group that keeps the
 * generation as its epoch and every member with its partitions (STABLE, their assignment as their target), so
 * nothing is revoked by the conversion itself; the joining member then bumps the epoch. Downgrade: when the last
 * member speaking the consumer protocol leaves (or is fenced, or a classic static member takes its place), the
 * group becomes classic again, Stable at its epoch as generation with each member's target as its assignment, and
 * (unless a static member replaced it) starts a rebalance. group.consumer.migration.policy gates both.
 * [group-coordinator/.../GroupMetadataManager.java `validateOnlineUpgrade`, `convertToConsumerGroup`,
 * `validateOnlineDowngradeWithFencedMember`, `validateOnlineDowngradeWithReplacedMemberId`, `convertToClassicGroup`;
 * ConsumerGroup.java `fromClassicGroup`, `createConsumerGroupRecords`; ClassicGroup.java `fromConsumerGroup`;
 * ConsumerGroupMigrationPolicy.java]
 */
import type { JoinGroupProtocol, TopicPartition } from '../../protocol';
import type { CoordinatorRecord } from '../storage';
import { assignmentFromPartitions, assignmentPartitions, EMPTY_ASSIGNMENT } from './assignment';
import type { ConsumerGroup } from './consumerGroup';
import { metadataHashOf } from './consumerGroupHeartbeat';
import { type ConsumerGroupMember, type MemberSubscription } from './consumerGroupMember';
import { currentAssignmentRecord, groupEpochRecord, memberSubscriptionRecord, targetAssignmentEpochRecord, targetAssignmentRecord } from './consumerGroupRecords';

/** group.consumer.migration.policy [ConsumerGroupMigrationPolicy.java] */
export type MigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';

export const upgradeEnabled = (p: MigrationPolicy): boolean => p === 'bidirectional' || p === 'upgrade';
export const downgradeEnabled = (p: MigrationPolicy): boolean => p === 'bidirectional' || p === 'downgrade';

/** A classic group's members as a conversion reads or writes them. */
export interface ClassicMemberView {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly protocols: readonly JoinGroupProtocol[];
  readonly assignment: readonly TopicPartition[];
}

export interface ClassicGroupView {
  readonly groupId: string;
  readonly generationId: number;
  /** The protocol (assignor) the classic group chose; members' subscriptions are read from it. */
  readonly protocolName: string | null;
  readonly members: readonly ClassicMemberView[];
}

/** Why a live classic group may not be upgraded, or null. [GroupMetadataManager.java `validateOnlineUpgrade`] */
export function onlineUpgradeRefusal(policy: MigrationPolicy, classicSize: number, consumerMaxSize: number): string | null {
  if (!upgradeEnabled(policy)) return 'the online upgrade is disabled (group.consumer.migration.policy)';
  if (classicSize > consumerMaxSize) return 'the group size exceeds the consumer group maximum size (group.consumer.max.size)';
  return null;
}

/**
 * The records that create the consumer group of a classic one, in Kafka's order: every member's subscription,
 * the group epoch (the generation), every target (its current assignment), the assignment epoch, every current
 * assignment (STABLE at the generation). The classic group's tombstone comes first (the caller's).
 * [ConsumerGroup.java `fromClassicGroup`, `createConsumerGroupRecords`]
 */
export function consumerGroupRecordsFromClassic(classic: ClassicGroupView, partitionCount: (topic: string) => number): CoordinatorRecord[] {
  const g = classic.groupId;
  const epoch = classic.generationId;
  const members = classic.members.map((m) => {
    const subscription = m.protocols.find((p) => p.name === classic.protocolName) ?? m.protocols[0];
    const sub: MemberSubscription = {
      instanceId: m.instanceId,
      rackId: null,
      clientId: m.clientId,
      clientHost: m.clientId,
      subscribedTopicNames: [...(subscription?.topics ?? [])].sort(),
      serverAssignor: null,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      classicMemberMetadata: { sessionTimeoutMs: m.sessionTimeoutMs, supportedProtocols: m.protocols },
    };
    const assignment = assignmentFromPartitions(m.assignment);
    return { id: m.memberId, sub, assignment };
  });
  const topics = new Set(members.flatMap((m) => m.sub.subscribedTopicNames));
  return [
    ...members.map((m) => memberSubscriptionRecord(g, m.id, m.sub)),
    groupEpochRecord(g, { epoch, metadataHash: metadataHashOf(topics, partitionCount) }),
    ...members.map((m) => targetAssignmentRecord(g, m.id, m.assignment)),
    targetAssignmentEpochRecord(g, epoch),
    ...members.map((m) =>
      currentAssignmentRecord(g, m.id, { memberEpoch: epoch, previousMemberEpoch: epoch, state: 'STABLE', assignedPartitions: m.assignment, partitionsPendingRevocation: EMPTY_ASSIGNMENT }),
    ),
  ];
}

/**
 * Whether fencing `memberId` (a leave, a session or rebalance timeout) turns the group classic: it is the last
 * member of the consumer protocol, others remain, the policy allows it and they fit group.max.size.
 * [GroupMetadataManager.java `validateOnlineDowngradeWithFencedMember`]
 */
export function downgradeOnFence(group: ConsumerGroup, memberId: string, policy: MigrationPolicy, classicMaxSize: number): boolean {
  return group.allMembersUseClassicProtocolExcept(memberId) && group.members.size > 1 && downgradeEnabled(policy) && group.members.size - 1 <= classicMaxSize;
}

/**
 * The classic group a consumer group becomes: Stable at the group epoch, without `leavingMemberId`, with
 * `joining` (a classic static member that replaced it, taking its target), each member's target as its
 * assignment. [ClassicGroup.java `fromConsumerGroup`]
 */
export function classicGroupFromConsumer(group: ConsumerGroup, leavingMemberId: string, joining: ConsumerGroupMember | null): ClassicGroupView {
  const members: ClassicMemberView[] = [];
  const add = (m: ConsumerGroupMember, targetOf: string): void => {
    const classic = m.classicMemberMetadata;
    if (!classic) throw new Error(`member ${m.memberId} of group ${group.groupId} does not speak the classic protocol`);
    members.push({
      memberId: m.memberId,
      instanceId: m.instanceId,
      clientId: m.clientId,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: classic.sessionTimeoutMs,
      protocols: classic.supportedProtocols,
      assignment: assignmentPartitions(group.targetAssignment.get(targetOf) ?? EMPTY_ASSIGNMENT),
    });
  };
  for (const [id, m] of group.members) if (id !== leavingMemberId) add(m, id);
  if (joining) add(joining, leavingMemberId);
  return { groupId: group.groupId, generationId: group.groupEpoch, protocolName: null, members };
}
