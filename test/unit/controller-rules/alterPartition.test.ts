import { describe, expect, it } from 'vitest';
import { alterPartition, type AlterPartitionData } from '../../../sim/kafka/controller/rules/alterPartition';
import { handleBrokerInControlledShutdown } from '../../../sim/kafka/controller/rules/controlledShutdown';
import { TestCluster } from './testCluster';

// AlterPartition from the leader: RF 3 topic 't' [1, 2, 3] led by 1, brokers 1..4 unfenced.
function setup(elr = true, minIsr = '2'): TestCluster {
  const c = new TestCluster({ elr });
  for (const b of [1, 2, 3, 4]) {
    c.startBroker(b);
    c.unfence(b);
  }
  c.createTopic('t', [[1, 2, 3]], { 'min.insync.replicas': minIsr });
  return c;
}

function request(c: TestCluster, newIsr: number[], over: Partial<AlterPartitionData> = {}): AlterPartitionData {
  const p = c.partition('t');
  return {
    brokerId: 1,
    brokerEpoch: c.image.broker(1)!.epoch,
    topic: 't',
    partition: 0,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    newIsr: newIsr.map((b) => ({ brokerId: b, brokerEpoch: c.image.broker(b)?.epoch ?? -1 })),
    ...over,
  };
}

describe('AlterPartition validation [ReplicationControlManager.validateAlterPartitionData]', () => {
  it('a stale requester broker epoch: STALE_BROKER_EPOCH', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 2], { brokerEpoch: 0 })).response.error).toBe('STALE_BROKER_EPOCH');
  });

  it('an unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 2], { topic: 'nope' })).response.error).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(alterPartition(c.image, request(c, [1, 2], { partition: 5 })).response.error).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('a stale leader epoch: FENCED_LEADER_EPOCH; a future one: NOT_CONTROLLER', () => {
    const c = setup();
    const stale = request(c, [1, 3]);
    c.apply(handleBrokerInControlledShutdown(c.image, 1, c.image.broker(1)!.epoch)); // leader 1 -> 3, leader epoch 1
    expect(c.partition('t').leaderEpoch).toBe(1);
    expect(alterPartition(c.image, stale).response.error).toBe('FENCED_LEADER_EPOCH');
    const future = request(c, [1, 3], { brokerId: 3, brokerEpoch: c.image.broker(3)!.epoch, leaderEpoch: 7 });
    expect(alterPartition(c.image, future).response.error).toBe('NOT_CONTROLLER');
  });

  it('a request from a broker that is not the leader: INVALID_REQUEST (Kafka does not answer NOT_LEADER_OR_FOLLOWER here)', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 2], { brokerId: 2, brokerEpoch: c.image.broker(2)!.epoch })).response.error).toBe('INVALID_REQUEST');
  });

  it('a stale partition epoch with the current leader epoch: INVALID_UPDATE_VERSION', () => {
    const c = setup();
    const first = request(c, [1, 2]);
    expect(c.apply(alterPartition(c.image, first)).error).toBe('NONE');
    expect(alterPartition(c.image, { ...first, newIsr: first.newIsr.slice(0, 1) }).response.error).toBe('INVALID_UPDATE_VERSION');
  });

  it('an ISR outside the replicas, with duplicates, or without the leader: INVALID_REQUEST', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 4])).response.error).toBe('INVALID_REQUEST');
    expect(alterPartition(c.image, request(c, [1, 2, 2])).response.error).toBe('INVALID_REQUEST');
    expect(alterPartition(c.image, request(c, [2, 3])).response.error).toBe('INVALID_REQUEST');
    expect(alterPartition(c.image, request(c, [])).response.error).toBe('INVALID_REQUEST');
  });

  it('RECOVERING with more than the leader, or RECOVERED -> RECOVERING: INVALID_REQUEST', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1], { leaderRecoveryState: 'RECOVERING' })).response.error).toBe('INVALID_REQUEST');
    expect(alterPartition(c.image, request(c, [1, 2], { leaderRecoveryState: 'RECOVERING' })).response.error).toBe('INVALID_REQUEST');
  });

  it('a fenced, shutting-down, unregistered or stale-epoch ISR member: INELIGIBLE_REPLICA', () => {
    const c = setup();
    c.fence(3);
    expect(alterPartition(c.image, request(c, [1, 2, 3])).response.error).toBe('INELIGIBLE_REPLICA');
    c.unfence(3);
    c.apply(handleBrokerInControlledShutdown(c.image, 3, c.image.broker(3)!.epoch));
    expect(alterPartition(c.image, request(c, [1, 2, 3])).response.error).toBe('INELIGIBLE_REPLICA');
    const staleEpoch = request(c, [1, 2]);
    expect(alterPartition(c.image, { ...staleEpoch, newIsr: [staleEpoch.newIsr[0]!, { brokerId: 2, brokerEpoch: 1 }] }).response.error).toBe('INELIGIBLE_REPLICA');
    // -1 skips the broker-epoch check.
    expect(alterPartition(c.image, { ...staleEpoch, newIsr: [staleEpoch.newIsr[0]!, { brokerId: 2, brokerEpoch: -1 }] }).response.error).toBe('NONE');
  });

  it('rejections write no records', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 4])).records).toEqual([]);
  });
});

