import { describe, expect, it } from 'vitest';
import { handleBrokerFenced, handleBrokerUnfenced } from '../../../sim/kafka/controller/rules/brokerFencing';
import { handleBrokerShutdown, registerBroker, unregisterBroker } from '../../../sim/kafka/controller/rules/brokerRegistration';
import { handleBrokerInControlledShutdown } from '../../../sim/kafka/controller/rules/controlledShutdown';
import { NO_LEADER } from '../../../sim/kafka/metadata/records';
import { TestCluster } from './testCluster';

function cluster(elr: boolean, brokers: number[]): TestCluster {
  const c = new TestCluster({ elr });
  for (const b of brokers) {
    c.startBroker(b);
    c.unfence(b);
  }
  return c;
}

describe('broker registration [ClusterControlManager.registerBroker]', () => {
  it('a new incarnation gets the given broker epoch and starts fenced; the RegisterBrokerRecord offset is kept', () => {
    const c = new TestCluster({ elr: true });
    const epoch = c.nextOffset;
    const result = registerBroker(c.image, { brokerId: 7, incarnationId: 'inc-a', rack: 'r1', previousBrokerEpoch: -1 }, epoch, false);
    expect(result.response).toEqual({ error: 'NONE', brokerEpoch: epoch });
    expect(result.records).toEqual([
      { type: 'RegisterBrokerRecord', brokerId: 7, incarnationId: 'inc-a', brokerEpoch: epoch, rack: 'r1', fenced: true, inControlledShutdown: false },
    ]);
    c.append(result.records);
    expect(c.image.broker(7)).toEqual({ id: 7, epoch, incarnationId: 'inc-a', rack: 'r1', fenced: true, inControlledShutdown: false });
    expect(c.image.registerBrokerRecordOffset(7)).toBe(epoch);
  });

  it('the same incarnation re-registering keeps its epoch, fencing and controlled-shutdown state', () => {
    const c = cluster(true, [1]);
    const b = c.image.broker(1)!;
    const result = registerBroker(c.image, { brokerId: 1, incarnationId: b.incarnationId, rack: null, previousBrokerEpoch: -1 }, 999, true);
    expect(result.response).toEqual({ error: 'NONE', brokerEpoch: b.epoch });
    expect(result.records).toEqual([
      { type: 'RegisterBrokerRecord', brokerId: 1, incarnationId: b.incarnationId, brokerEpoch: b.epoch, rack: null, fenced: false, inControlledShutdown: false },
    ]);
  });

  it('another incarnation while the registered one has a live session: DUPLICATE_BROKER_REGISTRATION, no records', () => {
    const c = cluster(true, [1]);
    const result = registerBroker(c.image, { brokerId: 1, incarnationId: 'someone-else', rack: null, previousBrokerEpoch: -1 }, 999, true);
    expect(result).toEqual({ records: [], response: { error: 'DUPLICATE_BROKER_REGISTRATION', brokerEpoch: -1 }, elections: [] });
  });

  it('clean vs unclean is decided by previousBrokerEpoch == the registered epoch (KIP-966, KAFKA-18635)', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('t', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.fence(2);
    expect(c.partition('t').elr).toEqual([2]);
    const epoch = c.image.broker(2)!.epoch;
    // A stale epoch (e.g. from an older clean shutdown) is as good as none: unclean, out of the ELR.
    const stale = registerBroker(c.image, { brokerId: 2, incarnationId: 'new', rack: null, previousBrokerEpoch: epoch - 1 }, c.nextOffset, false);
    expect(stale.records.map((r) => r.type)).toEqual(['PartitionChangeRecord', 'RegisterBrokerRecord']);
    expect(stale.records[0]).toMatchObject({ eligibleLeaderReplicas: [] });
    const clean = registerBroker(c.image, { brokerId: 2, incarnationId: 'new', rack: null, previousBrokerEpoch: epoch }, c.nextOffset, false);
    expect(clean.records.map((r) => r.type)).toEqual(['RegisterBrokerRecord']);
  });

  it('handleBrokerShutdown (unclean, ELR on) removes the broker from ISR and ELR and never elects it', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('b', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.fence(1);
    expect(c.partition('b').elr).toEqual([1]);
    c.unfence(1);
    c.createTopic('a', [[1, 0, 2]], { 'min.insync.replicas': '2' });
    const r = handleBrokerShutdown(c.image, 1, false);
    c.apply(r);
    expect(c.partition('a')).toMatchObject({ isr: [0, 2], leader: 0, elr: [] });
    expect(c.partition('b')).toMatchObject({ isr: [0, 2], elr: [] });
    expect(r.elections).toEqual([{ topicId: 'id-a', topicName: 'a', partitionId: 0, previousLeader: 1, newLeader: 0, source: 'ISR', reason: 'handleBrokerUncleanShutdown' }]);
  });
});

