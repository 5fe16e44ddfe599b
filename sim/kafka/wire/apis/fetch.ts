import { array, int16, int32, int64, int8, message, records, scalarArray, string, struct, uuid, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import type { FetchPartitionResponse, FetchResponse as SimFetchResponse, FetchPartition } from '../../protocol';
import { ByteWriter } from '../codec/bytes';
import { mustRespond, type CachedPartition, type PartitionUpdate } from '../fetchSessions';
import { writeBatch } from '../records/recordBatch';
import { toWireBatch } from '../simRecords';
import type { RecordBatch } from '../../records';
import type { Body } from '../context';
import { defineApi } from './api';
import { brokerNodes, code, isLeadershipError, leaderOf, partitionExists } from './support';

// [FetchRequest.json, FetchResponse.json]
export const FetchRequest = message('FetchRequest', '0-17', '12+', [
  string('clusterId', '12+', { nullable: '12+', default: null, tag: 0 }),
  int32('replicaId', '0-14', { default: -1 }),
  struct('replicaState', '15+', [int32('replicaId', '15+', { default: -1 }), int64('replicaEpoch', '15+', { default: -1 })], { tag: 1 }),
  int32('maxWaitMs', '0+'),
  int32('minBytes', '0+'),
  int32('maxBytes', '3+', { default: 0x7fffffff }),
  int8('isolationLevel', '4+'),
  int32('sessionId', '7+'),
  int32('sessionEpoch', '7+', { default: -1 }),
  array('topics', '0+', [
    string('topic', '0-12'),
    uuid('topicId', '13+'),
    array('partitions', '0+', [
      int32('partition', '0+'),
      int32('currentLeaderEpoch', '9+', { default: -1 }),
      int64('fetchOffset', '0+'),
      int32('lastFetchedEpoch', '12+', { default: -1 }),
      int64('logStartOffset', '5+', { default: -1 }),
      int32('partitionMaxBytes', '0+'),
      uuid('replicaDirectoryId', '17+', { tag: 0 }),
    ]),
  ]),
  array('forgottenTopicsData', '7+', [string('topic', '7-12'), uuid('topicId', '13+'), scalarArray('partitions', '7+', 'int32')]),
  string('rackId', '11+'),
]);

export const FetchResponse = message('FetchResponse', '0-17', '12+', [
  int32('throttleTimeMs', '1+'),
  int16('errorCode', '7+'),
  int32('sessionId', '7+'),
  array('responses', '0+', [
    string('topic', '0-12'),
    uuid('topicId', '13+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int16('errorCode', '0+'),
      int64('highWatermark', '0+'),
      int64('lastStableOffset', '4+', { default: -1 }),
      int64('logStartOffset', '5+', { default: -1 }),
      struct('divergingEpoch', '12+', [int32('epoch', '12+', { default: -1 }), int64('endOffset', '12+', { default: -1 })], { tag: 0 }),
      // KIP-951: the leader as this broker knows it, with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH.
      struct('currentLeader', '12+', [int32('leaderId', '12+', { default: -1 }), int32('leaderEpoch', '12+', { default: -1 })], { tag: 1 }),
      struct('snapshotId', '12+', [int64('endOffset', '0+', { default: -1 }), int32('epoch', '0+', { default: -1 })], { tag: 2 }),
      array('abortedTransactions', '4+', [int64('producerId', '4+'), int64('firstOffset', '4+')], { nullable: '4+' }),
      int32('preferredReadReplica', '11+', { default: -1 }),
      records('records', '0+', { nullable: '0+' }),
    ]),
  ]),
  array('nodeEndpoints', '16+', [int32('nodeId', '16+'), string('host', '16+'), int32('port', '16+'), string('rack', '16+', { nullable: '16+', default: null })], { tag: 0 }),
]);

export type FetchRequestData = MessageOf<typeof FetchRequest>;
export type FetchResponseData = MessageOf<typeof FetchResponse>;

// KIP-896 removed versions 0-3.
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const NO_RECORDS = new Uint8Array(0);

type PartitionData = Body<FetchResponseData['responses'][number]['partitions'][number]>;

/**
 * Each stored batch's bytes on the wire, encoded (and checksummed) once: a batch object never changes, and every
 * consumer of a partition fetches the same ones.
 */
const encoded = new WeakMap<RecordBatch, { readonly epochMs: number; readonly bytes: Uint8Array }>();

