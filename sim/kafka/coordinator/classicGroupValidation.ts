/**
 * The classic group coordinator's request checks, as pure functions of the group's state: who may heartbeat,
 * sync or commit, and which error each failure gets.
 */
import type { KafkaError } from '../errors';
import type { ClassicGroupState } from './classicGroupState';

/** The parts of a group the checks read. */
export interface GroupView {
  readonly state: ClassicGroupState;
  readonly generationId: number;
  hasMember(memberId: string): boolean;
  staticMemberId(groupInstanceId: string): string | undefined;
}

/**
 * A static member must be the instance's current member id (else FENCED_INSTANCE_ID); any member must exist.
 * [group-coordinator/.../classic/ClassicGroup.java `validateMember`]
 */
export function validateMember(group: GroupView, memberId: string, groupInstanceId: string | null): KafkaError {
  if (groupInstanceId !== null) {
    const existing = group.staticMemberId(groupInstanceId);
    if (existing === undefined) return 'UNKNOWN_MEMBER_ID';
    if (existing !== memberId) return 'FENCED_INSTANCE_ID';
  }
  return group.hasMember(memberId) ? 'NONE' : 'UNKNOWN_MEMBER_ID';
}

/**
 * An OffsetCommit from a member must carry its current generation; commits without a generation (-1) are only
 * accepted from outside the group (manual assignment, admin) while the group is Empty; nobody may commit while
 * the group waits for the leader's assignment. A TxnOffsetCommit (`isTransactional`) without group metadata is
 * accepted, and one with it is checked for member and generation only (KIP-447).
 * [ClassicGroup.java `validateOffsetCommit`]
 */
export function validateOffsetCommit(group: GroupView, memberId: string, groupInstanceId: string | null, generationId: number, isTransactional = false): KafkaError {
  if (group.state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  if (generationId < 0 && group.state === 'Empty') return 'NONE';
  if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
    const e = validateMember(group, memberId, groupInstanceId);
    if (e !== 'NONE') return e;
    if (generationId !== group.generationId) return 'ILLEGAL_GENERATION';
  } else if (!isTransactional && group.state !== 'Empty') {
    return 'UNKNOWN_MEMBER_ID';
  }
  if (!isTransactional && group.state === 'CompletingRebalance') return 'REBALANCE_IN_PROGRESS';
  return 'NONE';
}

/** [group-coordinator/.../GroupMetadataManager.java `validateClassicGroupHeartbeat`, `classicGroupHeartbeatToClassicGroup`] */
export function heartbeatError(group: GroupView, memberId: string, groupInstanceId: string | null, generationId: number): KafkaError {
  if (group.state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  const e = validateMember(group, memberId, groupInstanceId);
  if (e !== 'NONE') return e;
  if (generationId !== group.generationId) return 'ILLEGAL_GENERATION';
  if (group.state === 'Empty') return 'UNKNOWN_MEMBER_ID';
  if (group.state === 'PreparingRebalance') return 'REBALANCE_IN_PROGRESS';
  return 'NONE';
}

/** [GroupMetadataManager.java `validateSyncGroup`] (the protocol type/name check needs fields our request does not carry). */
export function syncGroupError(group: GroupView, memberId: string, groupInstanceId: string | null, generationId: number): KafkaError {
  if (group.state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE';
  const e = validateMember(group, memberId, groupInstanceId);
  if (e !== 'NONE') return e;
  if (generationId !== group.generationId) return 'ILLEGAL_GENERATION';
  return 'NONE';
}

/** session.timeout.ms must lie within the broker's bounds. [group-coordinator/.../GroupCoordinatorService.java `joinGroup`] */
export function sessionTimeoutError(sessionTimeoutMs: number, minMs: number, maxMs: number): KafkaError {
  return sessionTimeoutMs < minMs || sessionTimeoutMs > maxMs ? 'INVALID_SESSION_TIMEOUT' : 'NONE';
}

/**
 * How a failed write to `__consumer_offsets` is reported to the client.
 * [coordinator-common/.../runtime/CoordinatorOperationExceptionHelper.java `handleOperationException`;
 *  GroupMetadataManager.java `appendGroupMetadataErrorToResponseError`]
 */
export function appendErrorToResponseError(error: KafkaError): KafkaError {
  switch (error) {
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
    case 'REQUEST_TIMED_OUT':
      return 'COORDINATOR_NOT_AVAILABLE';
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'KAFKA_STORAGE_ERROR':
      return 'NOT_COORDINATOR';
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      return 'UNKNOWN_SERVER_ERROR';
    case 'NETWORK_EXCEPTION':
      return 'COORDINATOR_LOAD_IN_PROGRESS';
    default:
      return error;
  }
}
