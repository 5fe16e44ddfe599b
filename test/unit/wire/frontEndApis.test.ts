import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { errorCode } from '../../../sim/kafka/errors';
import { consumerGroupHeartbeat } from '../../../sim/kafka/wire/apis/consumerGroupHeartbeat';
import { createTopics } from '../../../sim/kafka/wire/apis/createTopics';
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../../sim/kafka/wire/apis/consumerProtocol';
import { deleteTopics } from '../../../sim/kafka/wire/apis/deleteTopics';
import { describeCluster } from '../../../sim/kafka/wire/apis/describeCluster';
import { describeConfigs } from '../../../sim/kafka/wire/apis/describeConfigs';
import { fetch } from '../../../sim/kafka/wire/apis/fetch';
import { findCoordinator } from '../../../sim/kafka/wire/apis/findCoordinator';
import { heartbeat } from '../../../sim/kafka/wire/apis/heartbeat';
import { initProducerId } from '../../../sim/kafka/wire/apis/initProducerId';
import { joinGroup } from '../../../sim/kafka/wire/apis/joinGroup';
import { leaveGroup } from '../../../sim/kafka/wire/apis/leaveGroup';
import { listOffsets } from '../../../sim/kafka/wire/apis/listOffsets';
import { metadata } from '../../../sim/kafka/wire/apis/metadata';
import { offsetCommit } from '../../../sim/kafka/wire/apis/offsetCommit';
import { offsetFetch } from '../../../sim/kafka/wire/apis/offsetFetch';
import { offsetForLeaderEpoch } from '../../../sim/kafka/wire/apis/offsetForLeaderEpoch';
import { produce } from '../../../sim/kafka/wire/apis/produce';
import { syncGroup } from '../../../sim/kafka/wire/apis/syncGroup';
import { encodeBatches } from '../../../sim/kafka/wire/records/recordBatch';
import { WireHarness, type Connection } from '../../support/wireHarness';

const SPEC = {
  id: 'wire-apis',
  duration: '60s',
  cluster: { controllers: 1, brokers: 3 },
  topics: [
    { name: 'orders', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } },
    { name: 'audit', partitions: 1, replicationFactor: 3, config: { 'retention.ms': 3600000 } },
  ],
};

const text = (s: string) => new TextEncoder().encode(s);

function records(values: string[]): Uint8Array {
  return encodeBatches([
    {
      baseOffset: 0,
      partitionLeaderEpoch: -1,
      compression: 'none',
      timestampType: 'CreateTime',
      isTransactional: false,
      isControl: false,
      hasDeleteHorizonMs: false,
      lastOffsetDelta: values.length - 1,
      baseTimestamp: 1_767_225_601_000,
      maxTimestamp: 1_767_225_601_000,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      records: values.map((v, i) => ({ timestampDelta: 0, offsetDelta: i, key: null, value: text(v), headers: [] })),
    },
  ]);
}

const leaderOf = (h: WireHarness, topic: string, p: number) => h.run.cluster.image()!.partitionByName(topic, p)!.leader;

function produceTo(h: WireHarness, topic: string, partition: number, values: string[], acks = -1): number {
  const c = h.connect(leaderOf(h, topic, partition));
  const r = h.request(c, produce, 9, { acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records: records(values) }] }] });
  return r.responses[0]!.partitionResponses[0]!.errorCode;
}

function coordinator(h: WireHarness, group: string): Connection {
  const c = h.connect(1);
  const r = h.request(c, findCoordinator, 4, { keyType: 0, coordinatorKeys: [group] });
  const co = r.coordinators[0]!;
  expect(co.errorCode).toBe(0);
  expect(co.host).toBe(`broker-${co.nodeId}.test`);
  return h.connect(co.nodeId);
}