function batchBytes(b: RecordBatch, epochMs: number): Uint8Array {
  const hit = encoded.get(b);
  if (hit && hit.epochMs === epochMs) return hit.bytes;
  const w = new ByteWriter(b.sizeInBytes + 64);
  const { batch, section } = toWireBatch(b, epochMs);
  writeBatch(w, batch, section);
  const bytes = w.toBytes();
  encoded.set(b, { epochMs, bytes });
  return bytes;
}

/** The batches a fetch returns, as the bytes of a records field. */
export function encodeSimBatches(batches: readonly RecordBatch[], epochMs: number): Uint8Array {
  if (batches.length === 0) return NO_RECORDS;
  if (batches.length === 1) return batchBytes(batches[0]!, epochMs);
  const parts = batches.map((b) => batchBytes(b, epochMs));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A partition named in the request that this broker cannot serve at all (unknown topic id or partition). */
interface Refused {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly error: KafkaError;
}

export const fetch = defineApi({
  key: 1,
  name: 'Fetch',
  request: FetchRequest,
  response: FetchResponse,
  minVersion: 4,
  maxVersion: 17,
  // [KafkaApis.handleFetchRequest; FetchManager.newContext; ReplicaManager.fetchMessages]. A wire client is
  // always a consumer here: the simulated brokers replicate among themselves.
  handle(ctx, req) {
    const b = ctx.broker;
    const byId = ctx.version >= 13;
    const nowMs = Math.floor(b.nowUs() / 1000);
    const updates: PartitionUpdate[] = [];
    const refused: Refused[] = [];
    const resolve = (name: string, topicId: string): { name: string | undefined; topicId: string } => {
      if (byId) return { name: b.image.topicById(topicId)?.name, topicId };
      return { name, topicId: b.image.topicByName(name)?.topicId ?? ZERO };
    };
    for (const t of req.topics) {
      const r = resolve(t.topic, t.topicId);
      for (const p of t.partitions) {
        if (r.name === undefined) refused.push({ topic: t.topic, topicId: t.topicId, partition: p.partition, error: 'UNKNOWN_TOPIC_ID' });
        else if (!partitionExists(b, r.name, p.partition)) refused.push({ topic: r.name, topicId: r.topicId, partition: p.partition, error: 'UNKNOWN_TOPIC_OR_PARTITION' });
        else
          updates.push({
            topic: r.name,
            topicId: r.topicId,
            partition: p.partition,
            fetchOffset: p.fetchOffset,
            currentLeaderEpoch: p.currentLeaderEpoch,
            lastFetchedEpoch: p.lastFetchedEpoch,
            logStartOffset: p.logStartOffset,
            maxBytes: p.partitionMaxBytes,
          });
      }
    }
    const forgotten: { topic: string; partition: number }[] = [];
    for (const f of req.forgottenTopicsData) {
      const name = resolve(f.topic, f.topicId).name;
      if (name !== undefined) for (const partition of f.partitions) forgotten.push({ topic: name, partition });
    }
    const fc = ctx.state.sessions.newContext(req.sessionId, req.sessionEpoch, updates, forgotten, nowMs);
    if (fc.kind === 'error') return ctx.respond({ throttleTimeMs: 0, errorCode: code(fc.error), sessionId: 0, responses: [] });
    const wanted: readonly PartitionUpdate[] = fc.kind === 'incremental' ? [...fc.session.partitions.values()] : updates;
    const isolationLevel = req.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted';
    const partitions: FetchPartition[] = wanted.map((p) => ({
      topic: p.topic,
      partition: p.partition,
      fetchOffset: p.fetchOffset,
      lastFetchedEpoch: p.lastFetchedEpoch,
      currentLeaderEpoch: p.currentLeaderEpoch,
      logStartOffset: p.logStartOffset,
      maxBytes: p.maxBytes,
    }));
    const simRequest = {
      type: 'Fetch',
      replicaId: -1,
      replicaEpoch: -1,
      // A refused partition is an error to report: answered at once, as Kafka's delayed fetch completes on errors.
      maxWaitMs: refused.length > 0 ? 0 : req.maxWaitMs,
      minBytes: req.minBytes,
      maxBytes: req.maxBytes,
      isolationLevel,
      // The client's session lives in this front end (ctx.state.sessions): the broker answers every partition.
      sessionId: 0,
      sessionEpoch: -1,
      partitions,
      forgottenTopicsData: [],
    };
    ctx.call<SimFetchResponse>(simRequest, (resp) => {
      const got = new Map<string, FetchPartitionResponse>();
      for (const r of resp.partitions) got.set(`${r.topic}\u0000${r.partition}`, r);
      const leaders = new Set<number>();
      const entry = (topic: string, topicId: string, partition: number, r: FetchPartitionResponse | undefined, refusedWith?: KafkaError): { data: PartitionData; topic: string; topicId: string; hasRecords: boolean } => {
        const error: KafkaError = refusedWith ?? r?.error ?? 'NONE';
        const ok = error === 'NONE' && r !== undefined;
        const leader = isLeadershipError(error) ? leaderOf(b, topic, partition) : { leaderId: -1, leaderEpoch: -1 };
        if (leader.leaderId >= 0) leaders.add(leader.leaderId);
        const records = ok ? encodeSimBatches(r.batches, b.epochMs) : NO_RECORDS;
        const hw = r && r.error === 'NONE' ? r.highWatermark : -1;
        return {
          topic,
          topicId,
          hasRecords: records.length > 0,
          data: {
            partitionIndex: partition,
            errorCode: code(error),
            highWatermark: hw,
            // Without transactions the last stable offset is the high watermark.
            lastStableOffset: hw,
            logStartOffset: r && r.error === 'NONE' ? r.logStartOffset : -1,
            divergingEpoch: r?.divergingEpoch ?? { epoch: -1, endOffset: -1 },
            currentLeader: leader,
            abortedTransactions: isolationLevel === 'read_committed' ? [] : null,
            preferredReadReplica: -1,
            records,
          },
        };
      };
      const out: ReturnType<typeof entry>[] = [];
      let sessionId = 0;
      if (fc.kind === 'incremental') {
        sessionId = fc.session.id;
        const moveToEnd: CachedPartition[] = [];
        for (const c of fc.session.partitions.values()) {
          const e = entry(c.topic, c.topicId, c.partition, got.get(`${c.topic}\u0000${c.partition}`));
          const o = { error: e.data.errorCode !== 0, hasRecords: e.hasRecords, hasDivergingEpoch: e.data.divergingEpoch!.epoch! >= 0, highWatermark: e.data.highWatermark!, lastStableOffset: e.data.lastStableOffset!, logStartOffset: e.data.logStartOffset! };
          if (!mustRespond(c, o)) continue;
          out.push(e);
          // Partitions that returned records go to the back, so the response size limit starves none of them.
          if (e.hasRecords) moveToEnd.push(c);
        }
        for (const c of moveToEnd) {
          const k = `${c.topic}\u0000${c.partition}`;
          fc.session.partitions.delete(k);
          fc.session.partitions.set(k, c);
        }
      } else {
        for (const u of updates) out.push(entry(u.topic, u.topicId, u.partition, got.get(`${u.topic}\u0000${u.partition}`)));
        if (fc.open) {
          const s = ctx.state.sessions.maybeCreate(updates, nowMs);
          if (s) {
            sessionId = s.id;
            for (const e of out) {
              const c = s.partitions.get(`${e.topic}\u0000${e.data.partitionIndex}`);
              if (c) mustRespond(c, { error: false, hasRecords: false, hasDivergingEpoch: false, highWatermark: e.data.highWatermark!, lastStableOffset: e.data.lastStableOffset!, logStartOffset: e.data.logStartOffset! });
            }
          }
        }
      }
      for (const r of refused) out.push(entry(r.topic, r.topicId, r.partition, undefined, r.error));
      // Consecutive partitions of one topic share a topic entry, in response order [FetchResponse.of].
      const responses: { topic: string; topicId: string; partitions: PartitionData[] }[] = [];
      for (const e of out) {
        const last = responses[responses.length - 1];
        if (last && last.topic === e.topic && last.topicId === e.topicId) last.partitions.push(e.data);
        else responses.push({ topic: e.topic, topicId: e.topicId, partitions: [e.data] });
      }
      ctx.respond({ throttleTimeMs: 0, errorCode: 0, sessionId, responses, nodeEndpoints: brokerNodes(b, [...leaders].sort((x, y) => x - y)) });
    });
  },
});