describe('fencing and unfencing [ReplicationControlManager.handleBrokerFenced / handleBrokerUnfenced]', () => {
  it('fencing removes the broker from every ISR, moves its leaderships, then writes the fence', () => {
    const c = cluster(false, [1, 2, 3]);
    c.createTopic('t', [
      [1, 2, 3],
      [2, 3, 1],
      [3, 1, 2],
    ]);
    const r = handleBrokerFenced(c.image, 1);
    expect(r.records.map((x) => x.type)).toEqual(['PartitionChangeRecord', 'PartitionChangeRecord', 'PartitionChangeRecord', 'BrokerRegistrationChangeRecord']);
    expect(r.records[3]).toEqual({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: c.image.broker(1)!.epoch, fenced: true });
    c.apply(r);
    expect(c.partition('t', 0)).toMatchObject({ isr: [2, 3], leader: 2, leaderEpoch: 1 });
    expect(c.partition('t', 1)).toMatchObject({ isr: [2, 3], leader: 2, leaderEpoch: 0, partitionEpoch: 1 });
    expect(c.partition('t', 2)).toMatchObject({ isr: [3, 2], leader: 3, leaderEpoch: 0 });
    expect(c.image.broker(1)!.fenced).toBe(true);
    expect(c.image.partitionsWithBrokerInIsr(1)).toEqual([]);
  });

  it('unfencing writes the unfence first, then re-runs the election of every leaderless partition', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('x', [[1, 2]]);
    c.createTopic('y', [[2]]);
    c.fence(2);
    c.fence(1);
    expect(c.partition('x')).toMatchObject({ leader: NO_LEADER, isr: [1] });
    expect(c.partition('y')).toMatchObject({ leader: NO_LEADER, isr: [2] });
    const r = handleBrokerUnfenced(c.image, 1, c.image.broker(1)!.epoch);
    expect(r.records[0]).toEqual({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: c.image.broker(1)!.epoch, fenced: false });
    // x gets broker 1 back; y's only ISR member (2) is still fenced: no record for y.
    expect(r.records).toHaveLength(2);
    expect(r.records[1]).toEqual({ type: 'PartitionChangeRecord', topicId: 'id-x', partitionId: 0, leader: 1 });
    c.apply(r);
    expect(c.partition('x').leader).toBe(1);
  });

  it('fencing a broker that is not registered is an error', () => {
    const c = cluster(false, [1]);
    expect(() => handleBrokerFenced(c.image, 9)).toThrow(/not registered/);
  });
});

describe('controlled shutdown [ReplicationControlManager.handleBrokerInControlledShutdown]', () => {
  it('marks the broker once, removes it from ISRs and moves every leadership to another ISR member', () => {
    const c = cluster(true, [1, 2, 3]);
    c.createTopic('t', [
      [1, 2, 3],
      [2, 1, 3],
    ]);
    const epoch = c.image.broker(1)!.epoch;
    const r = handleBrokerInControlledShutdown(c.image, 1, epoch);
    expect(r.records[0]).toEqual({ type: 'BrokerRegistrationChangeRecord', brokerId: 1, brokerEpoch: epoch, inControlledShutdown: true });
    c.apply(r);
    expect(c.partition('t', 0)).toMatchObject({ leader: 2, isr: [2, 3], leaderEpoch: 1 });
    expect(c.partition('t', 1)).toMatchObject({ leader: 2, isr: [2, 3], leaderEpoch: 0 });
    expect(c.image.hasLeaderships(1)).toBe(false);
    expect(c.image.isActive(1)).toBe(false);
    // Asked again (the next heartbeat): no second registration change, nothing left to move.
    expect(handleBrokerInControlledShutdown(c.image, 1, epoch).records).toEqual([]);
  });

  it('a broker in controlled shutdown is not an acceptable leader for later elections', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[2, 1]]);
    c.apply(handleBrokerInControlledShutdown(c.image, 1, c.image.broker(1)!.epoch));
    c.fence(2);
    expect(c.partition('t').leader).toBe(NO_LEADER);
  });
});

describe('unregistration [ReplicationControlManager.unregisterBroker]', () => {
  it('removes the broker from ISRs, moves its leaderships and drops the registration', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2]]);
    c.unregister(1);
    expect(c.partition('t')).toMatchObject({ leader: 2, isr: [2] });
    expect(c.image.broker(1)).toBeUndefined();
    expect(c.image.registerBrokerRecordOffset(1)).toBeUndefined();
  });

  it('an unknown broker: BROKER_ID_NOT_REGISTERED', () => {
    const c = cluster(false, [1]);
    expect(unregisterBroker(c.image, 5).response).toBe('BROKER_ID_NOT_REGISTERED');
  });
});
