import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { bootstrapRecords } from '../../../sim/kafka/metadata/bootstrap';
import { MetadataImage } from '../../../sim/kafka/metadata/metadataImage';
import { hasPreferredLeader, mergePartitionChange } from '../../../sim/kafka/metadata/partitionRegistration';
import { metadataRecordBytes, type MetadataRecord, type PartitionRecord } from '../../../sim/kafka/metadata/records';
import { newUuid } from '../../../sim/kafka/metadata/uuid';

function partitionRecord(topicId: string, partitionId: number, replicas: number[], over: Partial<PartitionRecord> = {}): PartitionRecord {
  return {
    type: 'PartitionRecord',
    topicId,
    partitionId,
    replicas,
    isr: replicas,
    leader: replicas[0]!,
    leaderRecoveryState: 'RECOVERED',
    leaderEpoch: 0,
    partitionEpoch: 0,
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
    ...over,
  };
}

function register(brokerId: number, brokerEpoch: number, fenced = false): MetadataRecord {
  return { type: 'RegisterBrokerRecord', brokerId, incarnationId: `i${brokerId}`, brokerEpoch, rack: null, fenced, inControlledShutdown: false };
}

describe('MetadataImage: topics and partitions', () => {
  it('finds topics by name and id, partitions by (topic, index)', () => {
    const img = new MetadataImage();
    img.replayAll([{ type: 'TopicRecord', name: 'a', topicId: 'A' }, partitionRecord('A', 0, [1, 2]), partitionRecord('A', 1, [2, 1])]);
    expect(img.topicByName('a')?.topicId).toBe('A');
    expect(img.topicById('A')?.name).toBe('a');
    expect(img.partition('A', 1)?.leader).toBe(2);
    expect(img.partitionByName('a', 0)?.replicas).toEqual([1, 2]);
    expect(img.partition('A', 2)).toBeUndefined();
    expect(img.topicByName('b')).toBeUndefined();
  });

  it('a PartitionChangeRecord bumps the partition epoch always, the leader epoch only when it names a leader', () => {
    const img = new MetadataImage();
    img.replayAll([{ type: 'TopicRecord', name: 'a', topicId: 'A' }, partitionRecord('A', 0, [1, 2, 3])]);
    img.replay({ type: 'PartitionChangeRecord', topicId: 'A', partitionId: 0, isr: [1, 2] });
    expect(img.partition('A', 0)).toMatchObject({ isr: [1, 2], leaderEpoch: 0, partitionEpoch: 1 });
    img.replay({ type: 'PartitionChangeRecord', topicId: 'A', partitionId: 0, leader: 1 });
    expect(img.partition('A', 0)).toMatchObject({ leader: 1, leaderEpoch: 1, partitionEpoch: 2 });
    img.replay({ type: 'PartitionChangeRecord', topicId: 'A', partitionId: 0, leader: -1, eligibleLeaderReplicas: [3], lastKnownElr: [1] });
    expect(img.partition('A', 0)).toMatchObject({ leader: -1, leaderEpoch: 2, partitionEpoch: 3, elr: [3], lastKnownElr: [1] });
  });

  it('refuses records that do not fit the image', () => {
    const img = new MetadataImage();
    expect(() => img.replay(partitionRecord('A', 0, [1]))).toThrow(/no topic/);
    img.replay({ type: 'TopicRecord', name: 'a', topicId: 'A' });
    expect(() => img.replay({ type: 'TopicRecord', name: 'a', topicId: 'B' })).toThrow(/already exists/);
    expect(() => img.replay({ type: 'PartitionChangeRecord', topicId: 'A', partitionId: 0, isr: [] })).toThrow(/no partition/);
    img.replay({ type: 'NoOpRecord' }, 5);
    expect(() => img.replay({ type: 'NoOpRecord' }, 5)).toThrow(/offset/);
  });

  it('indexes partitions by leader, replica, ISR and ELR member, leaderless and imbalanced, in a total order', () => {
    const img = new MetadataImage();
    img.replayAll([
      { type: 'TopicRecord', name: 'z', topicId: 'Z' },
      { type: 'TopicRecord', name: 'a', topicId: 'A' },
      partitionRecord('A', 1, [1, 2]),
      partitionRecord('A', 0, [2, 1]),
      partitionRecord('Z', 0, [1, 3], { isr: [1], eligibleLeaderReplicas: [3] }),
    ]);
    // Topics in creation order (z before a), then partition index.
    expect(img.partitionsWithReplica(1)).toEqual([
      { topicId: 'Z', partitionId: 0 },
      { topicId: 'A', partitionId: 0 },
      { topicId: 'A', partitionId: 1 },
    ]);
    expect(img.partitionsLedBy(1)).toEqual([{ topicId: 'Z', partitionId: 0 }, { topicId: 'A', partitionId: 1 }]);
    expect(img.partitionsWithBrokerInIsr(3)).toEqual([]);
    expect(img.partitionsWithBrokerInElr(3)).toEqual([{ topicId: 'Z', partitionId: 0 }]);
    expect(img.hasLeaderships(3)).toBe(false);
    expect(img.imbalancedPartitions()).toEqual([]);

    img.replay({ type: 'PartitionChangeRecord', topicId: 'A', partitionId: 1, leader: 2, isr: [2] });
    expect(img.partitionsLedBy(1)).toEqual([{ topicId: 'Z', partitionId: 0 }]);
    expect(img.partitionsLedBy(2)).toEqual([{ topicId: 'A', partitionId: 0 }, { topicId: 'A', partitionId: 1 }]);
    expect(img.partitionsWithBrokerInIsr(1)).toEqual([{ topicId: 'Z', partitionId: 0 }, { topicId: 'A', partitionId: 0 }]);
    expect(img.imbalancedPartitions()).toEqual([{ topicId: 'A', partitionId: 1 }]);

    img.replay({ type: 'PartitionChangeRecord', topicId: 'Z', partitionId: 0, leader: -1, isr: [], eligibleLeaderReplicas: [1, 3] });
    expect(img.partitionsWithNoLeader()).toEqual([{ topicId: 'Z', partitionId: 0 }]);
    expect(img.imbalancedPartitions()).toEqual([{ topicId: 'Z', partitionId: 0 }, { topicId: 'A', partitionId: 1 }]);
    expect(img.partitionsWithBrokerInElr(1)).toEqual([{ topicId: 'Z', partitionId: 0 }]);
    expect(img.partitionsLedBy(1)).toEqual([]);
  });

  it('ClearElrRecord clears ELR and LastKnownELR of one topic or all, bumping only partitions that had some', () => {
    const img = new MetadataImage();
    img.replayAll([
      { type: 'TopicRecord', name: 'a', topicId: 'A' },
      { type: 'TopicRecord', name: 'b', topicId: 'B' },
      partitionRecord('A', 0, [1, 2], { isr: [1], eligibleLeaderReplicas: [2] }),
      partitionRecord('A', 1, [1, 2]),
      partitionRecord('B', 0, [1, 2], { isr: [], leader: -1, eligibleLeaderReplicas: [], lastKnownElr: [1] }),
    ]);
    img.replay({ type: 'ClearElrRecord', topicName: 'a' });
    expect(img.partition('A', 0)).toMatchObject({ elr: [], partitionEpoch: 1, leaderEpoch: 0 });
    expect(img.partition('A', 1)?.partitionEpoch).toBe(0);
    expect(img.partition('B', 0)?.lastKnownElr).toEqual([1]);
    img.replay({ type: 'ClearElrRecord', topicName: '' });
    expect(img.partition('B', 0)).toMatchObject({ lastKnownElr: [], partitionEpoch: 1 });
    expect(img.partitionsWithBrokerInElr(2)).toEqual([]);
    expect(() => img.replay({ type: 'ClearElrRecord', topicName: 'nope' })).toThrow();
  });

  it('clone() is independent of the original', () => {
    const img = new MetadataImage();
    img.replayAll([{ type: 'TopicRecord', name: 'a', topicId: 'A' }, partitionRecord('A', 0, [1, 2])]);
    const copy = img.clone();
    copy.replay({ type: 'PartitionChangeRecord', topicId: 'A', partitionId: 0, leader: 2 });
    copy.replay({ type: 'TopicRecord', name: 'b', topicId: 'B' });
    expect(img.partition('A', 0)?.leader).toBe(1);
    expect(img.partitionsLedBy(2)).toEqual([]);
    expect(img.topicByName('b')).toBeUndefined();
    expect(copy.partitionsLedBy(2)).toEqual([{ topicId: 'A', partitionId: 0 }]);
  });
});

