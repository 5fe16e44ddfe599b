/**
 * Classic-protocol members of a consumer group, as pure decisions: after an online upgrade (or when a classic
 * consumer joins a consumer group) a member that speaks JoinGroup / SyncGroup / Heartbeat / LeaveGroup is a
 * member of the consumer group like any other. Its JoinGroup is its heartbeat with a subscription: it updates the
 * subscription, may bump the group epoch and recompute the target, and takes one reconciliation step with the
 * owned partitions of its JoinGroup metadata; the JoinGroup response carries its member epoch as the generation,
 * and SyncGroup hands it its assigned partitions (never the ones it must still revoke). It learns of a new epoch,
 * of partitions to revoke or of partitions now free through REBALANCE_IN_PROGRESS on its heartbeat, and rejoins.
 * [group-coordinator/.../GroupMetadataManager.java `classicGroupJoinToConsumerGroup`,
 * `classicGroupSyncToConsumerGroup`, `classicGroupHeartbeatToConsumerGroup`, `classicGroupLeaveToConsumerGroup`,
 * `validateConsumerGroupMember`, `throwIfRebalanceInProgress`]
 */
import type { KafkaError } from '../../errors';
import type { JoinGroupProtocol } from '../../protocol';
import type { CoordinatorRecord } from '../storage';
import { assignmentFromPartitions, EMPTY_ASSIGNMENT, type Assignment } from './assignment';
import type { ConsumerGroup } from './consumerGroup';
import { metadataHashOf, replaceStaticMemberRecords, updateMember, type HeartbeatChanges, type HeartbeatContext } from './consumerGroupHeartbeat';
import { newMember, usesClassicProtocol, type ConsumerGroupMember, type MemberSubscription } from './consumerGroupMember';
import { groupEpochRecord, memberTombstones } from './consumerGroupRecords';

/** A JoinGroup as the rule sees it. */
export interface ClassicJoinInput {
  readonly groupId: string;
  /** '' for a member without an id yet. */
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly protocolType: string;
  readonly protocols: readonly JoinGroupProtocol[];
}

export type ClassicJoinOutcome =
  | { readonly ok: false; readonly error: KafkaError; readonly message: string; readonly memberId: string }
  /** KIP-394: a dynamic member first gets its id and must come back with it. Nothing is written. */
  | { readonly ok: true; readonly memberIdRequired: true; readonly memberId: string }
  | {
      readonly ok: true;
      readonly memberIdRequired: false;
      readonly records: CoordinatorRecord[];
      /** The JoinGroup response: the member epoch is the generation; nobody leads (the coordinator assigns). */
      readonly response: { readonly memberId: string; readonly generationId: number; readonly protocolName: string };
      readonly changes: HeartbeatChanges;
      /** The static member this one replaced, when it was the last member speaking the consumer protocol. */
      readonly downgradeReplacing: string | null;
    };

const fail = (error: KafkaError, message: string, memberId: string): ClassicJoinOutcome => ({ ok: false, error, message, memberId });

/** What the classic member's JoinGroup metadata says it owns: the first protocol's (Kafka deserializes one). */
export function ownedFromProtocols(protocols: readonly JoinGroupProtocol[]): Assignment {
  const first = protocols[0];
  // The eager `sticky` protocol carries the previous assignment (its user data in Kafka) where the others carry the
  // owned partitions; an eager member has revoked everything before it joins.
  if (!first || first.name === 'sticky') return EMPTY_ASSIGNMENT;
  return assignmentFromPartitions(first.ownedPartitions);
}

/**
 * A JoinGroup to a consumer group that has members. `newMemberId` is the id a member without one gets.
 * `classicMaxSize` and `downgradeEnabled` decide whether a static member replacing the last consumer-protocol
 * member turns the group back into a classic one. [GroupMetadataManager.java `classicGroupJoinToConsumerGroup`]
 */
