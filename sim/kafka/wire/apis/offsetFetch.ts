import { array, bool, int16, int32, int64, message, scalarArray, string, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import type { OffsetFetchResponse as SimOffsetFetchResponse } from '../../protocol';
import type { WireRequestContext } from '../context';
import { defineApi } from './api';
import { groupByTopic } from './consumerProtocol';
import { code } from './support';

// [OffsetFetchRequest.json, OffsetFetchResponse.json]; v8+ asks for many groups at once (KIP-709).
export const OffsetFetchRequest = message('OffsetFetchRequest', '0-9', '6+', [
  string('groupId', '0-7'),
  array('topics', '0-7', [string('name', '0-7'), scalarArray('partitionIndexes', '0-7', 'int32')], { nullable: '2-7' }),
  array('groups', '8+', [
    string('groupId', '8+'),
    string('memberId', '9+', { nullable: '9+', default: null }),
    int32('memberEpoch', '9+', { default: -1 }),
    array('topics', '8+', [string('name', '8+'), scalarArray('partitionIndexes', '8+', 'int32')], { nullable: '8+' }),
  ]),
  bool('requireStable', '7+'),
]);

export const OffsetFetchResponse = message('OffsetFetchResponse', '0-9', '6+', [
  int32('throttleTimeMs', '3+'),
  array('topics', '0-7', [
    string('name', '0-7'),
    array('partitions', '0-7', [
      int32('partitionIndex', '0-7'),
      int64('committedOffset', '0-7'),
      int32('committedLeaderEpoch', '5-7', { default: -1 }),
      string('metadata', '0-7', { nullable: '0-7' }),
      int16('errorCode', '0-7'),
    ]),
  ]),
  int16('errorCode', '2-7'),
  array('groups', '8+', [
    string('groupId', '8+'),
    array('topics', '8+', [
      string('name', '8+'),
      array('partitions', '8+', [
        int32('partitionIndex', '8+'),
        int64('committedOffset', '8+'),
        int32('committedLeaderEpoch', '8+', { default: -1 }),
        string('metadata', '8+', { nullable: '8+' }),
        int16('errorCode', '8+'),
      ]),
    ]),
    int16('errorCode', '8+'),
  ]),
]);

export type OffsetFetchRequestData = MessageOf<typeof OffsetFetchRequest>;
export type OffsetFetchResponseData = MessageOf<typeof OffsetFetchResponse>;

// KIP-896 removed version 0.
interface GroupOffsets {
  readonly error: KafkaError;
  readonly topics: { name: string; partitions: { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; metadata: string; errorCode: number }[] }[];
}

/** One group's committed offsets through the simulated coordinator; `topics` null = every committed partition. */
function fetchGroup(ctx: WireRequestContext<OffsetFetchResponseData>, groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null, done: (g: GroupOffsets) => void): void {
  const partitions = topics === null ? null : topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
  ctx.call<SimOffsetFetchResponse>({ type: 'OffsetFetch', groupId, partitions }, (r) => {
    const byTopic = groupByTopic(r.partitions);
    const of = new Map(r.partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p]));
    done({
      error: r.error,
      topics: byTopic.map((t) => ({
        name: t.topic,
        partitions: t.partitions.map((partition) => {
          const p = of.get(`${t.topic}\u0000${partition}`)!;
          return { partitionIndex: partition, committedOffset: p.offset, committedLeaderEpoch: p.leaderEpoch, metadata: '', errorCode: code(p.error) };
        }),
      })),
    });
  });
}

export const offsetFetch = defineApi({
  key: 9,
  name: 'OffsetFetch',
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
  minVersion: 1,
  maxVersion: 9,
  // [KafkaApis.handleOffsetFetchRequest]; v8+ (KIP-709) asks for several groups. Without transactions
  // requireStable changes nothing: no offset is ever pending.
  handle(ctx, req) {
    if (ctx.version < 8) {
      return fetchGroup(ctx, req.groupId, req.topics, (g) => {
        // v1 has no top-level error: each partition carries it.
        const topics = ctx.version < 2 && g.error !== 'NONE' ? (req.topics ?? []).map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: code(g.error) })) })) : g.topics;
        ctx.respond({ throttleTimeMs: 0, topics, errorCode: code(g.error) });
      });
    }
    const out: { groupId: string; topics: GroupOffsets['topics']; errorCode: number }[] = [];
    const next = (i: number): void => {
      if (i >= req.groups.length) return ctx.respond({ throttleTimeMs: 0, groups: out });
      const g = req.groups[i]!;
      fetchGroup(ctx, g.groupId, g.topics, (r) => {
        out.push({ groupId: g.groupId, topics: r.topics, errorCode: code(r.error) });
        next(i + 1);
      });
    };
    next(0);
  },
});
