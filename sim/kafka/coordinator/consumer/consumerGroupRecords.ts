/**
 * The records a consumer group (KIP-848) writes to `__consumer_offsets`, and their replay. Keys name Kafka's
 * record types; values are JSON with the fields of Kafka's schemas (topic names where Kafka has topic ids).
 * Replaying them in log order rebuilds the group exactly: the coordinator itself changes a group only through
 * `replayConsumerGroupRecord`. [group-coordinator/src/main/resources/common/message/ConsumerGroup*Key.json,
 * ConsumerGroup*Value.json; GroupCoordinatorRecordHelpers.java; GroupMetadataManager.java `replay`]
 */
import { assignmentOf, assignmentToRecord, type Assignment } from './assignment';
import type { CurrentAssignment } from './currentAssignmentBuilder';
import { ConsumerGroup } from './consumerGroup';
import type { MemberSubscription } from './consumerGroupMember';
import { memberStateFrom } from './memberState';
import type { CoordinatorRecord } from '../storage';

export const CONSUMER_GROUP_RECORD_TYPES = [
  'ConsumerGroupMetadata',
  'ConsumerGroupMemberMetadata',
  'ConsumerGroupTargetAssignmentMetadata',
  'ConsumerGroupTargetAssignmentMember',
  'ConsumerGroupCurrentMemberAssignment',
] as const;
export type ConsumerGroupRecordType = (typeof CONSUMER_GROUP_RECORD_TYPES)[number];

/** ConsumerGroupMetadataValue: the group epoch and a digest of the subscribed topics' metadata (4.1+). */
export interface ConsumerGroupMetadataValue {
  readonly epoch: number;
  readonly metadataHash: number;
}

/** ConsumerGroupCurrentMemberAssignmentValue, assignments as {topic: [partitions]}. */
export interface CurrentMemberAssignmentValue {
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: string;
  readonly assignedPartitions: Record<string, number[]>;
  readonly partitionsPendingRevocation: Record<string, number[]>;
}

export type ConsumerGroupKey =
  | { readonly kind: 'ConsumerGroupMetadata' | 'ConsumerGroupTargetAssignmentMetadata'; readonly group: string }
  | { readonly kind: 'ConsumerGroupMemberMetadata' | 'ConsumerGroupTargetAssignmentMember' | 'ConsumerGroupCurrentMemberAssignment'; readonly group: string; readonly memberId: string };

export function isConsumerGroupRecordType(k: unknown): k is ConsumerGroupRecordType {
  return (CONSUMER_GROUP_RECORD_TYPES as readonly unknown[]).includes(k);
}

/** Reads a parsed key array (["ConsumerGroupMemberMetadata", group, memberId], ...) or returns null. */
export function consumerGroupKeyOf(k: readonly unknown[]): ConsumerGroupKey | null {
  const [kind, group, memberId] = k;
  if (!isConsumerGroupRecordType(kind) || typeof group !== 'string') return null;
  if (kind === 'ConsumerGroupMetadata' || kind === 'ConsumerGroupTargetAssignmentMetadata') return { kind, group };
  return typeof memberId === 'string' ? { kind, group, memberId } : null;
}

const key = (...parts: (string | number)[]): string => JSON.stringify(parts);
const rec = (k: string, v: unknown): CoordinatorRecord => ({ key: k, value: v === null ? null : JSON.stringify(v) });

// ---- record builders [GroupCoordinatorRecordHelpers.java] ----

export function groupEpochRecord(group: string, v: ConsumerGroupMetadataValue | null): CoordinatorRecord {
  return rec(key('ConsumerGroupMetadata', group), v);
}

export function memberSubscriptionRecord(group: string, memberId: string, v: MemberSubscription | null): CoordinatorRecord {
  return rec(key('ConsumerGroupMemberMetadata', group, memberId), v);
}

export function targetAssignmentEpochRecord(group: string, assignmentEpoch: number | null): CoordinatorRecord {
  return rec(key('ConsumerGroupTargetAssignmentMetadata', group), assignmentEpoch === null ? null : { assignmentEpoch });
}

