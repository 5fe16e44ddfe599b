import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { errorCode } from '../../../sim/kafka/errors';
import { apiVersions } from '../../../sim/kafka/wire/apis/apiVersions';
import { metadata } from '../../../sim/kafka/wire/apis/metadata';
import { produce } from '../../../sim/kafka/wire/apis/produce';
import { fetch } from '../../../sim/kafka/wire/apis/fetch';
import { ByteWriter } from '../../../sim/kafka/wire/codec/bytes';
import { frame } from '../../../sim/kafka/wire/codec/frames';
import { decodeBatches, encodeBatches, type WireRecordBatch } from '../../../sim/kafka/wire/records/recordBatch';
import { WireHarness } from '../../support/wireHarness';

const SPEC = {
  id: 'wire-test',
  duration: '60s',
  cluster: { controllers: 1, brokers: 3 },
  topics: [{ name: 'orders', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
};

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

function batchOf(values: (string | null)[], compression: 'none' | 'gzip' = 'none', epochMs = 1_767_225_600_000): Uint8Array {
  const b: WireRecordBatch = {
    baseOffset: 0,
    partitionLeaderEpoch: -1,
    compression,
    timestampType: 'CreateTime',
    isTransactional: false,
    isControl: false,
    hasDeleteHorizonMs: false,
    lastOffsetDelta: values.length - 1,
    baseTimestamp: epochMs + 1000,
    maxTimestamp: epochMs + 1000,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    records: values.map((v, i) => ({ timestampDelta: 0, offsetDelta: i, key: text(`k${i}`), value: v === null ? null : text(v), headers: [] })),
  };
  return encodeBatches([b]);
}

function leaderOf(h: WireHarness, topic: string, partition: number): number {
  return h.run.cluster.image()!.partitionByName(topic, partition)!.leader;
}

describe('the wire front end', () => {
  it('answers ApiVersions with every API it serves, and an unknown ApiVersions version as v0 with UNSUPPORTED_VERSION', () => {
    const h = new WireHarness(SPEC);
    const c = h.connect(1);
    const r = h.request(c, apiVersions, 3, { clientSoftwareName: 'test-client', clientSoftwareVersion: '1.0' });
    expect(r.errorCode).toBe(0);
    const byKey = new Map(r.apiKeys.map((k) => [k.apiKey, k]));
    expect(byKey.get(0)).toEqual({ apiKey: 0, minVersion: 0, maxVersion: 11 }); // Produce lists v0 (KAFKA-18659)
    expect(byKey.get(1)).toEqual({ apiKey: 1, minVersion: 4, maxVersion: 17 });
    expect([...byKey.keys()]).toEqual([0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 20, 22, 23, 32, 60, 68]);
    // A version from the future: Kafka reads it as v0 and answers UNSUPPORTED_VERSION with its ApiVersions range.
    const w = new ByteWriter().int16(18).int16(9).int32(7).string('future').uvarint(0);
    h.write(c, frame(w.toBytes()));
    h.until(() => c.frames.length > 0, ms(1000));
    const f = c.frames.shift()!;
    const v0 = new DataView(f.buffer, f.byteOffset);
    expect(v0.getInt32(0)).toBe(7); // correlation id, header v0
    expect(v0.getInt16(4)).toBe(errorCode('UNSUPPORTED_VERSION'));
    expect(v0.getInt32(6)).toBe(1); // one api listed
    expect([v0.getInt16(10), v0.getInt16(12), v0.getInt16(14)]).toEqual([18, 0, 4]);
  });

  it('Metadata advertises each broker\'s listener, the cluster id and every leader; auto-creates a named topic', () => {
    const h = new WireHarness(SPEC);
    const c = h.connect(2);
    const m = h.request(c, metadata, 12, { topics: null });
    expect(m.clusterId).toBe('kafkasim-test-cluster0');
    expect(m.brokers.map((b) => `${b.nodeId}@${b.host}:${b.port}`)).toEqual(['1@broker-1.test:9092', '2@broker-2.test:9092', '3@broker-3.test:9092']);
    expect([1, 2, 3]).toContain(m.controllerId);
    const orders = m.topics.find((t) => t.name === 'orders')!;
    expect(orders.partitions.map((p) => p.leaderId)).toEqual([leaderOf(h, 'orders', 0), leaderOf(h, 'orders', 1)]);
    expect(orders.topicId).toBe(h.run.cluster.image()!.topicByName('orders')!.topicId);
    expect(m.topics.find((t) => t.name === '__consumer_offsets')?.isInternal).toBe(true);

    const first = h.request(c, metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'new-topic' }], allowAutoTopicCreation: true });
    expect(first.topics[0]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
    const refused = h.request(c, metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'not-created' }], allowAutoTopicCreation: false });
    expect(refused.topics[0]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
    h.runFor(ms(2000));
    const later = h.request(c, metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'new-topic' }, { topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'not-created' }], allowAutoTopicCreation: false });
    expect(later.topics[0]!.errorCode).toBe(0);
    expect(later.topics[0]!.partitions).toHaveLength(1); // num.partitions = 1
    expect(later.topics[1]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
    expect(h.events('wire.create-topics')).toHaveLength(1);
  });

  it('what a client produces with acks=-1 (plain and gzip) it fetches back byte for byte', () => {
    const h = new WireHarness(SPEC);
    const leader = leaderOf(h, 'orders', 0);
    const c = h.connect(leader);
    const values = ['alpha', null, 'γάμμα'];
    const p1 = h.request(c, produce, 9, { acks: -1, timeoutMs: 5000, topicData: [{ name: 'orders', partitionData: [{ index: 0, records: batchOf(values) }] }] });
    expect(p1.responses[0]!.partitionResponses[0]).toMatchObject({ index: 0, errorCode: 0, baseOffset: 0, logAppendTimeMs: -1 });
    const p2 = h.request(c, produce, 9, { acks: -1, timeoutMs: 5000, topicData: [{ name: 'orders', partitionData: [{ index: 0, records: batchOf(['delta', 'epsilon'], 'gzip') }] }] });
    expect(p2.responses[0]!.partitionResponses[0]!.baseOffset).toBe(3);
    const f = h.request(c, fetch, 12, { maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, sessionId: 0, sessionEpoch: -1, topics: [{ topic: 'orders', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }] }] });
    const part = f.responses[0]!.partitions[0]!;
    expect(part.errorCode).toBe(0);
    expect(part.highWatermark).toBe(5);
    const d = decodeBatches(part.records!);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.batches.map((b) => b.compression)).toEqual(['none', 'gzip']);
    expect(d.batches.flatMap((b) => b.records.map((r) => str(r.value)))).toEqual(['alpha', null, 'γάμμα', 'delta', 'epsilon']);
    expect(d.batches[0]!.baseTimestamp).toBe(1_767_225_600_000 + 1000);
    expect(d.batches.map((b) => b.baseOffset)).toEqual([0, 3]);
    // Fetch v13+ names topics by id (KIP-516), as the Java client's newest versions do; an unknown id is UNKNOWN_TOPIC_ID.
    const topicId = h.run.cluster.image()!.topicByName('orders')!.topicId;
    const byId = h.request(c, fetch, 17, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        { topicId, partitions: [{ partition: 0, fetchOffset: 3, partitionMaxBytes: 1 << 20 }] },
        { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }] },
      ],
    });
    expect(byId.responses.map((t) => t.topicId)).toEqual([topicId, 'AAAAAAAAAAAAAAAAAAAAAQ']);
    expect(byId.responses[1]!.partitions[0]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_ID'));
    const v17 = decodeBatches(byId.responses[0]!.partitions[0]!.records!);
    expect(v17.ok && v17.batches.flatMap((b) => b.records.map((r) => str(r.value)))).toEqual(['delta', 'epsilon']);
  });

  it('a produce to a follower is NOT_LEADER_OR_FOLLOWER with the leader hint (KIP-951); unknown partitions are UNKNOWN_TOPIC_OR_PARTITION', () => {
    const h = new WireHarness(SPEC);
    const leader = leaderOf(h, 'orders', 0);
    const follower = [1, 2, 3].find((b) => b !== leader)!;
    const c = h.connect(follower);
    const r = h.request(c, produce, 11, {
      acks: 1,
      timeoutMs: 5000,
      topicData: [{ name: 'orders', partitionData: [{ index: 0, records: batchOf(['x']) }, { index: 9, records: batchOf(['y']) }] }],
    });
    const [p0, p9] = r.responses[0]!.partitionResponses;
    expect(p0!.errorCode).toBe(errorCode('NOT_LEADER_OR_FOLLOWER'));
    expect(p0!.currentLeader.leaderId).toBe(leader);
    expect(r.nodeEndpoints.map((n) => n.nodeId)).toEqual([leader]);
    expect(p9!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
  });

  it('garbage, an oversized frame and an unknown API close their own connection only, with a line in the trace', () => {
    const h = new WireHarness(SPEC);
    const good = h.connect(1);
    const garbage = h.connect(1);
    h.write(garbage, frame(new Uint8Array([0, 3, 0, 1, 0xff, 0xff])));
    // A header that parses, then a Metadata body cut short.
    const badBody = h.connect(1);
    h.write(badBody, frame(new ByteWriter().int16(3).int16(4).int32(1).string('x').int32(5).toBytes()));
    const huge = h.connect(1);
    h.write(huge, new Uint8Array([0x7f, 0xff, 0xff, 0xff, 1, 2, 3]));
    const unknown = h.connect(1);
    h.write(unknown, frame(new ByteWriter().int16(999).int16(0).int32(1).string(null).toBytes()));
    h.until(() => [garbage, badBody, huge, unknown].every((x) => x.closed !== null), ms(5000));
    expect([garbage, badBody, huge, unknown].map((x) => x.closed !== null)).toEqual([true, true, true, true]);
    const reasons = h.events('wire.close').map((e) => e.reason as string);
    expect(reasons.some((r) => r.includes('larger than 104857600'))).toBe(true);
    expect(reasons.some((r) => r.includes('Unknown API key 999'))).toBe(true);
    expect(reasons.some((r) => r.startsWith('Error parsing request header'))).toBe(true);
    expect(reasons.some((r) => r.startsWith('Error getting request for apiKey: Metadata, apiVersion: 4'))).toBe(true);
    expect(reasons.some((r) => r.includes('internal error'))).toBe(false);
    expect(h.request(good, apiVersions, 2, {}).errorCode).toBe(0);
  });
});
