/**
 * A share group on its group coordinator, and ShareGroupHeartbeat as a decision on it. Like a KIP-848 consumer
 * group it has a group epoch (bumped by joins, leaves and subscription or partition-count changes), a target
 * assignment computed by the server assignor (`simple`) and member epochs; unlike it there is no revocation
 * step: a member moves to its target at once, because a partition may be held by several members.
 * [src: group-coordinator/.../GroupMetadataManager.java `shareGroupHeartbeat`, `shareGroupLeave`,
 * `throwIfShareGroupHeartbeatRequestIsInvalid`, `throwIfShareGroupMemberEpochIsInvalid`; modern/share/ShareGroup.java,
 * ShareGroupMember.java]
 */
import type { KafkaError } from '../errors';
import type { ShareGroupHeartbeatRequest, TopicPartitions } from './shareProtocol';
import { assignSimple } from './simpleAssignor';

/** memberEpoch sentinels. [ShareGroupHeartbeatRequest.json] */
export const JOIN_GROUP_MEMBER_EPOCH = 0;
export const LEAVE_GROUP_MEMBER_EPOCH = -1;

export interface ShareGroupMember {
  readonly memberId: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  topics: readonly string[];
  assignment: readonly TopicPartitions[];
  readonly clientId: string;
}

export class ShareGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ShareGroupMember>();
  /** The target assignment of the assignment epoch. */
  targets = new Map<string, TopicPartitions[]>();
  /** Partition counts of the subscribed topics when the target was computed: a change bumps the epoch. */
  partitionCounts = new Map<string, number>();

  constructor(readonly groupId: string) {}
}

export interface ShareHeartbeatContext {
  readonly clientId: string;
  readonly heartbeatIntervalMs: number;
  /** group.share.max.size */
  readonly maxSize: number;
  partitionCount(topic: string): number;
}

export interface ShareHeartbeatResult {
  readonly error: KafkaError;
  readonly errorMessage: string | null;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly assignment: readonly TopicPartitions[] | null;
  /** What changed, for the trace. */
  readonly joined: boolean;
  readonly left: boolean;
  readonly epochBump: string | null;
}

function refuse(error: KafkaError, req: ShareGroupHeartbeatRequest, errorMessage: string): ShareHeartbeatResult {
  return { error, errorMessage, memberId: req.memberId, memberEpoch: -1, assignment: null, joined: false, left: false, epochBump: null };
}

const sameTopics = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().every((t, i) => t === [...b].sort()[i]);

/** One ShareGroupHeartbeat. The group is changed in place (the simulator does not persist share-group membership; see README). */
export function shareGroupHeartbeat(group: ShareGroup, req: ShareGroupHeartbeatRequest, ctx: ShareHeartbeatContext): ShareHeartbeatResult {
  // [GroupMetadataManager.java `throwIfShareGroupHeartbeatRequestIsInvalid`]
  if (req.memberId === '') return refuse('INVALID_REQUEST', req, 'MemberId can\'t be empty.');
  if (req.memberEpoch < LEAVE_GROUP_MEMBER_EPOCH) return refuse('INVALID_REQUEST', req, 'MemberEpoch is invalid.');
  if (req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH && (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0)) {
    return refuse('INVALID_REQUEST', req, 'SubscribedTopicNames must be set in first request.');
  }
  let member = group.members.get(req.memberId);
  if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    if (!member) return refuse('UNKNOWN_MEMBER_ID', req, `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    removeShareGroupMember(group, req.memberId);
    return { error: 'NONE', errorMessage: null, memberId: req.memberId, memberEpoch: LEAVE_GROUP_MEMBER_EPOCH, assignment: null, joined: false, left: true, epochBump: 'member left' };
  }
  let joined = false;
  let epochBump: string | null = null;
  if (req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH) {
    if (!member && group.members.size >= ctx.maxSize) return refuse('GROUP_MAX_SIZE_REACHED', req, `The share group has reached its maximum capacity of ${ctx.maxSize} members.`);
    // A rejoin with the same id (its earlier epoch was lost or fenced) starts afresh.
    member = { memberId: req.memberId, memberEpoch: 0, previousMemberEpoch: -1, topics: req.subscribedTopicNames!, assignment: [], clientId: ctx.clientId };
    group.members.set(req.memberId, member);
    joined = true;
    epochBump = 'member joined';
  } else {
    // [GroupMetadataManager.java `throwIfShareGroupMemberEpochIsInvalid`]: the current epoch, or the previous one (a lost response).
    if (!member) return refuse('UNKNOWN_MEMBER_ID', req, `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    if (req.memberEpoch !== member.memberEpoch && req.memberEpoch !== member.previousMemberEpoch) {
      return refuse('FENCED_MEMBER_EPOCH', req, `The share group member has a greater member epoch (${member.memberEpoch}) than the one known by the member (${req.memberEpoch}).`);
    }
    if (req.subscribedTopicNames !== null && !sameTopics(req.subscribedTopicNames, member.topics)) {
      member.topics = req.subscribedTopicNames;
      epochBump = 'subscription changed';
    }
  }
  for (const t of new Set([...group.members.values()].flatMap((m) => m.topics))) {
    const n = ctx.partitionCount(t);
    if ((group.partitionCounts.get(t) ?? -1) !== n) epochBump ??= `partitions of ${t} changed`;
  }
  if (epochBump !== null) group.groupEpoch++;
  if (group.groupEpoch > group.assignmentEpoch) {
    const subs = [...group.members.values()].map((m) => ({ memberId: m.memberId, topics: m.topics }));
    group.targets = assignSimple(subs, ctx.partitionCount);
    group.partitionCounts = new Map([...new Set(subs.flatMap((s) => s.topics))].map((t) => [t, ctx.partitionCount(t)]));
    group.assignmentEpoch = group.groupEpoch;
  }
  let assignment: readonly TopicPartitions[] | null = null;
  if (member.memberEpoch !== group.assignmentEpoch) {
    // No revocation barrier in a share group: the member moves to the target epoch with its target at once.
    member.previousMemberEpoch = member.memberEpoch;
    member.memberEpoch = group.assignmentEpoch;
    const target = group.targets.get(member.memberId) ?? [];
    const changed = JSON.stringify(target) !== JSON.stringify(member.assignment);
    member.assignment = target;
    if (changed || joined) assignment = target;
  } else if (joined) assignment = member.assignment;
  return { error: 'NONE', errorMessage: null, memberId: member.memberId, memberEpoch: member.memberEpoch, assignment, joined, left: false, epochBump };
}

/** A member leaves or its session expires: it is removed and the group epoch moves. [GroupMetadataManager.java `shareGroupFenceMember`] */
export function removeShareGroupMember(group: ShareGroup, memberId: string): boolean {
  if (!group.members.delete(memberId)) return false;
  group.groupEpoch++;
  return true;
}
