import { array, bytes, int16, int32, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [SyncGroupRequest.json, SyncGroupResponse.json]
export const SyncGroupRequest = message('SyncGroupRequest', '0-5', '4+', [
  string('groupId', '0+'),
  int32('generationId', '0+'),
  string('memberId', '0+'),
  string('groupInstanceId', '3+', { nullable: '3+', default: null }),
  string('protocolType', '5+', { nullable: '5+', default: null }),
  string('protocolName', '5+', { nullable: '5+', default: null }),
  array('assignments', '0+', [string('memberId', '0+'), bytes('assignment', '0+')]),
]);

export const SyncGroupResponse = message('SyncGroupResponse', '0-5', '4+', [
  int32('throttleTimeMs', '1+'),
  int16('errorCode', '0+'),
  string('protocolType', '5+', { nullable: '5+', default: null }),
  string('protocolName', '5+', { nullable: '5+', default: null }),
  bytes('assignment', '0+'),
]);

export type SyncGroupRequestData = MessageOf<typeof SyncGroupRequest>;
export type SyncGroupResponseData = MessageOf<typeof SyncGroupResponse>;

export const syncGroup = defineApi({ key: 14, name: 'SyncGroup', request: SyncGroupRequest, response: SyncGroupResponse, minVersion: 0, maxVersion: 5 });