describe('AlterPartition application', () => {
  it('a shrink: ISR changes, partition epoch +1, leader epoch unchanged; the reply is the new state', () => {
    const c = setup(false);
    const r = alterPartition(c.image, request(c, [1, 3]));
    expect(r.records).toEqual([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, isr: [1, 3] }]);
    expect(r.response).toEqual({ error: 'NONE', leaderId: 1, leaderEpoch: 0, isr: [1, 3], partitionEpoch: 1, leaderRecoveryState: 'RECOVERED' });
    c.apply(r);
    expect(c.partition('t')).toMatchObject({ isr: [1, 3], leaderEpoch: 0, partitionEpoch: 1 });
  });

  it('an unchanged ISR writes nothing and replies with the current state', () => {
    const c = setup(false);
    const r = alterPartition(c.image, request(c, [1, 2, 3]));
    expect(r.records).toEqual([]);
    expect(r.response).toMatchObject({ error: 'NONE', isr: [1, 2, 3], partitionEpoch: 0 });
  });

  it('ELR rules apply: shrinking below min ISR puts the leavers in the ELR; expanding back to min ISR clears it', () => {
    const c = setup(true, '2');
    c.apply(alterPartition(c.image, request(c, [1, 2])));
    expect(c.partition('t').elr).toEqual([]);
    c.apply(alterPartition(c.image, request(c, [1])));
    // 3 left while the ISR stayed at min ISR: only 2 holds every committed record for sure.
    expect(c.partition('t')).toMatchObject({ isr: [1], elr: [2] });
    c.apply(alterPartition(c.image, request(c, [1, 3])));
    expect(c.partition('t')).toMatchObject({ isr: [1, 3], elr: [] });
  });

  it('a recovering leader reports RECOVERED: the recovery state is written', () => {
    const c = setup(false, '1');
    c.fence(2);
    c.fence(3);
    c.crash(1);
    c.append([{ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'unclean.leader.election.enable', value: 'true' }]);
    // ISR [1] kept without ELR; let broker 2 back and elect it uncleanly.
    c.unfence(2);
    expect(c.partition('t')).toMatchObject({ leader: 2, isr: [2], leaderRecoveryState: 'RECOVERING' });
    const p = c.partition('t');
    const r = alterPartition(c.image, {
      brokerId: 2,
      brokerEpoch: c.image.broker(2)!.epoch,
      topic: 't',
      partition: 0,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: [{ brokerId: 2, brokerEpoch: -1 }],
      leaderRecoveryState: 'RECOVERED',
    });
    expect(r.records).toEqual([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, leaderRecoveryState: 'RECOVERED' }]);
  });
});

describe('AlterPartition replies, exactly', () => {
  const NO_STATE = { leaderId: -1, leaderEpoch: -1, isr: [], partitionEpoch: -1, leaderRecoveryState: 'RECOVERED' };

  it('a rejection carries no state, writes nothing and elects nobody', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 2], { brokerEpoch: 0 }))).toEqual({ records: [], response: { error: 'STALE_BROKER_EPOCH', ...NO_STATE }, elections: [] });
    expect(alterPartition(c.image, request(c, [1, 4]))).toEqual({ records: [], response: { error: 'INVALID_REQUEST', ...NO_STATE }, elections: [] });
  });

  it('a partition epoch from the future, at the current leader epoch: NOT_CONTROLLER', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, 2], { partitionEpoch: 9 })).response.error).toBe('NOT_CONTROLLER');
  });

  it('a negative broker id in the ISR: INVALID_REQUEST', () => {
    const c = setup();
    expect(alterPartition(c.image, request(c, [1, -1])).response.error).toBe('INVALID_REQUEST');
  });

  it('an unchanged ISR replies with the whole current state and elects nobody', () => {
    const c = setup(false);
    expect(alterPartition(c.image, request(c, [1, 2, 3]))).toEqual({
      records: [],
      response: { error: 'NONE', leaderId: 1, leaderEpoch: 0, isr: [1, 2, 3], partitionEpoch: 0, leaderRecoveryState: 'RECOVERED' },
      elections: [],
    });
  });

  it('a leader still RECOVERING may keep itself alone in the ISR, not add another', () => {
    const c = setup(false, '1');
    c.fence(2);
    c.fence(3);
    c.crash(1);
    c.append([{ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 't', name: 'unclean.leader.election.enable', value: 'true' }]);
    c.unfence(2);
    const p = c.partition('t');
    expect(p.leaderRecoveryState).toBe('RECOVERING');
    const ask = (isr: number[]) =>
      alterPartition(c.image, {
        brokerId: 2,
        brokerEpoch: c.image.broker(2)!.epoch,
        topic: 't',
        partition: 0,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        newIsr: isr.map((b) => ({ brokerId: b, brokerEpoch: -1 })),
        leaderRecoveryState: 'RECOVERING',
      }).response.error;
    expect(ask([2])).toBe('NONE');
    c.unfence(3);
    expect(ask([2, 3])).toBe('INVALID_REQUEST');
  });
});
