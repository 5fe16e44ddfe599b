import type { KafkaError } from '../../errors';
import type { OffsetsForLeaderEpochResponse as SimResponse } from '../../protocol';
import { array, int16, int32, int64, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';
import { code, partitionExists } from './support';

// [OffsetForLeaderEpochRequest.json, OffsetForLeaderEpochResponse.json] (KIP-101, KIP-320)
export const OffsetForLeaderEpochRequest = message('OffsetForLeaderEpochRequest', '0-4', '4+', [
  int32('replicaId', '3+', { default: -2 }),
  array('topics', '0+', [string('topic', '0+'), array('partitions', '0+', [int32('partition', '0+'), int32('currentLeaderEpoch', '2+', { default: -1 }), int32('leaderEpoch', '0+')])]),
]);

export const OffsetForLeaderEpochResponse = message('OffsetForLeaderEpochResponse', '0-4', '4+', [
  int32('throttleTimeMs', '2+'),
  array('topics', '0+', [
    string('topic', '0+'),
    array('partitions', '0+', [int16('errorCode', '0+'), int32('partition', '0+'), int32('leaderEpoch', '1+', { default: -1 }), int64('endOffset', '0+', { default: -1 })]),
  ]),
]);

export type OffsetForLeaderEpochRequestData = MessageOf<typeof OffsetForLeaderEpochRequest>;
export type OffsetForLeaderEpochResponseData = MessageOf<typeof OffsetForLeaderEpochResponse>;

export const offsetForLeaderEpoch = defineApi({
  key: 23,
  name: 'OffsetForLeaderEpoch',
  request: OffsetForLeaderEpochRequest,
  response: OffsetForLeaderEpochResponse,
  // KIP-896 removed versions 0-1.
  minVersion: 2,
  maxVersion: 4,
  // [KafkaApis.handleOffsetForLeaderEpochRequest]: a consumer checks that its position survived a leader change.
  handle(ctx, req) {
    const answers = new Map<string, { error: KafkaError; leaderEpoch: number; endOffset: number }>();
    const asked: { topic: string; partition: number; currentLeaderEpoch: number; leaderEpoch: number }[] = [];
    for (const t of req.topics) {
      for (const p of t.partitions) {
        if (partitionExists(ctx.broker, t.topic, p.partition)) asked.push({ topic: t.topic, partition: p.partition, currentLeaderEpoch: p.currentLeaderEpoch, leaderEpoch: p.leaderEpoch });
        else answers.set(`${t.topic}\u0000${p.partition}`, { error: 'UNKNOWN_TOPIC_OR_PARTITION', leaderEpoch: -1, endOffset: -1 });
      }
    }
    const answer = () =>
      ctx.respond({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map((p) => {
            const a = answers.get(`${t.topic}\u0000${p.partition}`)!;
            return { errorCode: code(a.error), partition: p.partition, leaderEpoch: a.leaderEpoch, endOffset: a.endOffset };
          }),
        })),
      });
    if (asked.length === 0) return answer();
    ctx.call<SimResponse>({ type: 'OffsetsForLeaderEpoch', partitions: asked }, (r) => {
      for (const p of r.partitions) answers.set(`${p.topic}\u0000${p.partition}`, { error: p.error, leaderEpoch: p.leaderEpoch, endOffset: p.endOffset });
      answer();
    });
  },
});
