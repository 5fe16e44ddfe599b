import { array, bool, bytes, int16, int32, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [JoinGroupRequest.json, JoinGroupResponse.json]
export const JoinGroupRequest = message('JoinGroupRequest', '0-9', '6+', [
  string('groupId', '0+'),
  int32('sessionTimeoutMs', '0+'),
  int32('rebalanceTimeoutMs', '1+', { default: -1 }),
  string('memberId', '0+'),
  string('groupInstanceId', '5+', { nullable: '5+', default: null }),
  string('protocolType', '0+'),
  array('protocols', '0+', [string('name', '0+'), bytes('metadata', '0+')]),
  string('reason', '8+', { nullable: '8+', default: null }),
]);

export const JoinGroupResponse = message('JoinGroupResponse', '0-9', '6+', [
  int32('throttleTimeMs', '2+'),
  int16('errorCode', '0+'),
  int32('generationId', '0+', { default: -1 }),
  string('protocolType', '7+', { nullable: '7+', default: null }),
  string('protocolName', '0+', { nullable: '7+' }),
  string('leader', '0+'),
  bool('skipAssignment', '9+'),
  string('memberId', '0+'),
  array('members', '0+', [string('memberId', '0+'), string('groupInstanceId', '5+', { nullable: '5+', default: null }), bytes('metadata', '0+')]),
]);

export type JoinGroupRequestData = MessageOf<typeof JoinGroupRequest>;
export type JoinGroupResponseData = MessageOf<typeof JoinGroupResponse>;

// KIP-896 removed versions 0-1.
export const joinGroup = defineApi({ key: 11, name: 'JoinGroup', request: JoinGroupRequest, response: JoinGroupResponse, minVersion: 2, maxVersion: 9 });
