import { int16, int32, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [HeartbeatRequest.json, HeartbeatResponse.json]
export const HeartbeatRequest = message('HeartbeatRequest', '0-4', '4+', [
  string('groupId', '0+'),
  int32('generationId', '0+'),
  string('memberId', '0+'),
  string('groupInstanceId', '3+', { nullable: '3+', default: null }),
]);

export const HeartbeatResponse = message('HeartbeatResponse', '0-4', '4+', [int32('throttleTimeMs', '1+'), int16('errorCode', '0+')]);

export type HeartbeatRequestData = MessageOf<typeof HeartbeatRequest>;
export type HeartbeatResponseData = MessageOf<typeof HeartbeatResponse>;

export const heartbeat = defineApi({ key: 12, name: 'Heartbeat', request: HeartbeatRequest, response: HeartbeatResponse, minVersion: 0, maxVersion: 4 });