describe('MetadataImage: brokers', () => {
  it('registration, fencing, controlled shutdown and unregistration', () => {
    const img = new MetadataImage();
    img.replay(register(1, 10, true), 10);
    expect(img.broker(1)).toMatchObject({ epoch: 10, fenced: true });
    expect(img.registerBrokerRecordOffset(1)).toBe(10);
    expect(img.isActive(1)).toBe(false);
    img.replay({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: 10, fenced: false }, 11);
    expect(img.isActive(1)).toBe(true);
    img.replay({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: 10, inControlledShutdown: true }, 12);
    expect(img.broker(1)).toMatchObject({ fenced: false, inControlledShutdown: true });
    expect(img.isActive(1)).toBe(false);
    expect(() => img.replay({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: 9, fenced: true }, 13)).toThrow(/epoch/);
    img.replay(register(0, 14), 14);
    expect(img.brokers().map((b) => b.id)).toEqual([0, 1]);
    img.replay({ type: 'UnregisterBrokerRecord', brokerId: 1, brokerEpoch: 10 }, 15);
    expect(img.broker(1)).toBeUndefined();
    expect(img.registerBrokerRecordOffset(1)).toBeUndefined();
  });

  it('a new registration replaces the old one (new incarnation, new epoch, fenced)', () => {
    const img = new MetadataImage();
    img.replay(register(1, 3, false), 3);
    img.replay({ ...register(1, 8, true), incarnationId: 'again' } as MetadataRecord, 8);
    expect(img.broker(1)).toMatchObject({ epoch: 8, incarnationId: 'again', fenced: true });
    expect(img.registerBrokerRecordOffset(1)).toBe(8);
  });
});

