import { describe, expect, it } from 'vitest';
import { deleteTopics } from '../../../sim/kafka/controller/rules/deleteTopics';
import { TestCluster } from './testCluster';

function cluster(): TestCluster {
  const c = new TestCluster({ elr: true });
  for (const b of [1, 2, 3]) {
    c.startBroker(b);
    c.unfence(b);
  }
  return c;
}

describe('deleteTopics', () => {
  it('removes a topic by name or id with its partitions, its index entries and its configs', () => {
    const c = cluster();
    const ordersId = c.createTopic('orders', [[1, 2, 3], [2, 3, 1]], { 'retention.ms': '1000' });
    const auditId = c.createTopic('audit', [[3, 1, 2]]);
    expect(c.image.partitionsWithReplica(1)).toHaveLength(3);
    const r = c.apply(deleteTopics(c.image, [{ name: 'orders', topicId: null }, { name: null, topicId: auditId }]));
    expect(r.map((x) => [x.name, x.error])).toEqual([
      ['orders', 'NONE'],
      ['audit', 'NONE'],
    ]);
    expect(c.image.topicByName('orders')).toBeUndefined();
    expect(c.image.topicById(ordersId)).toBeUndefined();
    expect(c.image.topics()).toEqual([]);
    expect(c.image.partitionsWithReplica(1)).toEqual([]);
    expect(c.image.partitionsLedBy(2)).toEqual([]);
    expect(c.image.partitionsWithNoLeader()).toEqual([]);
    expect(c.image.resourceConfigs('TOPIC', 'orders')).toBeUndefined();
    // A topic created after a deletion lives on: its index keys do not collide with the deleted ones.
    const again = c.createTopic('orders', [[1, 2, 3]]);
    expect(c.image.partitionsLedBy(1).map((p) => p.topicId)).toEqual([again]);
    expect(c.image.effectiveTopicConfig('orders', 'retention.ms')).toBe('604800000');
  });

  it('answers unknown names, unknown ids and duplicates without writing records', () => {
    const c = cluster();
    c.createTopic('orders', [[1, 2, 3]]);
    const r = deleteTopics(c.image, [
      { name: 'nope', topicId: null },
      { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
      { name: 'orders', topicId: null },
      { name: 'orders', topicId: null },
    ]);
    expect(r.response.map((x) => x.error)).toEqual(['UNKNOWN_TOPIC_OR_PARTITION', 'UNKNOWN_TOPIC_ID', 'INVALID_REQUEST', 'INVALID_REQUEST']);
    expect(r.records).toEqual([]);
  });
});

describe('deleteTopics results, exactly', () => {
  it('each answer names the topic as asked, with Kafka\'s words', () => {
    const c = cluster();
    const id = c.createTopic('orders', [[1, 2, 3]]);
    const r = deleteTopics(c.image, [
      { name: 'nope', topicId: null },
      { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
      { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAg' },
      { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAg' },
      { name: 'orders', topicId: null },
    ]);
    expect(r).toEqual({
      records: [{ type: 'RemoveTopicRecord', topicId: id }],
      response: [
        { name: 'nope', topicId: null, error: 'UNKNOWN_TOPIC_OR_PARTITION', message: 'This server does not host this topic-partition.' },
        { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', error: 'UNKNOWN_TOPIC_ID', message: 'No topic with id AAAAAAAAAAAAAAAAAAAAAQ.' },
        { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAg', error: 'INVALID_REQUEST', message: 'Duplicate topic id.' },
        { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAg', error: 'INVALID_REQUEST', message: 'Duplicate topic id.' },
        { name: 'orders', topicId: id, error: 'NONE', message: '' },
      ],
      elections: [],
    });
    expect(deleteTopics(c.image, [{ name: 'orders', topicId: null }, { name: 'orders', topicId: null }]).response[0]!.message).toBe('Duplicate topic name.');
  });

  it('one topic asked for by name and by id is removed once, and both answers say so', () => {
    const c = cluster();
    const id = c.createTopic('orders', [[1, 2, 3]]);
    const r = deleteTopics(c.image, [{ name: 'orders', topicId: null }, { name: null, topicId: id }]);
    expect(r.records).toEqual([{ type: 'RemoveTopicRecord', topicId: id }]);
    expect(r.response.map((x) => [x.name, x.error])).toEqual([['orders', 'NONE'], ['orders', 'NONE']]);
  });
});

