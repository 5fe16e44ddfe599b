import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { ValidationError } from '../../../sim/core/validate';
import { createPartitions } from '../../../sim/kafka/controller/rules/createPartitions';
import type { PartitionRecord } from '../../../sim/kafka/metadata/records';
import { validateScenario } from '../../../sim/scenario/validate';
import { TestCluster } from '../controller-rules/testCluster';

function cluster(): TestCluster {
  const c = new TestCluster({ elr: false });
  for (const b of [1, 2, 3, 4]) {
    c.startBroker(b);
    c.unfence(b);
  }
  c.createTopic('orders', [
    [1, 2, 3],
    [2, 3, 4],
    [3, 4, 1],
  ]);
  return c;
}

describe('CreatePartitions (controller rule)', () => {
  it('adds PartitionRecords for the new ids only, with the first partition\'s replication factor, ISR = replicas, first replica leads', () => {
    const c = cluster();
    const r = createPartitions(c.image, { name: 'orders', count: 6 }, Random.root(3));
    expect(r.response).toEqual({ name: 'orders', error: 'NONE', message: '' });
    const parts = r.records as PartitionRecord[];
    expect(parts.map((p) => [p.type, p.topicId, p.partitionId])).toEqual([
      ['PartitionRecord', 'id-orders', 3],
      ['PartitionRecord', 'id-orders', 4],
      ['PartitionRecord', 'id-orders', 5],
    ]);
    for (const p of parts) {
      expect(new Set(p.replicas).size).toBe(3);
      expect(p.isr).toEqual(p.replicas);
      expect(p.leader).toBe(p.replicas[0]);
      expect([p.leaderEpoch, p.partitionEpoch]).toEqual([0, 0]);
    }
    c.apply(r);
    expect(c.image.topicByName('orders')!.partitions).toHaveLength(6);
    // The old partitions are untouched.
    expect(c.partition('orders', 0).replicas).toEqual([1, 2, 3]);
  });

  it('leaves fenced brokers out of the new partitions\' ISR and never lets one lead', () => {
    const c = cluster();
    c.fence(4);
    const r = createPartitions(c.image, { name: 'orders', count: 9 }, Random.root(5));
    expect(r.response.error).toBe('NONE');
    for (const p of r.records as PartitionRecord[]) {
      expect(p.isr).not.toContain(4);
      expect(p.leader).not.toBe(4);
    }
  });

  it('refuses an unknown topic, the same count and a smaller one, writing nothing', () => {
    const c = cluster();
    const unknown = createPartitions(c.image, { name: 'nope', count: 4 }, Random.root(1));
    expect([unknown.response.error, unknown.records]).toEqual(['UNKNOWN_TOPIC_OR_PARTITION', []]);
    const same = createPartitions(c.image, { name: 'orders', count: 3 }, Random.root(1));
    expect(same.response.error).toBe('INVALID_PARTITIONS');
    expect(same.response.message).toContain('already has 3');
    const fewer = createPartitions(c.image, { name: 'orders', count: 2 }, Random.root(1));
    expect([fewer.response.error, fewer.records]).toEqual(['INVALID_PARTITIONS', []]);
  });
});

describe('scenario actions (validation)', () => {
  const base = {
    id: 'a',
    duration: '30s',
    topics: [{ name: 'orders', partitions: 3 }],
  };
  const errorOf = (actions: unknown): string => {
    try {
      validateScenario({ ...base, actions });
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  };

  it('resolves times and keeps each action\'s fields', () => {
    const s = validateScenario({ ...base, actions: [{ at: '10s', action: 'create-partitions', topic: 'orders', count: 6 }, { at: 20000, action: 'create-partitions', topic: 'orders', count: 8 }] });
    expect(s.actions).toEqual([
      { index: 0, atUs: 10_000_000, action: 'create-partitions', topic: 'orders', count: 6 },
      { index: 1, atUs: 20_000_000, action: 'create-partitions', topic: 'orders', count: 8 },
    ]);
    expect(validateScenario(base).actions).toEqual([]);
  });

  it('names the field, the bad value and what is allowed', () => {
    expect(errorOf([{ at: '10s', action: 'add-partitions', topic: 'orders', count: 6 }])).toContain('actions[0].action');
    expect(errorOf([{ at: '10s', action: 'create-partitions', topic: 'orders', count: 6, partitions: 3 }])).toContain('actions[0].partitions');
    expect(errorOf([{ at: '40s', action: 'create-partitions', topic: 'orders', count: 6 }])).toContain('within the duration');
    expect(errorOf([{ at: '1s', action: 'create-partitions', topic: 'payments', count: 6 }])).toContain('actions[0].topic');
    expect(errorOf([{ at: '1s', action: 'create-partitions', topic: 'orders', count: 3 }])).toContain('never removed');
    // A later action must grow the topic beyond what the earlier one left, whatever the list order.
    expect(errorOf([{ at: '20s', action: 'create-partitions', topic: 'orders', count: 5 }, { at: '10s', action: 'create-partitions', topic: 'orders', count: 6 }])).toContain('actions[0].count');
  });

  it('reserves the operator\'s id', () => {
    expect(() => validateScenario({ ...base, producers: [{ id: 'operator', workload: { topic: 'orders', rate: 1 } }] })).toThrow(/operator/);
  });
});