describe('the wire translations of each API', () => {
  it('a consumer group: join (member id required), sync with the leader\'s own assignment bytes, heartbeat, commit, fetch offsets, leave', () => {
    const h = new WireHarness(SPEC);
    const c = coordinator(h, 'g1');
    const meta = encodeSubscription({ topics: ['orders'], userData: text('my-user-data'), ownedPartitions: [], generationId: -1, rackId: null }, 1);
    const join = (memberId: string) =>
      h.request(c, joinGroup, 7, { groupId: 'g1', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 60000, memberId, protocolType: 'consumer', protocols: [{ name: 'range', metadata: meta }] }, ms(20_000));
    const first = join('');
    expect(first.errorCode).toBe(errorCode('MEMBER_ID_REQUIRED'));
    const second = join(first.memberId);
    expect(second.errorCode).toBe(0);
    expect(second.leader).toBe(first.memberId);
    expect(second.protocolName).toBe('range');
    // The leader sees its members' metadata exactly as they sent it (user data included).
    expect(second.members[0]!.metadata).toEqual(meta);
    const assignment = encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: [0, 1] }], userData: text('assignor-data') }, 1);
    const sync = h.request(c, syncGroup, 5, { groupId: 'g1', generationId: second.generationId, memberId: first.memberId, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: first.memberId, assignment }] });
    expect(sync.errorCode).toBe(0);
    expect(sync.assignment).toEqual(assignment);
    expect(decodeAssignment(sync.assignment)!.assignedPartitions).toEqual([{ topic: 'orders', partitions: [0, 1] }]);
    expect(sync.protocolName).toBe('range');
    expect(h.request(c, heartbeat, 4, { groupId: 'g1', generationId: second.generationId, memberId: first.memberId }).errorCode).toBe(0);
    expect(h.request(c, heartbeat, 4, { groupId: 'g1', generationId: second.generationId + 5, memberId: first.memberId }).errorCode).toBe(errorCode('ILLEGAL_GENERATION'));
    const commit = h.request(c, offsetCommit, 8, {
      groupId: 'g1',
      generationIdOrMemberEpoch: second.generationId,
      memberId: first.memberId,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: 0, committedMetadata: '' }] }, { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(commit.topics.map((t) => t.partitions[0]!.errorCode)).toEqual([0, errorCode('UNKNOWN_TOPIC_OR_PARTITION')]);
    const fetched = h.request(c, offsetFetch, 7, { groupId: 'g1', topics: [{ name: 'orders', partitionIndexes: [0, 1] }] });
    expect(fetched.errorCode).toBe(0);
    expect(fetched.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([42, -1]);
    const multi = h.request(c, offsetFetch, 8, { groups: [{ groupId: 'g1', topics: null }] });
    expect(multi.groups[0]!.topics[0]!.partitions[0]!.committedOffset).toBe(42);
    const leave = h.request(c, leaveGroup, 5, { groupId: 'g1', members: [{ memberId: first.memberId, groupInstanceId: null, reason: 'done' }] });
    expect(leave.errorCode).toBe(0);
    expect(leave.members).toEqual([{ memberId: first.memberId, groupInstanceId: null, errorCode: 0 }]);
  });

  it('an incremental fetch session answers only the partitions that changed', () => {
    // One broker leads both partitions, so the session holds two and only one of them moves.
    const h = new WireHarness({ ...SPEC, cluster: { controllers: 1, brokers: 1 }, topics: [{ name: 'orders', partitions: 2, replicationFactor: 1 }] });
    const mine = [0, 1];
    const c = h.connect(1);
    const parts = mine.map((p) => ({ partition: p, fetchOffset: 0, partitionMaxBytes: 1 << 20 }));
    const full = h.request(c, fetch, 12, { maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, sessionId: 0, sessionEpoch: 0, topics: [{ topic: 'orders', partitions: parts }] });
    expect(full.errorCode).toBe(0);
    expect(full.sessionId).toBeGreaterThan(0);
    expect(full.responses[0]!.partitions.map((p) => p.partitionIndex)).toEqual(mine);
    // Nothing changed: an incremental fetch lists no partitions and gets none back.
    const quiet = h.request(c, fetch, 12, { maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, sessionId: full.sessionId, sessionEpoch: 1, topics: [] });
    expect(quiet.errorCode).toBe(0);
    expect(quiet.responses).toEqual([]);
    expect(produceTo(h, 'orders', mine[0]!, ['a', 'b'])).toBe(0);
    const moved = h.request(c, fetch, 12, { maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, sessionId: full.sessionId, sessionEpoch: 2, topics: [] });
    expect(moved.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.highWatermark]))).toEqual([[mine[0], 2]]);
    const stale = h.request(c, fetch, 12, { maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, sessionId: full.sessionId, sessionEpoch: 2, topics: [] });
    expect(stale.errorCode).toBe(errorCode('INVALID_FETCH_SESSION_EPOCH'));
    const gone = h.request(c, fetch, 12, { maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, sessionId: 12345, sessionEpoch: 1, topics: [] });
    expect(gone.errorCode).toBe(errorCode('FETCH_SESSION_ID_NOT_FOUND'));
  });

  it('acks=-1 below min.insync.replicas is NOT_ENOUGH_REPLICAS, as the simulated producers see it', () => {
    const h = new WireHarness(SPEC);
    const leader = leaderOf(h, 'orders', 0);
    for (const b of [1, 2, 3]) if (b !== leader) h.world.host(`broker-${b}`).crash();
    h.runFor(ms(35_000)); // replica.lag.time.max.ms: the ISR shrinks to the leader
    const c = h.connect(leader);
    const r = h.request(c, produce, 9, { acks: -1, timeoutMs: 3000, topicData: [{ name: 'orders', partitionData: [{ index: 0, records: records(['z']) }] }] });
    expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(errorCode('NOT_ENOUGH_REPLICAS'));
    expect(produceTo(h, 'orders', 0, ['ok-with-acks-1'], 1)).toBe(0);
  });

  it('ListOffsets, InitProducerId, DescribeCluster, DescribeConfigs, CreateTopics', () => {
    const h = new WireHarness(SPEC);
    expect(produceTo(h, 'orders', 0, ['a', 'b', 'c'])).toBe(0);
    const c = h.connect(leaderOf(h, 'orders', 0));
    const lo = h.request(c, listOffsets, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, timestamp: -1, currentLeaderEpoch: -1 }] }, { name: 'audit', partitions: [{ partitionIndex: 7, timestamp: -1, currentLeaderEpoch: -1 }] }] });
    expect(lo.topics[0]!.partitions[0]!.offset).toBe(3);
    const earliest = h.request(c, listOffsets, 4, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, timestamp: -2, currentLeaderEpoch: -1 }] }] });
    expect(earliest.topics[0]!.partitions[0]!.offset).toBe(0);
    // A timestamp search: the records were stamped 1 s after the wire epoch.
    const byTime = h.request(c, listOffsets, 4, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, timestamp: 1_767_225_600_500, currentLeaderEpoch: -1 }] }] });
    expect(byTime.topics[0]!.partitions[0]!.offset).toBe(0);
    expect(lo.topics[1]!.partitions[0]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
    // KIP-320: the end of epoch 0 is the log end while epoch 0 is the leader's current epoch.
    const epochs = h.request(c, offsetForLeaderEpoch, 4, { replicaId: -1, topics: [{ topic: 'orders', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }, { partition: 5, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
    expect(epochs.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderEpoch, p.endOffset])).toEqual([
      [0, 0, 3],
      [errorCode('UNKNOWN_TOPIC_OR_PARTITION'), -1, -1],
    ]);
    const pid = h.request(c, initProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60000 });
    expect(pid.errorCode).toBe(0);
    expect(pid.producerId).toBeGreaterThanOrEqual(0);
    const dc = h.request(c, describeCluster, 1, { endpointType: 1 });
    expect(dc.brokers.map((b) => b.brokerId)).toEqual([1, 2, 3]);
    expect(dc.clusterId).toBe('kafkasim-test-cluster0');
    const cfg = h.request(c, describeConfigs, 4, { resources: [{ resourceType: 2, resourceName: 'audit', configurationKeys: ['retention.ms', 'min.insync.replicas', 'cleanup.policy'] }, { resourceType: 2, resourceName: 'nope', configurationKeys: null }], includeSynonyms: true });
    const entries = new Map(cfg.results[0]!.configs.map((e) => [e.name, e]));
    expect(entries.get('retention.ms')).toMatchObject({ value: '3600000', configSource: 1, isDefault: false });
    expect(entries.get('retention.ms')!.synonyms.map((s) => [s.name, s.source])).toEqual([['retention.ms', 1], ['log.retention.ms', 5]]);
    expect(entries.get('cleanup.policy')).toMatchObject({ value: 'delete', configSource: 5, configType: 7 });
    expect(cfg.results[1]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
    const ct = h.request(c, createTopics, 7, { topics: [{ name: 'made', numPartitions: 3, replicationFactor: -1, assignments: [], configs: [{ name: 'cleanup.policy', value: 'compact' }] }, { name: 'bad name!', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10000 }, ms(15_000));
    expect(ct.topics[0]).toMatchObject({ name: 'made', errorCode: 0, numPartitions: 3, replicationFactor: 1 });
    expect(ct.topics[1]!.errorCode).toBe(errorCode('INVALID_TOPIC_EXCEPTION'));
    const again = h.request(c, createTopics, 7, { topics: [{ name: 'made', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10000 }, ms(15_000));
    expect(again.topics[0]!.errorCode).toBe(errorCode('TOPIC_ALREADY_EXISTS'));
    h.runFor(ms(1000));
    const m = h.request(c, metadata, 9, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'made' }], allowAutoTopicCreation: false });
    expect(m.topics[0]!.partitions).toHaveLength(3);
  });

  it('DeleteTopics removes a topic from the metadata and every broker deletes its replicas\' logs', () => {
    const h = new WireHarness(SPEC);
    expect(produceTo(h, 'audit', 0, ['to-be-deleted'])).toBe(0);
    const auditId = h.run.cluster.image()!.topicByName('audit')!.topicId;
    const c = h.connect(1);
    const r = h.request(c, deleteTopics, 6, { topics: [{ name: 'audit', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }, { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], timeoutMs: 10000 }, ms(15_000));
    expect(r.responses.map((t) => [t.name, t.errorCode])).toEqual([
      ['audit', 0],
      [null, errorCode('UNKNOWN_TOPIC_ID')],
    ]);
    expect(r.responses[0]!.topicId).toBe(auditId);
    h.runFor(ms(2000));
    const m = h.request(c, metadata, 12, { topics: null });
    expect(m.topics.map((t) => t.name)).not.toContain('audit');
    for (const b of [1, 2, 3]) {
      const broker = h.run.cluster.broker(b)!;
      expect(broker.replicas.partition('audit', 0)).toBeUndefined();
      expect(broker.logManager.getLog({ topic: 'audit', partition: 0 })).toBeUndefined();
    }
    expect(h.events('controller.topic-deleted').map((e) => e.topic)).toEqual(['audit']);
    const old = h.request(c, deleteTopics, 5, { topicNames: ['audit'], timeoutMs: 10000 }, ms(15_000));
    expect(old.responses[0]!.errorCode).toBe(errorCode('UNKNOWN_TOPIC_OR_PARTITION'));
  });

  it('a KIP-848 member joins with ConsumerGroupHeartbeat and the coordinator assigns it every partition by topic id', () => {
    const h = new WireHarness(SPEC);
    const c = coordinator(h, 'g848');
    const ordersId = h.run.cluster.image()!.topicByName('orders')!.topicId;
    const beat = (memberEpoch: number, memberId: string) =>
      h.request(c, consumerGroupHeartbeat, 1, {
        groupId: 'g848',
        memberId,
        memberEpoch,
        rebalanceTimeoutMs: 30000,
        subscribedTopicNames: memberEpoch === 0 ? ['orders'] : null,
        serverAssignor: memberEpoch === 0 ? 'uniform' : null,
        topicPartitions: memberEpoch === 0 ? [] : null,
      });
    const joined = beat(0, 'member-one-aaaaaaaaaaa');
    expect(joined.errorCode).toBe(0);
    expect(joined.memberId).toBe('member-one-aaaaaaaaaaa');
    expect(joined.memberEpoch).toBeGreaterThan(0);
    expect(joined.heartbeatIntervalMs).toBeGreaterThan(0);
    const assigned = joined.assignment ?? beat(joined.memberEpoch, joined.memberId!).assignment;
    expect(assigned!.topicPartitions).toEqual([{ topicId: ordersId, partitions: [0, 1] }]);
    // v0: the broker makes the member id a v0 client does not bring.
    const old = h.request(coordinator(h, 'g848-v0'), consumerGroupHeartbeat, 0, { groupId: 'g848-v0', memberId: '', memberEpoch: 0, rebalanceTimeoutMs: 30000, subscribedTopicNames: ['audit'], topicPartitions: [] });
    expect(old.errorCode).toBe(0);
    expect(old.memberId).toHaveLength(22);
  });
});
