import { array, bool, bytes, int16, int32, message, string, type MessageOf } from '../codec/schema';
import type { JoinGroupProtocol, JoinGroupResponse as SimJoinGroupResponse } from '../../protocol';
import { defineApi } from './api';
import { decodeSubscription, encodeSubscription, flatten, groupByTopic } from './consumerProtocol';
import { code } from './support';

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
/** A protocol's metadata as the simulated coordinator reads it: the consumer subscription inside, if it is one. */
function toSimProtocol(p: { name: string; metadata: Uint8Array }): JoinGroupProtocol {
  const s = decodeSubscription(p.metadata);
  return { name: p.name, topics: s?.topics ?? [], ownedPartitions: flatten(s?.ownedPartitions ?? []), generation: s?.generationId ?? -1 };
}

/** The metadata bytes the member sent, when they still say what the coordinator holds; else rebuilt from it. */
function metadataBytes(sent: Uint8Array | undefined, p: JoinGroupProtocol): Uint8Array {
  if (sent) return sent;
  return encodeSubscription({ topics: [...p.topics], userData: null, ownedPartitions: groupByTopic(p.ownedPartitions), generationId: p.generation, rackId: null });
}

export const joinGroup = defineApi({
  key: 11,
  name: 'JoinGroup',
  request: JoinGroupRequest,
  response: JoinGroupResponse,
  minVersion: 2,
  maxVersion: 9,
  // [KafkaApis.handleJoinGroupRequest; GroupCoordinatorService.joinGroup]
  handle(ctx, req) {
    const groups = ctx.state.groups;
    if (req.groupId === '') return ctx.respond({ errorCode: code('INVALID_GROUP_ID'), generationId: -1, protocolName: ctx.version >= 7 ? null : '', memberId: req.memberId });
    groups.rememberSubscription(req.groupId, req.memberId, req.protocols);
    const simRequest = {
      type: 'JoinGroup',
      groupId: req.groupId,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs < 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      protocolType: req.protocolType,
      protocols: req.protocols.map(toSimProtocol),
      reason: req.reason ?? '',
    };
    ctx.call<SimJoinGroupResponse>(simRequest, (r) => {
      if (r.memberId !== '' && r.memberId !== req.memberId) groups.rememberSubscription(req.groupId, r.memberId, req.protocols);
      if (r.error === 'NONE' && r.protocolName !== null) groups.rememberProtocol(req.groupId, req.protocolType, r.protocolName);
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: code(r.error),
        generationId: r.generationId,
        protocolType: r.error === 'NONE' ? req.protocolType : null,
        protocolName: r.protocolName ?? (ctx.version >= 7 ? null : ''),
        leader: r.leader,
        skipAssignment: r.skipAssignment,
        memberId: r.memberId,
        members: r.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          metadata: metadataBytes(groups.subscription(req.groupId, m.memberId, m.metadata.name), m.metadata),
        })),
      });
    });
  },
});
