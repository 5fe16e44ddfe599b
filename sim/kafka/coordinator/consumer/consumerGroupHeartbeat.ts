/**
 * The coordinator's side of ConsumerGroupHeartbeat (KIP-848), as pure decisions: validate the request, create or
 * update the member (bumping the group epoch when subscriptions or subscribed topics change), recompute the
 * target assignment with the server assignor when the group epoch is ahead of the assignment epoch, and move the
 * member one reconciliation step. Each returns the records to write and the response to send once they are
 * committed; the coordinator replays the records, which is the only way a group changes.
 * [group-coordinator/.../GroupMetadataManager.java `consumerGroupHeartbeat`, `consumerGroupLeave`,
 * `consumerGroupFenceMember`, `throwIfConsumerGroupHeartbeatRequestIsInvalid`,
 * `throwIfConsumerGroupMemberEpochIsInvalid`, `getOrMaybeSubscribeStaticConsumerGroupMember`, `maybeReconcile`,
 * `updateTargetAssignment`; modern/TargetAssignmentBuilder.java]
 */
import type { KafkaError } from '../../errors';
import type { CoordinatorRecord } from '../storage';
import { assignmentEquals, assignmentHas, EMPTY_ASSIGNMENT, type Assignment } from './assignment';
import { groupSpecOf, PartitionAssignorException, type MemberSubscriptionAndAssignment, type ServerAssignor } from './assignor/groupSpec';
import { isReconciledTo, reconcile } from './currentAssignmentBuilder';
import type { ConsumerGroup } from './consumerGroup';
import {
  currentAssignmentOf,
  JOIN_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  newMember,
  sameSubscription,
  sameTopics,
  subscriptionOf,
  usesClassicProtocol,
  type ConsumerGroupMember,
  type MemberSubscription,
} from './consumerGroupMember';
import {
  currentAssignmentRecord,
  groupEpochRecord,
  memberSubscriptionRecord,
  memberTombstones,
  targetAssignmentEpochRecord,
  targetAssignmentRecord,
} from './consumerGroupRecords';

/** A ConsumerGroupHeartbeat as the rule sees it: topic ids already turned into names. */
export interface HeartbeatInput {
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly subscribedTopicNames: readonly string[] | null;
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  /** Owned partitions; null when the member did not send them. */
  readonly owned: Assignment | null;
}

export interface HeartbeatContext {
  readonly clientId: string;
  readonly clientHost: string;
  /** The group's effective consumer.heartbeat.interval.ms. */
  readonly heartbeatIntervalMs: number;
  /** group.consumer.assignors, resolved; the first is the default. */
  readonly assignors: readonly ServerAssignor[];
  /** group.consumer.max.size */
  readonly maxSize: number;
  /** Partition count of a topic from the broker's metadata; -1 when unknown. */
  partitionCount(topic: string): number;
}

export interface HeartbeatResponseData {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly heartbeatIntervalMs: number;
  /** The member's assigned partitions when they changed or after a full request; else null. */
  readonly assignment: Assignment | null;
}

/** What changed, for the trace. */
export interface HeartbeatChanges {
  /** A member joined (or a static member took over an old member id: `replaced`). */
  readonly joined: boolean;
  readonly replaced: string | null;
  readonly epochBump: { readonly epoch: number; readonly reason: string } | null;
  readonly target: { readonly epoch: number; readonly assignor: string; readonly assignment: ReadonlyMap<string, Assignment> } | null;
  /** The member after this heartbeat, and whether its current assignment moved. */
  readonly member: ConsumerGroupMember;
  readonly memberTarget: Assignment;
  readonly reconciled: boolean;
}

export type HeartbeatOutcome =
  | { readonly ok: false; readonly error: KafkaError; readonly message: string }
  | {
      readonly ok: true;
      readonly records: CoordinatorRecord[];
      readonly response: HeartbeatResponseData;
      readonly changes: HeartbeatChanges;
      /** Arm the member's rebalance timeout for its current epoch, or cancel it, or leave it. */
      readonly rebalanceTimeout: 'schedule' | 'cancel' | 'keep';
    };

