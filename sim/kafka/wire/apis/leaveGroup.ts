import { array, int16, int32, message, string, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import type { LeaveGroupResponse as SimLeaveGroupResponse } from '../../protocol';
import { defineApi } from './api';
import { code } from './support';

// [LeaveGroupRequest.json, LeaveGroupResponse.json]; v3+ leaves many members at once (KIP-345).
export const LeaveGroupRequest = message('LeaveGroupRequest', '0-5', '4+', [
  string('groupId', '0+'),
  string('memberId', '0-2'),
  array('members', '3+', [
    string('memberId', '3+'),
    string('groupInstanceId', '3+', { nullable: '3+', default: null }),
    string('reason', '5+', { nullable: '5+', default: null }),
  ]),
]);

export const LeaveGroupResponse = message('LeaveGroupResponse', '0-5', '4+', [
  int32('throttleTimeMs', '1+'),
  int16('errorCode', '0+'),
  array('members', '3+', [string('memberId', '3+'), string('groupInstanceId', '3+', { nullable: '3+' }), int16('errorCode', '3+')]),
]);

export type LeaveGroupRequestData = MessageOf<typeof LeaveGroupRequest>;
export type LeaveGroupResponseData = MessageOf<typeof LeaveGroupResponse>;

/** Errors about the coordinator rather than a member: the whole response carries them. */
const GROUP_LEVEL: ReadonlySet<KafkaError> = new Set(['COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS', 'NOT_COORDINATOR', 'INVALID_GROUP_ID', 'GROUP_ID_NOT_FOUND']);

export const leaveGroup = defineApi({
  key: 13,
  name: 'LeaveGroup',
  request: LeaveGroupRequest,
  response: LeaveGroupResponse,
  minVersion: 0,
  maxVersion: 5,
  // [KafkaApis.handleLeaveGroupRequest]; v3+ (KIP-345) names several members and answers each.
  handle(ctx, req) {
    const members = ctx.version < 3 ? [{ memberId: req.memberId, groupInstanceId: null, reason: null }] : req.members;
    const simRequest = { type: 'LeaveGroup', groupId: req.groupId, members: members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, reason: m.reason ?? '' })) };
    ctx.call<SimLeaveGroupResponse>(simRequest, (r) => {
      for (const m of members) ctx.state.groups.forgetMember(req.groupId, m.memberId);
      const groupLevel = ctx.version < 3 || GROUP_LEVEL.has(r.error);
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: groupLevel ? code(r.error) : 0,
        members: groupLevel ? [] : members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: code(r.error) })),
      });
    });
  },
});