export function classicJoinToConsumerGroup(
  group: ConsumerGroup,
  req: ClassicJoinInput,
  newMemberId: string,
  ctx: HeartbeatContext & { readonly classicMaxSize: number; readonly downgradeEnabled: boolean },
): ClassicJoinOutcome {
  const unknown = req.memberId === '';
  const memberId = unknown ? newMemberId : req.memberId;
  // [`throwIfConsumerGroupIsFull`]
  if (group.members.size >= ctx.maxSize && !group.members.has(memberId)) {
    return fail('GROUP_MAX_SIZE_REACHED', `The consumer group has reached its maximum capacity of ${ctx.maxSize} members.`, memberId);
  }
  // [`throwIfClassicProtocolIsNotSupported`]
  if (!group.supportsClassicProtocols(req.protocolType, req.protocols.map((p) => p.name))) {
    return fail('INCONSISTENT_GROUP_PROTOCOL', `Member ${memberId}'s protocols are not supported.`, memberId);
  }
  // [JoinGroupRequest.java `requiresKnownMemberId`]
  if (unknown && req.instanceId === null) return { ok: true, memberIdRequired: true, memberId };

  const records: CoordinatorRecord[] = [];
  let member: ConsumerGroupMember;
  let joined = false;
  let replaced: string | null = null;
  if (req.instanceId === null) {
    // A dynamic classic member with an id the group does not know is simply added. [`getOrMaybeSubscribeDynamicConsumerGroupMember`]
    const existing = group.members.get(memberId);
    member = existing ?? newMember(memberId);
    joined = !existing;
  } else {
    const previous = group.staticMember(req.instanceId);
    if (unknown) {
      if (!previous) {
        member = newMember(memberId);
        joined = true;
      } else {
        // A classic static member takes its instance's place at once (it never announces a temporary leave).
        member = { ...previous, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
        replaced = previous.memberId;
        joined = true;
        records.push(...replaceStaticMemberRecords(group, previous, member));
      }
    } else {
      if (!previous) return fail('UNKNOWN_MEMBER_ID', `Instance id ${req.instanceId} is unknown.`, memberId);
      if (previous.memberId !== memberId) return fail('FENCED_INSTANCE_ID', `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${previous.memberId}.`, memberId);
      member = previous;
    }
  }

  const first = req.protocols[0]!;
  const sub: MemberSubscription = {
    instanceId: req.instanceId ?? member.instanceId,
    rackId: member.rackId,
    clientId: ctx.clientId,
    clientHost: ctx.clientHost,
    subscribedTopicNames: [...first.topics].sort(),
    serverAssignor: member.serverAssignor,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs,
    classicMemberMetadata: { sessionTimeoutMs: req.sessionTimeoutMs, supportedProtocols: req.protocols },
  };
  const step = updateMember({ group, groupId: req.groupId, member, sub, joined, replaced, owned: ownedFromProtocols(req.protocols) }, records, ctx);
  if (!step.ok) return fail(step.error, step.message, memberId);

  // 4. The static member it replaces was the last one of the consumer protocol: the group becomes classic again.
  const existingStatic = req.instanceId === null ? undefined : group.staticMember(req.instanceId)?.memberId;
  const downgrade = existingStatic !== undefined && ctx.downgradeEnabled && group.allMembersUseClassicProtocolExcept(existingStatic) && group.members.size <= ctx.classicMaxSize;
  return {
    ok: true,
    memberIdRequired: false,
    records,
    response: { memberId: step.member.memberId, generationId: step.member.memberEpoch, protocolName: req.protocols[0]!.name },
    changes: { joined, replaced, epochBump: step.epochBump, target: step.target, member: step.member, memberTarget: step.memberTarget, reconciled: step.reconciled },
    downgradeReplacing: downgrade ? existingStatic : null,
  };
}

/** The member a classic request names: by member id, or by instance id for a static member. [`validateConsumerGroupMember`] */
export function classicMemberOf(group: ConsumerGroup, memberId: string, instanceId: string | null): { member: ConsumerGroupMember } | { error: KafkaError } {
  let member: ConsumerGroupMember | undefined;
  if (instanceId === null) {
    member = group.members.get(memberId);
    if (!member) return { error: 'UNKNOWN_MEMBER_ID' };
  } else {
    member = group.staticMember(instanceId);
    if (!member) return { error: 'UNKNOWN_MEMBER_ID' };
    if (member.memberId !== memberId) return { error: 'FENCED_INSTANCE_ID' };
  }
  // [`throwIfMemberDoesNotUseClassicProtocol`]
  if (!usesClassicProtocol(member)) return { error: 'UNKNOWN_MEMBER_ID' };
  return { member };
}

/**
 * SyncGroup: the member's assigned partitions, once it is at the generation the join gave it. A group epoch
 * ahead of the member (and the member not in the middle of revoking) means it must rejoin first.
 * `rejoin`: arm the join timeout. [GroupMetadataManager.java `classicGroupSyncToConsumerGroup`]
 */
export function classicSyncToConsumerGroup(
  group: ConsumerGroup,
  req: { readonly memberId: string; readonly groupInstanceId: string | null; readonly generationId: number },
): { error: KafkaError; member?: ConsumerGroupMember; rejoin?: boolean } {
  const found = classicMemberOf(group, req.memberId, req.groupInstanceId);
  if ('error' in found) return { error: found.error };
  const m = found.member;
  if (m.memberEpoch !== req.generationId) return { error: 'ILLEGAL_GENERATION' };
  // [`throwIfRebalanceInProgress`]
  if (group.groupEpoch > m.memberEpoch && m.state !== 'UNREVOKED_PARTITIONS') return { error: 'REBALANCE_IN_PROGRESS', member: m, rejoin: true };
  return { error: 'NONE', member: m };
}

/**
 * Heartbeat: keeps the session, and asks the member to rejoin (REBALANCE_IN_PROGRESS, arming the join timeout)
 * when the group epoch moved past it, when it must revoke partitions, or when the partitions it waits for are
 * free. [GroupMetadataManager.java `classicGroupHeartbeatToConsumerGroup`]
 */
export function classicHeartbeatToConsumerGroup(
  group: ConsumerGroup,
  req: { readonly memberId: string; readonly groupInstanceId: string | null; readonly generationId: number },
): { error: KafkaError; member?: ConsumerGroupMember } {
  const found = classicMemberOf(group, req.memberId, req.groupInstanceId);
  if ('error' in found) return { error: found.error };
  const m = found.member;
  if (m.memberEpoch !== req.generationId) return { error: 'ILLEGAL_GENERATION' };
  const rejoin =
    m.memberEpoch < group.groupEpoch || m.state === 'UNREVOKED_PARTITIONS' || (m.state === 'UNRELEASED_PARTITIONS' && !group.waitingOnUnreleasedPartition(m));
  return { error: rejoin ? 'REBALANCE_IN_PROGRESS' : 'NONE', member: m };
}

/**
 * LeaveGroup of classic members (or an admin removing static members by instance id): each named member is
 * removed, and the group epoch moves once. [GroupMetadataManager.java `classicGroupLeaveToConsumerGroup`]
 */
export function classicLeaveToConsumerGroup(
  group: ConsumerGroup,
  leaving: readonly { readonly memberId: string; readonly groupInstanceId: string | null }[],
  partitionCount: (topic: string) => number,
): { records: CoordinatorRecord[]; removed: ConsumerGroupMember[]; errors: KafkaError[] } {
  const records: CoordinatorRecord[] = [];
  const removed: ConsumerGroupMember[] = [];
  const errors: KafkaError[] = [];
  for (const who of leaving) {
    let member: ConsumerGroupMember | undefined;
    if (who.groupInstanceId === null) {
      member = group.members.get(who.memberId);
    } else {
      member = group.staticMember(who.groupInstanceId);
      // The admin removes a static member by instance id alone (member id unknown).
      if (member && who.memberId !== '' && member.memberId !== who.memberId) {
        errors.push('FENCED_INSTANCE_ID');
        continue;
      }
    }
    if (!member || !usesClassicProtocol(member) || removed.includes(member)) {
      errors.push('UNKNOWN_MEMBER_ID');
      continue;
    }
    records.push(...memberTombstones(group.groupId, member.memberId));
    removed.push(member);
    errors.push('NONE');
  }
  if (removed.length > 0) {
    const counts = group.subscribedTopicCounts(null, null);
    for (const m of removed) {
      for (const t of m.subscribedTopicNames) {
        const n = (counts.get(t) ?? 0) - 1;
        if (n <= 0) counts.delete(t);
        else counts.set(t, n);
      }
    }
    records.push(groupEpochRecord(group.groupId, { epoch: group.groupEpoch + 1, metadataHash: metadataHashOf(counts.keys(), partitionCount) }));
  }
  return { records, removed, errors };
}