const fail = (error: KafkaError, message: string): HeartbeatOutcome => ({ ok: false, error, message });

/** [GroupMetadataManager.java `throwIfConsumerGroupHeartbeatRequestIsInvalid`] */
export function validateHeartbeat(req: HeartbeatInput, assignors: readonly ServerAssignor[]): { error: KafkaError; message: string } | null {
  const blank = (s: string | null): boolean => s !== null && s.trim() === '';
  // KIP-1082 (ConsumerGroupHeartbeat v1): the member always brings its own id.
  if (req.memberId.trim() === '') return { error: 'INVALID_REQUEST', message: "MemberId can't be empty." };
  if (req.groupId.trim() === '') return { error: 'INVALID_REQUEST', message: "GroupId can't be empty." };
  if (blank(req.instanceId)) return { error: 'INVALID_REQUEST', message: "InstanceId can't be empty." };
  if (blank(req.rackId)) return { error: 'INVALID_REQUEST', message: "RackId can't be empty." };
  if (req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH) {
    if (req.rebalanceTimeoutMs === -1) return { error: 'INVALID_REQUEST', message: 'RebalanceTimeoutMs must be provided in first request.' };
    if (req.owned === null || req.owned.size > 0) return { error: 'INVALID_REQUEST', message: 'TopicPartitions must be empty when (re-)joining.' };
    if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) return { error: 'INVALID_REQUEST', message: 'SubscribedTopicNames or SubscribedTopicRegex must be set in first request.' };
  } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.instanceId === null) return { error: 'INVALID_REQUEST', message: "InstanceId can't be null." };
  } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    return { error: 'INVALID_REQUEST', message: 'MemberEpoch is invalid.' };
  }
  if (req.subscribedTopicRegex !== null) return { error: 'INVALID_REQUEST', message: 'SubscribedTopicRegex is not supported by the simulator.' };
  if (req.serverAssignor !== null && !assignors.some((a) => a.name === req.serverAssignor)) {
    return { error: 'UNSUPPORTED_ASSIGNOR', message: `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${assignors.map((a) => a.name).join(', ')}.` };
  }
  return null;
}

/** Owned partitions all within `assigned` (the lost-response rule). [GroupMetadataManager.java `isSubset`] */
function isSubset(owned: Assignment | null, assigned: Assignment): boolean {
  if (owned === null) return false;
  for (const [t, ps] of owned) for (const p of ps) if (!assignmentHas(assigned, t, p)) return false;
  return true;
}

/**
 * A request epoch ahead of the coordinator's, or behind it other than by a lost response, fences the member.
 * [GroupMetadataManager.java `throwIfConsumerGroupMemberEpochIsInvalid`]
 */
export function memberEpochError(member: ConsumerGroupMember, received: number, owned: Assignment | null): string | null {
  if (received > member.memberEpoch) {
    return `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`;
  }
  if (received < member.memberEpoch) {
    // The response that moved it to its current epoch may have been lost: the previous epoch, with owned
    // partitions within the current assignment, is accepted.
    if (received !== member.previousMemberEpoch || !isSubset(owned, member.assignedPartitions)) {
      return `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`;
    }
  }
  return null;
}

