import { int16, int32, message, string, type MessageOf } from '../codec/schema';
import type { HeartbeatResponse as SimHeartbeatResponse } from '../../protocol';
import { defineApi } from './api';
import { code } from './support';

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

export const heartbeat = defineApi({
  key: 12,
  name: 'Heartbeat',
  request: HeartbeatRequest,
  response: HeartbeatResponse,
  minVersion: 0,
  maxVersion: 4,
  // [KafkaApis.handleHeartbeatRequest]
  handle(ctx, req) {
    const simRequest = { type: 'Heartbeat', groupId: req.groupId, generationId: req.generationId, memberId: req.memberId, groupInstanceId: req.groupInstanceId };
    ctx.call<SimHeartbeatResponse>(simRequest, (r) => ctx.respond({ throttleTimeMs: 0, errorCode: code(r.error) }));
  },
});
