import { array, int16, int32, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

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

export const leaveGroup = defineApi({ key: 13, name: 'LeaveGroup', request: LeaveGroupRequest, response: LeaveGroupResponse, minVersion: 0, maxVersion: 5 });
