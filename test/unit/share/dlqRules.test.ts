import { describe, expect, it } from 'vitest';
import { dlqDestinationPartition, dlqHeaders, dlqRetryBackoffMs, dlqTopicError, inferredDlqReason, isRetriableDlqProduceError, type DlqTopicView } from '../../../sim/kafka/share/dlqRules';

const view = (topics: Record<string, boolean>, prefix = 'dlq.', autoCreate = false): DlqTopicView => ({
  exists: (t) => t in topics,
  dlqEnabledOnTopic: (t) => topics[t] === true,
  prefix,
  autoCreate,
});

describe('share-group DLQ rules (KIP-1191)', () => {
  it('an existing, enabled, prefixed topic may be written', () => {
    expect(dlqTopicError('g', 'dlq.orders', view({ 'dlq.orders': true }))).toBeNull();
  });

  it('refuses: no name, an internal name, a topic not enabled, a name without the prefix, a missing topic without auto-create', () => {
    expect(dlqTopicError('g', '', view({}))).toMatch(/no DLQ topic/);
    expect(dlqTopicError('g', '__dlq', view({}, ''))).toMatch(/cannot start with __/);
    expect(dlqTopicError('g', 'dlq.orders', view({ 'dlq.orders': false }))).toMatch(/errors\.deadletterqueue\.group\.enable=false/);
    expect(dlqTopicError('g', 'orders-dead', view({ 'orders-dead': true }))).toMatch(/prefix dlq\./);
    expect(dlqTopicError('g', 'dlq.orders', view({}))).toMatch(/does not exist/);
  });

  it('a missing topic is fine with auto-create on, and an empty prefix allows any name', () => {
    expect(dlqTopicError('g', 'dlq.orders', view({}, 'dlq.', true))).toBeNull();
    expect(dlqTopicError('g', 'orders-dead', view({ 'orders-dead': true }, ''))).toBeNull();
  });

  it('sends source partition p to DLQ partition p mod n', () => {
    expect([0, 1, 2, 3, 4].map((p) => dlqDestinationPartition(p, 3))).toEqual([0, 1, 2, 0, 1]);
    expect(dlqDestinationPartition(7, 1)).toBe(0);
  });

  it('retries after 2, 4, 8 and 16 s and gives up after the fifth attempt (Kafka adds jitter)', () => {
    expect([1, 2, 3, 4, 5].map(dlqRetryBackoffMs)).toEqual([2000, 4000, 8000, 16_000, null]);
    expect(isRetriableDlqProduceError('NOT_LEADER_OR_FOLLOWER')).toBe(true);
    expect(isRetriableDlqProduceError('NOT_ENOUGH_REPLICAS')).toBe(false);
  });

  it('context headers follow the source record\'s own and name topic, partition, offset, group, delivery count and cause', () => {
    const h = dlqHeaders({ topic: 'orders', partition: 2, offset: 41, group: 'g', deliveryCount: 5, reason: 'delivery-count-limit' }, [{ key: 'trace-id', value: 'abc' }]);
    expect(h.map((x) => x.key)).toEqual(['trace-id', '__dlq.errors.topic', '__dlq.errors.partition', '__dlq.errors.offset', '__dlq.errors.group', '__dlq.errors.delivery.count', '__dlq.errors.message']);
    expect(h.slice(1, 6).map((x) => x.value)).toEqual(['orders', '2', '41', 'g', '5']);
  });

  it('a record found ARCHIVING after a leader change was released at the limit if its count reached it, else rejected', () => {
    expect(inferredDlqReason(5, 5)).toBe('delivery-count-limit');
    expect(inferredDlqReason(2, 5)).toBe('rejected');
  });
});
