/**
 * One member of a consumer group (KIP-848) as the coordinator keeps it: what it subscribed to and how (its
 * ConsumerGroupMemberMetadata record) and where its reconciliation stands (its ConsumerGroupCurrentMemberAssignment
 * record). Immutable: every change is a new value, written as a record first.
 * [group-coordinator/.../modern/consumer/ConsumerGroupMember.java]
 */
import type { JoinGroupProtocol } from '../../protocol';
import { EMPTY_ASSIGNMENT } from './assignment';
import type { CurrentAssignment } from './currentAssignmentBuilder';

/** The member-epoch sentinels of ConsumerGroupHeartbeatRequest. */
export const JOIN_GROUP_MEMBER_EPOCH = 0;
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

/**
 * ConsumerGroupMemberMetadataValue.ClassicMemberMetadata: a member that joined with JoinGroup (the classic
 * protocol) in a consumer group keeps its session timeout and its JoinGroup protocols (the assignors it supports,
 * in its order of preference, each with its subscription).
 */
export interface ClassicMemberMetadata {
  readonly sessionTimeoutMs: number;
  readonly supportedProtocols: readonly JoinGroupProtocol[];
}

/** ConsumerGroupMemberMetadataValue: the member's subscription and client facts. */
export interface MemberSubscription {
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** Sorted topic names. */
  readonly subscribedTopicNames: readonly string[];
  readonly serverAssignor: string | null;
  readonly rebalanceTimeoutMs: number;
  /** Set for a member that speaks the classic protocol (JoinGroup, SyncGroup, Heartbeat); null for ConsumerGroupHeartbeat. */
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
}

export interface ConsumerGroupMember extends MemberSubscription, CurrentAssignment {
  readonly memberId: string;
}

/** A member as `getOrMaybeCreateMember` makes it: epoch 0, nothing assigned. */
export function newMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    serverAssignor: null,
    rebalanceTimeoutMs: -1,
    classicMemberMetadata: null,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: 'STABLE',
    assignedPartitions: EMPTY_ASSIGNMENT,
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
  };
}

export function subscriptionOf(m: ConsumerGroupMember): MemberSubscription {
  return {
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscribedTopicNames: m.subscribedTopicNames,
    serverAssignor: m.serverAssignor,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    classicMemberMetadata: m.classicMemberMetadata,
  };
}

/** [ConsumerGroupMember.java `useClassicProtocol`] */
export function usesClassicProtocol(m: MemberSubscription): boolean {
  return m.classicMemberMetadata !== null;
}

export function currentAssignmentOf(m: CurrentAssignment): CurrentAssignment {
  return {
    memberEpoch: m.memberEpoch,
    previousMemberEpoch: m.previousMemberEpoch,
    state: m.state,
    assignedPartitions: m.assignedPartitions,
    partitionsPendingRevocation: m.partitionsPendingRevocation,
  };
}

export function sameSubscription(a: MemberSubscription, b: MemberSubscription): boolean {
  return (
    a.instanceId === b.instanceId &&
    a.rackId === b.rackId &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    a.serverAssignor === b.serverAssignor &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    sameTopics(a.subscribedTopicNames, b.subscribedTopicNames) &&
    JSON.stringify(a.classicMemberMetadata) === JSON.stringify(b.classicMemberMetadata)
  );
}

export function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
