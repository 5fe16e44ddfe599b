import { array, int16, int32, int64, message, records, string, struct, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import type { ProducePartitionData, ProduceResponse as SimProduceResponse } from '../../protocol';
import { decodeBatches } from '../records/recordBatch';
import { toSimBatch } from '../simRecords';
import { defineApi } from './api';
import { brokerNodes, code, isLeadershipError, leaderOf, partitionExists } from './support';

// [ProduceRequest.json, ProduceResponse.json]
export const ProduceRequest = message('ProduceRequest', '0-11', '9+', [
  string('transactionalId', '3+', { nullable: '3+', default: null }),
  int16('acks', '0+'),
  int32('timeoutMs', '0+'),
  array('topicData', '0+', [
    string('name', '0+'),
    array('partitionData', '0+', [int32('index', '0+'), records('records', '0+', { nullable: '0+' })]),
  ]),
]);

export const ProduceResponse = message('ProduceResponse', '0-11', '9+', [
  array('responses', '0+', [
    string('name', '0+'),
    array('partitionResponses', '0+', [
      int32('index', '0+'),
      int16('errorCode', '0+'),
      int64('baseOffset', '0+'),
      int64('logAppendTimeMs', '2+', { default: -1 }),
      int64('logStartOffset', '5+', { default: -1 }),
      array('recordErrors', '8+', [int32('batchIndex', '8+'), string('batchIndexErrorMessage', '8+', { nullable: '8+', default: null })]),
      string('errorMessage', '8+', { nullable: '8+', default: null }),
      // KIP-951: where the leader moved, so the client need not wait for a metadata refresh.
      struct('currentLeader', '10+', [int32('leaderId', '10+', { default: -1 }), int32('leaderEpoch', '10+', { default: -1 })], { tag: 0 }),
    ]),
  ]),
  int32('throttleTimeMs', '1+'),
  array('nodeEndpoints', '10+', [int32('nodeId', '10+'), string('host', '10+'), int32('port', '10+'), string('rack', '10+', { nullable: '10+', default: null })], { tag: 0 }),
]);

export type ProduceRequestData = MessageOf<typeof ProduceRequest>;
export type ProduceResponseData = MessageOf<typeof ProduceResponse>;

// KIP-896 removed versions 0-2; Kafka 4.0 still lists them in ApiVersions because librdkafka refuses to
// produce compressed batches to a broker whose Produce minimum is above 0 (KAFKA-18659).
type PartitionResponse = ProduceResponseData['responses'][number]['partitionResponses'][number];

interface Outcome {
  readonly topic: string;
  readonly index: number;
  error: KafkaError;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
  message: string | null;
}

/**
 * Validates one partition's records as a produce request must carry them in v3+: exactly one magic v2 batch,
 * not a control batch, offsets 0..n-1 [ProduceRequest.validateRecords; LogValidator.validateRecord].
 */
function readPartition(records: Uint8Array | null, epochMs: number): { ok: true; data: ProducePartitionData['batch'] } | { ok: false; error: KafkaError; message: string } {
  if (records === null || records.length === 0) return { ok: false, error: 'INVALID_RECORD', message: 'Produce requests with version 3+ must have exactly one record batch' };
  const d = decodeBatches(records);
  if (!d.ok) return { ok: false, error: d.error, message: d.message };
  if (d.batches.length !== 1 || d.partialTail !== 0) return { ok: false, error: 'INVALID_RECORD', message: `Produce requests with version 3+ must have exactly one record batch (got ${d.batches.length}${d.partialTail ? ' and a partial one' : ''})` };
  const w = d.batches[0]!;
  if (w.isControl) return { ok: false, error: 'INVALID_RECORD', message: 'clients may not produce control batches' };
  if (w.records.length === 0) return { ok: false, error: 'INVALID_RECORD', message: 'a record batch with no records' };
  for (let i = 0; i < w.records.length; i++) {
    if (w.records[i]!.offsetDelta !== i) return { ok: false, error: 'INVALID_RECORD', message: `record ${i} has offset delta ${w.records[i]!.offsetDelta}, expected ${i}` };
  }
  if (w.lastOffsetDelta !== w.records.length - 1) return { ok: false, error: 'INVALID_RECORD', message: `lastOffsetDelta ${w.lastOffsetDelta} does not match ${w.records.length} records` };
  return { ok: true, data: toSimBatch(w, d.sections[0]!, records.length, epochMs) };
}

export const produce = defineApi({
  key: 0,
  name: 'Produce',
  request: ProduceRequest,
  response: ProduceResponse,
  minVersion: 3,
  maxVersion: 11,
  advertisedMinVersion: 0,
  // [KafkaApis.handleProduceRequest; ReplicaManager.appendRecords]
  handle(ctx, req) {
    const b = ctx.broker;
    const outcomes: Outcome[] = [];
    const toSim: ProducePartitionData[] = [];
    const simIndex: number[] = [];
    const acksValid = req.acks === -1 || req.acks === 0 || req.acks === 1;
    for (const t of req.topicData) {
      for (const p of t.partitionData) {
        const o: Outcome = { topic: t.name, index: p.index, error: 'NONE', baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, message: null };
        outcomes.push(o);
        if (!acksValid) o.error = 'INVALID_REQUIRED_ACKS';
        else if (!partitionExists(b, t.name, p.index)) o.error = 'UNKNOWN_TOPIC_OR_PARTITION';
        else {
          const r = readPartition(p.records, b.epochMs);
          if (!r.ok) {
            o.error = r.error;
            o.message = r.message;
          } else {
            toSim.push({ topic: t.name, partition: p.index, batch: r.data });
            simIndex.push(outcomes.length - 1);
          }
        }
      }
    }
    const respond = () => {
      const byTopic = new Map<string, PartitionResponse[]>();
      const leaders = new Set<number>();
      for (const o of outcomes) {
        let list = byTopic.get(o.topic);
        if (!list) byTopic.set(o.topic, (list = []));
        const leader = isLeadershipError(o.error) ? leaderOf(b, o.topic, o.index) : { leaderId: -1, leaderEpoch: -1 };
        if (leader.leaderId >= 0) leaders.add(leader.leaderId);
        list.push({
          index: o.index,
          errorCode: code(o.error),
          baseOffset: o.baseOffset,
          logAppendTimeMs: o.logAppendTimeMs,
          logStartOffset: o.logStartOffset,
          recordErrors: o.message !== null && o.error === 'INVALID_RECORD' ? [{ batchIndex: 0, batchIndexErrorMessage: o.message }] : [],
          errorMessage: o.message,
          currentLeader: leader,
        });
      }
      ctx.respond({
        responses: [...byTopic].map(([name, partitionResponses]) => ({ name, partitionResponses })),
        throttleTimeMs: 0,
        // KIP-951: where the new leaders are, for the partitions that named one.
        nodeEndpoints: brokerNodes(b, [...leaders].sort((x, y) => x - y)),
      });
    };
    if (req.acks === 0) {
      // No answer is ever sent; a refused partition closes the connection so the client refreshes its metadata.
      if (toSim.length > 0) ctx.call({ type: 'Produce', acks: 0, timeoutMs: req.timeoutMs, partitions: toSim });
      if (outcomes.some((o) => o.error !== 'NONE')) return ctx.close('a Produce with acks=0 was refused: ' + outcomes.filter((o) => o.error !== 'NONE').map((o) => `${o.topic}-${o.index} ${o.error}`).join(', '));
      return ctx.noResponse();
    }
    if (toSim.length === 0) return respond();
    ctx.call<SimProduceResponse>({ type: 'Produce', acks: req.acks, timeoutMs: req.timeoutMs, partitions: toSim }, (resp) => {
      resp.partitions.forEach((r, i) => {
        const o = outcomes[simIndex[i]!]!;
        o.error = r.error;
        o.baseOffset = r.error === 'NONE' ? r.baseOffset : -1;
        o.logStartOffset = r.logStartOffset;
        // Only a LogAppendTime topic tells the producer the time it stamped [ProduceResponse: -1 for CreateTime].
        const appendTime = b.image.effectiveTopicConfig(o.topic, 'message.timestamp.type') === 'LogAppendTime';
        o.logAppendTimeMs = appendTime && r.error === 'NONE' ? r.logAppendTimeMs + b.epochMs : -1;
      });
      respond();
    });
  },
});
