import { array, int16, int32, int64, int8, message, scalarArray, string, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, type ListOffsetsResponse as SimListOffsetsResponse } from '../../protocol';
import { defineApi } from './api';
import { code, isLeadershipError, partitionExists } from './support';

// [ListOffsetsRequest.json, ListOffsetsResponse.json]
export const ListOffsetsRequest = message('ListOffsetsRequest', '0-10', '6+', [
  int32('replicaId', '0+'),
  int8('isolationLevel', '2+'),
  array('topics', '0+', [
    string('name', '0+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int32('currentLeaderEpoch', '4+', { default: -1 }),
      int64('timestamp', '0+'),
      int32('maxNumOffsets', '0', { default: 1 }),
    ]),
  ]),
  int32('timeoutMs', '10+'),
]);

export const ListOffsetsResponse = message('ListOffsetsResponse', '0-10', '6+', [
  int32('throttleTimeMs', '2+'),
  array('topics', '0+', [
    string('name', '0+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int16('errorCode', '0+'),
      scalarArray('oldStyleOffsets', '0', 'int64'),
      int64('timestamp', '1+', { default: -1 }),
      int64('offset', '1+', { default: -1 }),
      int32('leaderEpoch', '4+', { default: -1 }),
    ]),
  ]),
]);

export type ListOffsetsRequestData = MessageOf<typeof ListOffsetsRequest>;
export type ListOffsetsResponseData = MessageOf<typeof ListOffsetsResponse>;

// KIP-896 removed version 0.
/** ListOffsetsRequest's special timestamps [ListOffsetsRequest.java]. */
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL_TIMESTAMP = -4;
const EARLIEST_PENDING_UPLOAD_TIMESTAMP = -5;

interface Answer {
  error: KafkaError;
  timestamp: number;
  offset: number;
  leaderEpoch: number;
}

export const listOffsets = defineApi({
  key: 2,
  name: 'ListOffsets',
  request: ListOffsetsRequest,
  response: ListOffsetsResponse,
  minVersion: 1,
  maxVersion: 10,
  // [KafkaApis.handleListOffsetRequest; ReplicaManager.fetchOffset]
  handle(ctx, req) {
    const b = ctx.broker;
    const answers = new Map<string, Answer>();
    const asked: { topic: string; partition: number; timestamp: number; currentLeaderEpoch: number }[] = [];
    for (const t of req.topics) {
      for (const p of t.partitions) {
        const key = `${t.name}\u0000${p.partitionIndex}`;
        let ts = p.timestamp;
        if (!partitionExists(b, t.name, p.partitionIndex)) {
          answers.set(key, { error: 'UNKNOWN_TOPIC_OR_PARTITION', timestamp: -1, offset: -1, leaderEpoch: -1 });
          continue;
        }
        // Without tiered storage the earliest local offset is the earliest offset, and nothing is pending upload.
        if (ts === EARLIEST_LOCAL_TIMESTAMP) ts = EARLIEST_TIMESTAMP;
        if (ts === EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
          answers.set(key, { error: 'NONE', timestamp: -1, offset: -1, leaderEpoch: -1 });
          continue;
        }
        if (ts === MAX_TIMESTAMP || ts < EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
          answers.set(key, { error: 'INVALID_REQUEST', timestamp: -1, offset: -1, leaderEpoch: -1 });
          continue;
        }
        const simTs = ts === EARLIEST_TIMESTAMP || ts === LATEST_TIMESTAMP ? ts : Math.max(0, ts - b.epochMs);
        asked.push({ topic: t.name, partition: p.partitionIndex, timestamp: simTs, currentLeaderEpoch: p.currentLeaderEpoch });
      }
    }
    const answer = () =>
      ctx.respond({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const a = answers.get(`${t.name}\u0000${p.partitionIndex}`)!;
            return { partitionIndex: p.partitionIndex, errorCode: code(a.error), timestamp: a.timestamp, offset: a.offset, leaderEpoch: a.leaderEpoch };
          }),
        })),
      });
    if (asked.length === 0) return answer();
    const isolationLevel = req.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted';
    ctx.call<SimListOffsetsResponse>({ type: 'ListOffsets', isolationLevel, partitions: asked }, (r) => {
      for (const p of r.partitions) {
        // The simulated broker answers NOT_LEADER_OR_FOLLOWER for a partition it does not lead; so does Kafka.
        answers.set(`${p.topic}\u0000${p.partition}`, { error: p.error, timestamp: -1, offset: p.error === 'NONE' ? p.offset : -1, leaderEpoch: isLeadershipError(p.error) ? -1 : p.leaderEpoch });
      }
      answer();
    });
  },
});
