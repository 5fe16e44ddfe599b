import { array, int16, int32, int64, message, string, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import type { OffsetCommitResponse as SimOffsetCommitResponse } from '../../protocol';
import { defineApi } from './api';
import { code, partitionExists } from './support';

// [OffsetCommitRequest.json, OffsetCommitResponse.json]
export const OffsetCommitRequest = message('OffsetCommitRequest', '0-9', '8+', [
  string('groupId', '0+'),
  int32('generationIdOrMemberEpoch', '1+', { default: -1 }),
  string('memberId', '1+'),
  string('groupInstanceId', '7+', { nullable: '7+', default: null }),
  int64('retentionTimeMs', '2-4', { default: -1 }),
  array('topics', '0+', [
    string('name', '0+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int64('committedOffset', '0+'),
      int32('committedLeaderEpoch', '6+', { default: -1 }),
      int64('commitTimestamp', '1', { default: -1 }),
      string('committedMetadata', '0+', { nullable: '0+' }),
    ]),
  ]),
]);

export const OffsetCommitResponse = message('OffsetCommitResponse', '0-9', '8+', [
  int32('throttleTimeMs', '3+'),
  array('topics', '0+', [string('name', '0+'), array('partitions', '0+', [int32('partitionIndex', '0+'), int16('errorCode', '0+')])]),
]);

export type OffsetCommitRequestData = MessageOf<typeof OffsetCommitRequest>;
export type OffsetCommitResponseData = MessageOf<typeof OffsetCommitResponse>;

// KIP-896 removed versions 0-1.
export const offsetCommit = defineApi({
  key: 8,
  name: 'OffsetCommit',
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
  minVersion: 2,
  maxVersion: 9,
  // [KafkaApis.handleOffsetCommitRequest: partitions of unknown topics are answered UNKNOWN_TOPIC_OR_PARTITION]
  handle(ctx, req) {
    const b = ctx.broker;
    const errors = new Map<string, KafkaError>();
    const offsets: { topic: string; partition: number; offset: number; leaderEpoch: number; metadata: string }[] = [];
    for (const t of req.topics) {
      for (const p of t.partitions) {
        if (!partitionExists(b, t.name, p.partitionIndex)) errors.set(`${t.name}\u0000${p.partitionIndex}`, 'UNKNOWN_TOPIC_OR_PARTITION');
        else offsets.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata ?? '' });
      }
    }
    const answer = () =>
      ctx.respond({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code(errors.get(`${t.name}\u0000${p.partitionIndex}`) ?? 'NONE') })) })),
      });
    if (offsets.length === 0 && req.topics.length > 0) return answer();
    const simRequest = { type: 'OffsetCommit', groupId: req.groupId, generationId: req.generationIdOrMemberEpoch, memberId: req.memberId, groupInstanceId: req.groupInstanceId, offsets };
    ctx.call<SimOffsetCommitResponse>(simRequest, (r) => {
      for (const p of r.partitions) errors.set(`${p.topic}\u0000${p.partition}`, p.error);
      answer();
    });
  },
});
