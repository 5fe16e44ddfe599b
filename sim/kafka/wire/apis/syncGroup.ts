import { array, bytes, int16, int32, message, string, type MessageOf } from '../codec/schema';
import type { SyncGroupResponse as SimSyncGroupResponse } from '../../protocol';
import { defineApi } from './api';
import { decodeAssignment, encodeAssignment, flatten, groupByTopic } from './consumerProtocol';
import { code } from './support';

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

const sameSet = (a: readonly { topic: string; partition: number }[], b: readonly { topic: string; partition: number }[]) => {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((tp) => `${tp.topic}\u0000${tp.partition}`));
  return b.every((tp) => keys.has(`${tp.topic}\u0000${tp.partition}`));
};

export const syncGroup = defineApi({
  key: 14,
  name: 'SyncGroup',
  request: SyncGroupRequest,
  response: SyncGroupResponse,
  minVersion: 0,
  maxVersion: 5,
  // [KafkaApis.handleSyncGroupRequest; GroupCoordinatorService.syncGroup]
  handle(ctx, req) {
    const groups = ctx.state.groups;
    if (req.assignments.length > 0) groups.rememberAssignments(req.groupId, req.generationId, req.assignments);
    const simRequest = {
      type: 'SyncGroup',
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      assignments: req.assignments.map((a) => ({ memberId: a.memberId, partitions: flatten(decodeAssignment(a.assignment)?.assignedPartitions ?? []) })),
    };
    ctx.call<SimSyncGroupResponse>(simRequest, (r) => {
      let assignment: Uint8Array = new Uint8Array(0);
      if (r.error === 'NONE') {
        // The leader's own bytes for this member, unless the coordinator holds a different assignment.
        const sent = groups.assignment(req.groupId, req.generationId, req.memberId);
        const sentPartitions = sent && decodeAssignment(sent);
        assignment = sent && sentPartitions && sameSet(flatten(sentPartitions.assignedPartitions), r.partitions) ? sent : encodeAssignment({ assignedPartitions: groupByTopic(r.partitions), userData: null });
      }
      const chosen = groups.protocol(req.groupId);
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: code(r.error),
        protocolType: r.error === 'NONE' ? (req.protocolType ?? chosen?.protocolType ?? null) : null,
        protocolName: r.error === 'NONE' ? (req.protocolName ?? chosen?.protocolName ?? null) : null,
        assignment,
      });
    });
  },
});
