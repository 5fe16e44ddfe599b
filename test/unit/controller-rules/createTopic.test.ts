import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { createTopic } from '../../../sim/kafka/controller/rules/createTopic';
import { placeReplicas, type UsableBroker } from '../../../sim/kafka/controller/rules/stripedReplicaPlacer';
import { handleBrokerInControlledShutdown } from '../../../sim/kafka/controller/rules/controlledShutdown';
import type { PartitionRecord } from '../../../sim/kafka/metadata/records';
import { TestCluster } from './testCluster';

function brokers(spec: [id: number, rack: string | null, fenced?: boolean][]): UsableBroker[] {
  return spec.map(([id, rack, fenced]) => ({ id, rack, fenced: fenced ?? false }));
}

function placed(b: UsableBroker[], n: number, rf: number, seed = 1): number[][] {
  const r = placeReplicas(b, n, rf, Random.root(seed).fork('placement'));
  if (!r.ok) throw new Error(r.message);
  return r.assignments;
}

function count(xs: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

describe('StripedReplicaPlacer', () => {
  it('gives each partition distinct replicas, and spreads leaders evenly (each broker leads once per round)', () => {
    // Every placement starts one broker further along in the list, so n consecutive partitions over n
    // unfenced brokers have n different leaders.
    for (const seed of [1, 2, 3, 4, 5]) {
      const a = placed(brokers([[1, null], [2, null], [3, null]]), 6, 3, seed);
      for (const replicas of a) expect(new Set(replicas).size).toBe(3);
      expect([...count(a.map((r) => r[0]!)).values()]).toEqual([2, 2, 2]);
      expect(new Set(a.slice(0, 3).map((r) => r[0])).size).toBe(3);
    }
  });

  it('is rack-aware: each partition has its replicas on distinct racks while racks last', () => {
    const b = brokers([[1, 'a'], [2, 'a'], [3, 'b'], [4, 'b'], [5, 'c'], [6, 'c']]);
    const rackOf = new Map(b.map((x) => [x.id, x.rack]));
    for (const seed of [1, 2, 3]) {
      for (const rf of [2, 3]) {
        for (const replicas of placed(b, 12, rf, seed)) {
          expect(new Set(replicas.map((r) => rackOf.get(r))).size).toBe(rf);
        }
      }
      // RF 4 over 3 racks: every rack is used, one twice.
      for (const replicas of placed(b, 6, 4, seed)) expect(new Set(replicas.map((r) => rackOf.get(r))).size).toBe(3);
    }
  });

  it('is deterministic given the random stream', () => {
    const b = brokers([[1, null], [2, null], [3, null], [4, null]]);
    expect(placed(b, 8, 2, 42)).toEqual(placed(b, 8, 2, 42));
  });

  it('leaders come only from unfenced brokers; fenced ones fill follower slots', () => {
    const a = placed(brokers([[1, null, true], [2, null, false], [3, null, true]]), 4, 3);
    for (const replicas of a) {
      expect(replicas[0]).toBe(2);
      expect([...replicas].sort()).toEqual([1, 2, 3]);
    }
  });

  it('refuses: RF above the registered brokers, all fenced, RF not positive', () => {
    const rnd = () => Random.root(1);
    expect(placeReplicas(brokers([[1, null], [2, null]]), 1, 3, rnd()).ok).toBe(false);
    expect(placeReplicas(brokers([[1, null, true]]), 1, 1, rnd()).ok).toBe(false);
    expect(placeReplicas(brokers([[1, null]]), 1, 0, rnd()).ok).toBe(false);
  });
});

describe('createTopic [ReplicationControlManager.createTopic]', () => {
  function cluster(elr = true): TestCluster {
    const c = new TestCluster({ elr });
    for (const b of [1, 2, 3]) {
      c.startBroker(b);
      c.unfence(b);
    }
    return c;
  }

  it('writes TopicRecord, ConfigRecords, then PartitionRecords with ISR = replicas, leader = first replica, epochs 0', () => {
    const c = cluster(false);
    const r = createTopic(c.image, { name: 'orders', numPartitions: 3, replicationFactor: 2, configs: { 'retention.ms': '1000', 'cleanup.policy': 'compact' } }, Random.root(7), 'TOPICID');
    expect(r.response).toEqual({ error: 'NONE', message: '', topicId: 'TOPICID', numPartitions: 3, replicationFactor: 2 });
    expect(r.records.slice(0, 3)).toEqual([
      { type: 'TopicRecord', name: 'orders', topicId: 'TOPICID' },
      { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 'orders', name: 'cleanup.policy', value: 'compact' },
      { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 'orders', name: 'retention.ms', value: '1000' },
    ]);
    const parts = r.records.slice(3) as PartitionRecord[];
    expect(parts.map((p) => p.partitionId)).toEqual([0, 1, 2]);
    for (const p of parts) {
      expect(p.replicas).toHaveLength(2);
      expect(p.isr).toEqual(p.replicas);
      expect(p.leader).toBe(p.replicas[0]);
      expect([p.leaderEpoch, p.partitionEpoch, p.leaderRecoveryState]).toEqual([0, 0, 'RECOVERED']);
      expect([p.eligibleLeaderReplicas, p.lastKnownElr]).toEqual([[], []]);
    }
    c.append(r.records);
    expect(c.image.topicByName('orders')?.partitions).toHaveLength(3);
    expect(c.image.effectiveTopicConfig('orders', 'cleanup.policy')).toBe('compact');
  });

  it('defaults (-1): num.partitions 1, default.replication.factor 1; min.insync.replicas 1', () => {
    const c = cluster(false);
    const r = createTopic(c.image, { name: 'd', numPartitions: -1, replicationFactor: -1 }, Random.root(1), 'D');
    expect(r.response).toMatchObject({ error: 'NONE', numPartitions: 1, replicationFactor: 1 });
    c.append(r.records);
    expect(c.image.effectiveMinIsr('d')).toBe(1);
  });

  it('with ELR on, a min.insync.replicas topic config is followed by a ClearElrRecord for the topic', () => {
    const c = cluster(true);
    const r = createTopic(c.image, { name: 'm', numPartitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }, Random.root(1), 'M');
    expect(r.records.map((x) => x.type)).toEqual(['TopicRecord', 'ConfigRecord', 'ClearElrRecord', 'PartitionRecord']);
    c.append(r.records);
    expect(c.image.effectiveMinIsr('m')).toBe(2);
  });

  it('validation: TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR, INVALID_PARTITIONS, INVALID_CONFIG', () => {
    const c = cluster();
    c.append(createTopic(c.image, { name: 'x', numPartitions: 1, replicationFactor: 1 }, Random.root(1), 'X').records);
    const err = (t: Parameters<typeof createTopic>[1]) => createTopic(c.image, t, Random.root(1), 'Y').response;
    expect(err({ name: 'x', numPartitions: 1, replicationFactor: 1 })).toMatchObject({ error: 'TOPIC_ALREADY_EXISTS', message: "Topic 'x' already exists." });
    expect(err({ name: 'y', numPartitions: 1, replicationFactor: 0 }).error).toBe('INVALID_REPLICATION_FACTOR');
    expect(err({ name: 'y', numPartitions: 1, replicationFactor: -2 }).error).toBe('INVALID_REPLICATION_FACTOR');
    expect(err({ name: 'y', numPartitions: 0, replicationFactor: 1 }).error).toBe('INVALID_PARTITIONS');
    expect(err({ name: 'y', numPartitions: -3, replicationFactor: 1 }).error).toBe('INVALID_PARTITIONS');
    expect(err({ name: 'y', numPartitions: 1, replicationFactor: 4 })).toMatchObject({ error: 'INVALID_REPLICATION_FACTOR', message: expect.stringMatching(/only 3 are registered/) });
    expect(err({ name: 'y', numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': 'soon' } }).error).toBe('INVALID_CONFIG');
    expect(err({ name: 'y', numPartitions: 1, replicationFactor: 1, configs: { 'no.such.config': '1' } }).error).toBe('INVALID_CONFIG');
    for (const t of ['y']) expect(c.image.topicByName(t)).toBeUndefined();
  });

  it('brokers in controlled shutdown are not used; fenced ones are, as followers outside the initial ISR', () => {
    const c = new TestCluster({ elr: true });
    for (const b of [1, 2, 3]) c.startBroker(b);
    c.unfence(1);
    c.unfence(2);
    c.apply(handleBrokerInControlledShutdown(c.image, 2, c.image.broker(2)!.epoch));
    const r = createTopic(c.image, { name: 'f', numPartitions: 2, replicationFactor: 2 }, Random.root(3), 'F');
    expect(r.response.error).toBe('NONE');
    for (const p of r.records.filter((x): x is PartitionRecord => x.type === 'PartitionRecord')) {
      expect(p.replicas).toEqual([1, 3]);
      expect(p.isr).toEqual([1]);
      expect(p.leader).toBe(1);
    }
  });

  it('a manual assignment places each partition as its list says: the first active broker leads, fenced ones stay out of the ISR', () => {
    const c = new TestCluster({ elr: true });
    for (const b of [1, 2, 3]) c.startBroker(b);
    c.unfence(2);
    c.unfence(3);
    const r = createTopic(c.image, { name: 'm', numPartitions: -1, replicationFactor: -1, assignments: [[3, 1], [1, 2], [2, 3]] }, Random.root(1), 'M');
    expect(r.response).toEqual({ error: 'NONE', message: '', topicId: 'M', numPartitions: 3, replicationFactor: 2 });
    const parts = r.records.filter((x): x is PartitionRecord => x.type === 'PartitionRecord');
    expect(parts.map((p) => [p.replicas, p.isr, p.leader])).toEqual([
      [[3, 1], [3], 3],
      [[1, 2], [2], 2],
      [[2, 3], [2, 3], 2],
    ]);
  });

  it('a manual assignment is refused as Kafka refuses it', () => {
    const c = cluster();
    const err = (assignments: number[][], more: Partial<Parameters<typeof createTopic>[1]> = {}) =>
      createTopic(c.image, { name: 'a', numPartitions: -1, replicationFactor: -1, assignments, ...more }, Random.root(1), 'A').response;
    expect(err([[1, 2]], { replicationFactor: 2 })).toMatchObject({ error: 'INVALID_REQUEST', message: 'A manual partition assignment was specified, but replication factor was not set to -1.' });
    expect(err([[1, 2]], { numPartitions: 1 })).toMatchObject({ error: 'INVALID_REQUEST', message: 'A manual partition assignment was specified, but numPartitions was not set to -1.' });
    expect(err([[1], []])).toMatchObject({ error: 'INVALID_REPLICA_ASSIGNMENT', message: 'The manual partition assignment includes an empty replica list.' });
    expect(err([[1, 7]])).toMatchObject({ error: 'INVALID_REPLICA_ASSIGNMENT', message: 'The manual partition assignment includes broker 7, but no such broker is registered.' });
    expect(err([[2, 1, 2]])).toMatchObject({ error: 'INVALID_REPLICA_ASSIGNMENT', message: 'The manual partition assignment includes the broker 2 more than once.' });
    expect(err([[1, 2], [3]]).message).toBe('The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).');
    const fenced = new TestCluster({ elr: true });
    fenced.startBroker(1);
    fenced.startBroker(2);
    fenced.unfence(2);
    expect(createTopic(fenced.image, { name: 'f', numPartitions: -1, replicationFactor: -1, assignments: [[2], [1]] }, Random.root(1), 'F').response).toMatchObject({
      error: 'INVALID_REPLICA_ASSIGNMENT',
      message: 'All brokers specified in the manual partition assignment for partition 1 are fenced or in controlled shutdown.',
    });
  });

  it('all brokers fenced: INVALID_REPLICATION_FACTOR', () => {
    const c = new TestCluster({ elr: true });
    c.startBroker(1);
    expect(createTopic(c.image, { name: 'z', numPartitions: 1, replicationFactor: 1 }, Random.root(1), 'Z').response.error).toBe('INVALID_REPLICATION_FACTOR');
  });

  it('a refusal, exactly: no records, no elections, no topic id, -1 for the counts, and the words Kafka uses', () => {
    const c = cluster();
    const refuse = (t: Parameters<typeof createTopic>[1]) => createTopic(c.image, t, Random.root(1), 'R');
    const none = { topicId: null, numPartitions: -1, replicationFactor: -1 };
    expect(refuse({ name: 'r', numPartitions: 1, replicationFactor: 0 })).toEqual({
      records: [],
      response: { error: 'INVALID_REPLICATION_FACTOR', message: 'The replication factor must be above 0, or -1 for the default.', ...none },
      elections: [],
    });
    expect(refuse({ name: 'r', numPartitions: 0, replicationFactor: 1 }).response).toEqual({ error: 'INVALID_PARTITIONS', message: 'The number of partitions must be above 0, or -1 for the default.', ...none });
    expect(refuse({ name: 'r', numPartitions: 1, replicationFactor: 1, configs: { 'no.such.config': '1' } }).response.message).toBe('unknown topic config no.such.config');
    expect(refuse({ name: 'r', numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': 'soon' } }).response.message).toMatch(/^retention\.ms=soon is not /);
    expect(refuse({ name: 'r', numPartitions: -1, replicationFactor: -1, assignments: [[1, 2], [3]] }).response.error).toBe('INVALID_REPLICA_ASSIGNMENT');
  });

  it('a success elects nobody; an empty assignment list is no manual assignment', () => {
    const c = cluster();
    const r = createTopic(c.image, { name: 'e', numPartitions: 2, replicationFactor: 1, assignments: [] }, Random.root(1), 'E');
    expect(r.response).toMatchObject({ error: 'NONE', numPartitions: 2, replicationFactor: 1 });
    expect(r.elections).toEqual([]);
    const m = createTopic(c.image, { name: 'm', numPartitions: -1, replicationFactor: -1, assignments: [[1]] }, Random.root(1), 'M');
    expect(m.elections).toEqual([]);
  });

  it('without ELR a min.insync.replicas config makes no ClearElrRecord', () => {
    const c = cluster(false);
    const r = createTopic(c.image, { name: 'm', numPartitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }, Random.root(1), 'M');
    expect(r.records.map((x) => x.type)).toEqual(['TopicRecord', 'ConfigRecord', 'PartitionRecord']);
  });

  it('a topic id already taken is a bug of the caller, not a reply', () => {
    const c = cluster();
    c.append(createTopic(c.image, { name: 'x', numPartitions: 1, replicationFactor: 1 }, Random.root(1), 'X').records);
    expect(() => createTopic(c.image, { name: 'y', numPartitions: 1, replicationFactor: 1 }, Random.root(1), 'X')).toThrow('createTopic: topic id X is already in use');
  });
});