export function targetAssignmentRecord(group: string, memberId: string, a: Assignment | null): CoordinatorRecord {
  return rec(key('ConsumerGroupTargetAssignmentMember', group, memberId), a === null ? null : { topicPartitions: assignmentToRecord(a) });
}

export function currentAssignmentRecord(group: string, memberId: string, a: CurrentAssignment | null): CoordinatorRecord {
  if (a === null) return rec(key('ConsumerGroupCurrentMemberAssignment', group, memberId), null);
  const v: CurrentMemberAssignmentValue = {
    memberEpoch: a.memberEpoch,
    previousMemberEpoch: a.previousMemberEpoch,
    state: a.state,
    assignedPartitions: assignmentToRecord(a.assignedPartitions),
    partitionsPendingRevocation: assignmentToRecord(a.partitionsPendingRevocation),
  };
  return rec(key('ConsumerGroupCurrentMemberAssignment', group, memberId), v);
}

/** The three tombstones that remove a member, in Kafka's order. [GroupMetadataManager.java `removeMember`] */
export function memberTombstones(group: string, memberId: string): CoordinatorRecord[] {
  return [currentAssignmentRecord(group, memberId, null), targetAssignmentRecord(group, memberId, null), memberSubscriptionRecord(group, memberId, null)];
}

/** Every tombstone that deletes the group. [ConsumerGroup.java `createGroupTombstoneRecords`] */
export function groupTombstones(group: ConsumerGroup): CoordinatorRecord[] {
  const out: CoordinatorRecord[] = [];
  for (const id of group.members.keys()) out.push(...memberTombstones(group.groupId, id));
  out.push(targetAssignmentEpochRecord(group.groupId, null), groupEpochRecord(group.groupId, null));
  return out;
}

// ---- replay ----

/**
 * Applies one record to the consumer groups of a shard (creating the group on its first record, deleting it on
 * the tombstone of its ConsumerGroupMetadata). [GroupMetadataManager.java `replay` of each ConsumerGroup* type]
 */
export function replayConsumerGroupRecord(groups: Map<string, ConsumerGroup>, k: ConsumerGroupKey, value: string | null): void {
  let g = groups.get(k.group);
  if (!g) {
    if (value === null) return;
    groups.set(k.group, (g = new ConsumerGroup(k.group)));
  }
  switch (k.kind) {
    case 'ConsumerGroupMetadata':
      if (value === null) {
        groups.delete(k.group);
        return;
      }
      {
        const v = JSON.parse(value) as ConsumerGroupMetadataValue;
        g.groupEpoch = v.epoch;
        g.metadataHash = v.metadataHash;
      }
      return;
    case 'ConsumerGroupTargetAssignmentMetadata':
      g.assignmentEpoch = value === null ? 0 : (JSON.parse(value) as { assignmentEpoch: number }).assignmentEpoch;
      return;
    case 'ConsumerGroupMemberMetadata':
      if (value === null) g.removeMember(k.memberId);
      else {
        const v = JSON.parse(value) as MemberSubscription;
        g.replayMemberMetadata(k.memberId, { ...v, classicMemberMetadata: v.classicMemberMetadata ?? null });
      }
      return;
    case 'ConsumerGroupTargetAssignmentMember':
      g.replayTargetMember(k.memberId, value === null ? null : assignmentOf((JSON.parse(value) as { topicPartitions: Record<string, number[]> }).topicPartitions));
      return;
    case 'ConsumerGroupCurrentMemberAssignment': {
      if (value === null) {
        g.replayCurrentAssignmentTombstone(k.memberId);
        return;
      }
      const v = JSON.parse(value) as CurrentMemberAssignmentValue;
      g.replayCurrentAssignment(k.memberId, {
        memberEpoch: v.memberEpoch,
        previousMemberEpoch: v.previousMemberEpoch,
        state: memberStateFrom(v.state),
        assignedPartitions: assignmentOf(v.assignedPartitions),
        partitionsPendingRevocation: assignmentOf(v.partitionsPendingRevocation),
      });
      return;
    }
  }
}