/** A digest of the subscribed topics' partition counts; a change bumps the group epoch. */
export function metadataHashOf(topics: Iterable<string>, partitionCount: (t: string) => number): number {
  let h = 0x811c9dc5;
  for (const t of [...topics].sort()) {
    const s = `${t}:${partitionCount(t)};`;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A regular heartbeat (epoch >= 0). `group` is the consumer group, or null when none exists yet (the coordinator
 * has already turned an empty classic group into nothing, with its tombstone).
 */
export function consumerGroupHeartbeat(group: ConsumerGroup | null, req: HeartbeatInput, ctx: HeartbeatContext): HeartbeatOutcome {
  const invalid = validateHeartbeat(req, ctx.assignors);
  if (invalid) return fail(invalid.error, invalid.message);
  if (req.memberEpoch < 0) return fail('INVALID_REQUEST', 'a leave is not a regular heartbeat');
  const joining = req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH;
  if (group === null && !joining) return fail('GROUP_ID_NOT_FOUND', `Consumer group ${req.groupId} not found.`);
  const groupId = req.groupId;
  const records: CoordinatorRecord[] = [];
  const members = group?.members ?? new Map<string, ConsumerGroupMember>();
  // [GroupMetadataManager.java `throwIfConsumerGroupIsFull`]
  if (members.size >= ctx.maxSize && !members.has(req.memberId)) {
    return fail('GROUP_MAX_SIZE_REACHED', `The consumer group has reached its maximum capacity of ${ctx.maxSize} members.`);
  }

  // Get or create the member (static members may take over their instance's place).
  let member: ConsumerGroupMember;
  let replaced: string | null = null;
  let joined = false;
  if (req.instanceId === null) {
    const existing = members.get(req.memberId);
    if (!existing) {
      if (!joining) return fail('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${groupId}.`);
      member = newMember(req.memberId);
      joined = true;
    } else {
      member = existing;
      const e = memberEpochError(member, req.memberEpoch, req.owned);
      if (e) return fail('FENCED_MEMBER_EPOCH', e);
    }
  } else {
    const previous = group?.staticMember(req.instanceId);
    if (joining) {
      if (!previous) {
        member = members.get(req.memberId) ?? newMember(req.memberId);
        joined = !members.has(req.memberId);
      } else {
        // The instance id is free only once its previous member left with epoch -2 (a classic one never says so, and
        // is replaced at once). [`getOrMaybeSubscribeStaticConsumerGroupMember`, `throwIfInstanceIdIsUnreleased`]
        if (previous.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH && !usesClassicProtocol(previous)) {
          return fail('UNRELEASED_INSTANCE_ID', `Static member ${req.memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${previous.memberId} member.`);
        }
        // The new member takes the old one's place and its partitions, at epoch 0. [`replaceMember`]
        member = { ...previous, memberId: req.memberId, memberEpoch: 0, previousMemberEpoch: 0 };
        replaced = previous.memberId;
        joined = true;
        records.push(...replaceStaticMemberRecords(group!, previous, member));
      }
    } else {
      if (!previous) return fail('UNKNOWN_MEMBER_ID', `Instance id ${req.instanceId} is unknown.`);
      if (previous.memberId !== req.memberId) {
        return fail('FENCED_INSTANCE_ID', `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${previous.memberId}.`);
      }
      member = previous;
      const e = memberEpochError(member, req.memberEpoch, req.owned);
      if (e) return fail('FENCED_MEMBER_EPOCH', e);
    }
  }

  const sub: MemberSubscription = {
    instanceId: req.instanceId ?? member.instanceId,
    rackId: req.rackId ?? member.rackId,
    clientId: ctx.clientId,
    clientHost: ctx.clientHost,
    subscribedTopicNames: req.subscribedTopicNames !== null ? [...req.subscribedTopicNames].sort() : member.subscribedTopicNames,
    serverAssignor: req.serverAssignor ?? member.serverAssignor,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    classicMemberMetadata: null,
  };
  const step = updateMember({ group, groupId, member, sub, joined, replaced, owned: req.owned }, records, ctx);
  if (!step.ok) return fail(step.error, step.message);
  const updated = step.member;

  // The assignment goes back on a full request (a join, or after an error) or when it changed.
  const full = joining || (req.rebalanceTimeoutMs !== -1 && req.subscribedTopicNames !== null && req.owned !== null);
  const assignmentChanged = !assignmentEquals(member.assignedPartitions, updated.assignedPartitions);
  return {
    ok: true,
    records,
    response: {
      memberId: updated.memberId,
      memberEpoch: updated.memberEpoch,
      heartbeatIntervalMs: ctx.heartbeatIntervalMs,
      assignment: full || assignmentChanged ? updated.assignedPartitions : null,
    },
    changes: { joined, replaced, epochBump: step.epochBump, target: step.target, member: updated, memberTarget: step.memberTarget, reconciled: step.reconciled },
    rebalanceTimeout: step.rebalanceTimeout,
  };
}

/** A static member's successor takes its place: its records go, the successor's come with its target and partitions. [`replaceMember`] */
export function replaceStaticMemberRecords(group: ConsumerGroup, previous: ConsumerGroupMember, successor: ConsumerGroupMember): CoordinatorRecord[] {
  const groupId = group.groupId;
  return [
    ...memberTombstones(groupId, previous.memberId),
    memberSubscriptionRecord(groupId, successor.memberId, subscriptionOf(successor)),
    targetAssignmentRecord(groupId, successor.memberId, group.targetOf(previous.memberId, null)),
    currentAssignmentRecord(groupId, successor.memberId, currentAssignmentOf(successor)),
  ];
}

/** A member found or made by a heartbeat or a classic JoinGroup, and its new subscription. */
export interface MemberUpdateInput {
  readonly group: ConsumerGroup | null;
  readonly groupId: string;
  /** The member before this request (a new one at epoch 0, or a replaced static member's copy under its new id). */
  readonly member: ConsumerGroupMember;
  readonly sub: MemberSubscription;
  readonly joined: boolean;
  readonly replaced: string | null;
  /** What the member says it owns; null when it did not say. */
  readonly owned: Assignment | null;
}

export type MemberUpdateOutcome =
  | { readonly ok: false; readonly error: KafkaError; readonly message: string }
  | {
      readonly ok: true;
      readonly member: ConsumerGroupMember;
      readonly epochBump: HeartbeatChanges['epochBump'];
      readonly target: HeartbeatChanges['target'];
      readonly memberTarget: Assignment;
      readonly reconciled: boolean;
      readonly rebalanceTimeout: 'schedule' | 'cancel' | 'keep';
    };

/**
 * The three steps every member request takes, whichever protocol it speaks: 1. store the subscription, bumping
 * the group epoch when subscribed topics (or their partition counts) change; 2. a group epoch ahead of the
 * assignment epoch computes a new target assignment for everyone; 3. move the member one reconciliation step
 * towards its target. Appends the records to `records`. [GroupMetadataManager.java `consumerGroupHeartbeat`
 * steps 1-3, `classicGroupJoinToConsumerGroup` steps 1-3, `maybeReconcile`]
 */
export function updateMember(u: MemberUpdateInput, records: CoordinatorRecord[], ctx: HeartbeatContext): MemberUpdateOutcome {
  const { group, groupId, member, sub, joined, replaced } = u;
  // 1. Update the member's subscription; a changed subscription (or changed topic metadata) bumps the group epoch.
  let updated: ConsumerGroupMember = { ...member, ...sub };
  let bumpReason: string | null = null;
  if (!sameSubscription(subscriptionOf(member), sub) || (joined && replaced === null)) {
    records.push(memberSubscriptionRecord(groupId, updated.memberId, sub));
    if (!sameTopics(member.subscribedTopicNames, sub.subscribedTopicNames)) bumpReason = joined ? `member ${updated.memberId} joined` : `member ${updated.memberId} changed its subscription`;
  }
  const oldForCounts = (replaced !== null ? group?.members.get(replaced) : group?.members.get(member.memberId)) ?? null;
  const subscribedTopics = group ? group.subscribedTopicCounts(oldForCounts, sub) : new Map(sub.subscribedTopicNames.map((t) => [t, 1] as [string, number]));
  const metadataHash = metadataHashOf(subscribedTopics.keys(), ctx.partitionCount);
  let groupEpoch = group?.groupEpoch ?? 0;
  if (bumpReason === null && metadataHash !== (group?.metadataHash ?? 0)) bumpReason = 'the metadata of the subscribed topics changed';
  if (bumpReason !== null) {
    groupEpoch += 1;
    records.push(groupEpochRecord(groupId, { epoch: groupEpoch, metadataHash }));
  }

  // 2. A group epoch ahead of the assignment epoch: compute a new target assignment for everyone.
  let targetEpoch = group?.assignmentEpoch ?? 0;
  let target: Assignment;
  let targetChange: HeartbeatChanges['target'] = null;
  if (groupEpoch > targetEpoch) {
    const computed = computeTargetAssignment(groupId, group, groupEpoch, member, updated, replaced, ctx);
    if (!computed.ok) return { ok: false, error: 'UNKNOWN_SERVER_ERROR', message: computed.message };
    records.push(...computed.records);
    targetEpoch = groupEpoch;
    target = computed.assignment.get(updated.memberId) ?? EMPTY_ASSIGNMENT;
    targetChange = { epoch: groupEpoch, assignor: computed.assignor, assignment: computed.assignment };
  } else {
    target = group?.targetOf(updated.memberId, updated.instanceId) ?? EMPTY_ASSIGNMENT;
  }

  // 3. One reconciliation step towards the target.
  let rebalanceTimeout: 'schedule' | 'cancel' | 'keep' = 'keep';
  let reconciled = false;
  if (!isReconciledTo(updated, targetEpoch)) {
    const r = reconcile({
      current: updated,
      targetEpoch,
      target,
      currentPartitionEpoch: (t, p) => group?.currentPartitionEpoch(t, p) ?? -1,
      owned: u.owned,
    });
    if (!r.ok) return { ok: false, error: r.error, message: 'The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.' };
    const next = { ...updated, ...r.next };
    if (!sameCurrentAssignment(updated, next)) {
      records.push(currentAssignmentRecord(groupId, next.memberId, r.next));
      // A classic member has a join and a sync timeout instead (the coordinator arms them).
      if (!usesClassicProtocol(next)) rebalanceTimeout = next.state === 'UNREVOKED_PARTITIONS' ? 'schedule' : 'cancel';
      reconciled = true;
    }
    updated = next;
  }

  return {
    ok: true,
    member: updated,
    epochBump: bumpReason === null ? null : { epoch: groupEpoch, reason: bumpReason },
    target: targetChange,
    memberTarget: target,
    reconciled,
    rebalanceTimeout,
  };
}

function sameCurrentAssignment(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    assignmentEquals(a.assignedPartitions, b.assignedPartitions) &&
    assignmentEquals(a.partitionsPendingRevocation, b.partitionsPendingRevocation)
  );
}

/**
 * The new target assignment of every member (the heartbeating member updated, a replaced static member's
 * target carried over to its successor), and the records of the targets that changed plus the new assignment
 * epoch. [GroupMetadataManager.java `updateTargetAssignment`; TargetAssignmentBuilder.java `build`]
 */
function computeTargetAssignment(
  groupId: string,
  group: ConsumerGroup | null,
  groupEpoch: number,
  oldMember: ConsumerGroupMember,
  updated: ConsumerGroupMember,
  replaced: string | null,
  ctx: HeartbeatContext,
): { ok: true; records: CoordinatorRecord[]; assignment: Map<string, Assignment>; assignor: string } | { ok: false; message: string } {
  const preferred = group ? group.preferredServerAssignor(replaced !== null ? group.members.get(replaced)! : (group.members.get(oldMember.memberId) ?? null), updated) : updated.serverAssignor;
  const assignor = ctx.assignors.find((a) => a.name === preferred) ?? ctx.assignors[0]!;
  const specs: [string, MemberSubscriptionAndAssignment][] = [];
  const spec = (m: ConsumerGroupMember, assignment: Assignment): MemberSubscriptionAndAssignment => ({
    rackId: m.rackId,
    instanceId: m.instanceId,
    subscribedTopics: new Set(m.subscribedTopicNames),
    assignment,
  });
  for (const [id, m] of group?.members ?? []) {
    if (id === updated.memberId || id === replaced) continue;
    specs.push([id, spec(m, group!.targetAssignment.get(id) ?? EMPTY_ASSIGNMENT)]);
  }
  const ownTarget = group ? (replaced !== null ? group.targetOf(replaced, null) : group.targetOf(updated.memberId, null)) : EMPTY_ASSIGNMENT;
  specs.push([updated.memberId, spec(updated, ownTarget)]);
  const gs = groupSpecOf(specs);
  let assignment: Map<string, Assignment>;
  try {
    assignment = new Map(assignor.assign(gs, { numPartitions: ctx.partitionCount }));
  } catch (e) {
    if (e instanceof PartitionAssignorException) return { ok: false, message: `Failed to compute a new target assignment for epoch ${groupEpoch}: ${e.message}` };
    throw e;
  }
  const records: CoordinatorRecord[] = [];
  for (const [id] of gs.members) {
    const next = assignment.get(id) ?? EMPTY_ASSIGNMENT;
    if (!assignment.has(id)) assignment.set(id, next);
    const before = id === updated.memberId && replaced !== null ? undefined : group?.targetAssignment.get(id);
    if (before === undefined || !assignmentEquals(before, next)) records.push(targetAssignmentRecord(groupId, id, next));
  }
  records.push(targetAssignmentEpochRecord(groupId, groupEpoch));
  return { ok: true, records, assignment, assignor: assignor.name };
}

/**
 * A leave (epoch -1) or a static member's temporary leave (-2). A -1 leave removes the member (its partitions are
 * free at once, the group epoch moves); -2 keeps the static member and its partitions until it rejoins or its
 * session expires. [GroupMetadataManager.java `consumerGroupLeave`, `consumerGroupStaticMemberGroupLeave`]
 */
export function consumerGroupLeave(
  group: ConsumerGroup | null,
  req: HeartbeatInput,
  assignors: readonly ServerAssignor[],
  partitionCount: (topic: string) => number,
): { ok: false; error: KafkaError; message: string } | { ok: true; records: CoordinatorRecord[]; member: ConsumerGroupMember; temporary: boolean } {
  const invalid = validateHeartbeat(req, assignors);
  if (invalid) return { ok: false, ...invalid };
  if (group === null) return { ok: false, error: 'GROUP_ID_NOT_FOUND', message: `Consumer group ${req.groupId} not found.` };
  let member: ConsumerGroupMember | undefined;
  if (req.instanceId === null) {
    member = group.members.get(req.memberId);
    if (!member) return { ok: false, error: 'UNKNOWN_MEMBER_ID', message: `Member ${req.memberId} is not a member of group ${req.groupId}.` };
  } else {
    member = group.staticMember(req.instanceId);
    if (!member) return { ok: false, error: 'UNKNOWN_MEMBER_ID', message: `Instance id ${req.instanceId} is unknown.` };
    if (member.memberId !== req.memberId) return { ok: false, error: 'FENCED_INSTANCE_ID', message: `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.` };
  }
  if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH && req.instanceId !== null) {
    const leaving: ConsumerGroupMember = { ...member, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH, partitionsPendingRevocation: EMPTY_ASSIGNMENT };
    return { ok: true, records: [currentAssignmentRecord(group.groupId, member.memberId, currentAssignmentOf(leaving))], member: leaving, temporary: true };
  }
  return { ok: true, records: fenceMember(group, member.memberId, partitionCount), member, temporary: false };
}

/**
 * Removes a member (a leave, a session timeout, a rebalance timeout) and bumps the group epoch; the next
 * heartbeat of any member computes the new target. [GroupMetadataManager.java `consumerGroupFenceMember`]
 */
export function fenceMember(group: ConsumerGroup, memberId: string, partitionCount: (topic: string) => number): CoordinatorRecord[] {
  const member = group.members.get(memberId);
  // The subscribed topics without the member, so the next heartbeat does not see the metadata as changed.
  const remaining = group.subscribedTopicCounts(member ?? null, null);
  return [
    ...memberTombstones(group.groupId, memberId),
    groupEpochRecord(group.groupId, { epoch: group.groupEpoch + 1, metadataHash: metadataHashOf(remaining.keys(), partitionCount) }),
  ];
}