describe('MetadataImage: configs, features, producer ids', () => {
  it('effective topic config: topic > this node > cluster default > static config > Kafka default', () => {
    const img = new MetadataImage({ staticConfig: { 'log.retention.ms': '500', 'min.insync.replicas': '2' }, nodeId: 3 });
    img.replayAll([{ type: 'TopicRecord', name: 't', topicId: 'T' }, partitionRecord('T', 0, [1, 2, 3])]);
    // Kafka defaults: 604800000 for retention.ms... but the static config's synonym log.retention.ms wins.
    expect(img.effectiveTopicConfig('t', 'retention.ms')).toBe('500');
    expect(img.effectiveTopicConfig('t', 'segment.bytes')).toBe('1073741824');
    expect(img.effectiveTopicConfig('t', 'unclean.leader.election.enable')).toBe('false');
    expect(img.effectiveMinIsr('t')).toBe(2);
    img.replay({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'log.retention.ms', value: '600' });
    expect(img.effectiveTopicConfig('t', 'retention.ms')).toBe('600');
    img.replay({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '3', name: 'log.retention.ms', value: '700' });
    img.replay({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '4', name: 'log.retention.ms', value: '800' });
    expect(img.effectiveTopicConfig('t', 'retention.ms')).toBe('700');
    img.replay({ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: '900' });
    expect(img.effectiveTopicConfig('t', 'retention.ms')).toBe('900');
    img.replay({ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'retention.ms', value: null });
    expect(img.effectiveTopicConfig('t', 'retention.ms')).toBe('700');
  });

  it('effectiveMinIsr = min(min.insync.replicas, replication factor); unclean election parses like Boolean.parseBoolean', () => {
    const img = new MetadataImage();
    img.replayAll([
      { type: 'TopicRecord', name: 't', topicId: 'T' },
      partitionRecord('T', 0, [1, 2, 3]),
      { type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'min.insync.replicas', value: '5' },
    ]);
    expect(img.effectiveMinIsr('t')).toBe(3);
    expect(img.uncleanLeaderElectionEnabled('t')).toBe(false);
    img.replay({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'unclean.leader.election.enable', value: 'TRUE' });
    expect(img.uncleanLeaderElectionEnabled('t')).toBe(true);
    img.replay({ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'unclean.leader.election.enable', value: 'false' });
    expect(img.uncleanLeaderElectionEnabled('t')).toBe(false);
  });

  it('features: absent is level 0; ELR is on at eligible.leader.replicas.version >= 1', () => {
    const img = new MetadataImage();
    expect(img.elrEnabled()).toBe(false);
    img.replay({ type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 1 });
    expect(img.elrEnabled()).toBe(true);
    img.replay({ type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 0 });
    expect(img.elrEnabled()).toBe(false);
  });

  it('ProducerIdsRecord moves nextProducerId forward only', () => {
    const img = new MetadataImage();
    img.replay({ type: 'ProducerIdsRecord', brokerId: 1, brokerEpoch: 4, nextProducerId: 1000 });
    expect(img.nextProducerId()).toBe(1000);
    expect(() => img.replay({ type: 'ProducerIdsRecord', brokerId: 1, brokerEpoch: 4, nextProducerId: 1000 })).toThrow();
  });

  it('bootstrap records: ELR on by default with a cluster min.insync.replicas; off on request', () => {
    expect(bootstrapRecords()).toEqual([
      { type: 'FeatureLevelRecord', name: 'eligible.leader.replicas.version', featureLevel: 1 },
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: '1' },
    ]);
    expect(bootstrapRecords({ eligibleLeaderReplicas: false, clusterConfigs: { 'unclean.leader.election.enable': 'true' } })).toEqual([
      { type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'unclean.leader.election.enable', value: 'true' },
    ]);
  });
});

