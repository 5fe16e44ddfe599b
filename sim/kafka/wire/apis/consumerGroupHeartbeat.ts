import { newUuid } from '../../metadata/uuid';
import type { ConsumerGroupHeartbeatResponse as SimResponse } from '../../protocol';
import { array, int16, int32, message, scalarArray, string, struct, uuid, type MessageOf } from '../codec/schema';
import { defineApi } from './api';
import { code } from './support';

// [ConsumerGroupHeartbeatRequest.json, ConsumerGroupHeartbeatResponse.json] (KIP-848; v1: KIP-1082)
const topicPartitions = [uuid('topicId', '0+'), scalarArray('partitions', '0+', 'int32')] as const;

export const ConsumerGroupHeartbeatRequest = message('ConsumerGroupHeartbeatRequest', '0-1', '0+', [
  string('groupId', '0+'),
  string('memberId', '0+'),
  int32('memberEpoch', '0+'),
  string('instanceId', '0+', { nullable: '0+', default: null }),
  string('rackId', '0+', { nullable: '0+', default: null }),
  int32('rebalanceTimeoutMs', '0+', { default: -1 }),
  scalarArray('subscribedTopicNames', '0+', 'string', { nullable: '0+', default: null }),
  string('subscribedTopicRegex', '1+', { nullable: '1+', default: null }),
  string('serverAssignor', '0+', { nullable: '0+', default: null }),
  array('topicPartitions', '0+', topicPartitions, { nullable: '0+', default: null }),
]);

export const ConsumerGroupHeartbeatResponse = message('ConsumerGroupHeartbeatResponse', '0-1', '0+', [
  int32('throttleTimeMs', '0+'),
  int16('errorCode', '0+'),
  string('errorMessage', '0+', { nullable: '0+', default: null }),
  string('memberId', '0+', { nullable: '0+', default: null }),
  int32('memberEpoch', '0+'),
  int32('heartbeatIntervalMs', '0+'),
  struct('assignment', '0+', [array('topicPartitions', '0+', topicPartitions)], { nullable: '0+', default: null }),
]);

export type ConsumerGroupHeartbeatRequestData = MessageOf<typeof ConsumerGroupHeartbeatRequest>;
export type ConsumerGroupHeartbeatResponseData = MessageOf<typeof ConsumerGroupHeartbeatResponse>;

export const consumerGroupHeartbeat = defineApi({
  key: 68,
  name: 'ConsumerGroupHeartbeat',
  request: ConsumerGroupHeartbeatRequest,
  response: ConsumerGroupHeartbeatResponse,
  minVersion: 0,
  maxVersion: 1,
  // [KafkaApis.handleConsumerGroupHeartbeat; GroupCoordinatorService.consumerGroupHeartbeat]. The simulated
  // coordinator follows v1, where a joining member brings its own id; for a v0 member the broker makes one.
  handle(ctx, req) {
    const memberId = ctx.version === 0 && req.memberEpoch === 0 && req.memberId === '' ? newUuid(ctx.broker.random) : req.memberId;
    const simRequest = {
      type: 'ConsumerGroupHeartbeat',
      groupId: req.groupId,
      memberId,
      memberEpoch: req.memberEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: req.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicRegex,
      serverAssignor: req.serverAssignor,
      topicPartitions: req.topicPartitions,
    };
    ctx.call<SimResponse>(simRequest, (r) =>
      ctx.respond({
        throttleTimeMs: 0,
        errorCode: code(r.error),
        errorMessage: r.errorMessage,
        memberId: r.memberId,
        memberEpoch: r.memberEpoch,
        heartbeatIntervalMs: r.heartbeatIntervalMs,
        assignment: r.assignment === null ? null : { topicPartitions: r.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] })) },
      }),
    );
  },
});