describe('partition registration helpers and record sizes', () => {
  it('hasPreferredLeader: led by replicas[0]; leaderless is not', () => {
    const p = { replicas: [1, 2], isr: [1, 2], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 'RECOVERED' as const, leaderEpoch: 0, partitionEpoch: 0, elr: [], lastKnownElr: [] };
    expect(hasPreferredLeader(p)).toBe(true);
    expect(hasPreferredLeader(mergePartitionChange(p, { type: 'PartitionChangeRecord', topicId: 'x', partitionId: 0, leader: 2 }))).toBe(false);
    expect(hasPreferredLeader({ ...p, leader: -1 })).toBe(false);
  });

  it('metadataRecordBytes follows the compact encoding (hand-computed)', () => {
    // TopicRecord "foo": 12 framing + (1 + 3) name + 16 uuid + 1 tagged-fields byte = 33.
    expect(metadataRecordBytes({ type: 'TopicRecord', name: 'foo', topicId: 'x' })).toBe(33);
    // PartitionChangeRecord with only an ISR of 2: 12 + 4 + 16 + (2 + 1 + 8) + 1 = 44.
    expect(metadataRecordBytes({ type: 'PartitionChangeRecord', topicId: 'x', partitionId: 0, isr: [1, 2] })).toBe(44);
    // A leader field adds a tag (2) and an int32 (4).
    expect(metadataRecordBytes({ type: 'PartitionChangeRecord', topicId: 'x', partitionId: 0, isr: [1, 2], leader: 1 })).toBe(50);
    expect(metadataRecordBytes({ type: 'NoOpRecord' })).toBe(13);
  });

  it('newUuid: 22 URL-safe base64 characters, never starting with "-", deterministic per stream', () => {
    const a = newUuid(Random.root(5).fork('ids'));
    expect(a).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{20}[AQgw]$/);
    expect(newUuid(Random.root(5).fork('ids'))).toBe(a);
    const r = Random.root(6);
    const many = new Set(Array.from({ length: 200 }, () => newUuid(r)));
    expect(many.size).toBe(200);
  });
});
