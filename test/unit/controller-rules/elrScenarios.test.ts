import { describe, expect, it } from 'vitest';
import { alterConfigs } from '../../../sim/kafka/controller/rules/alterConfigs';
import { alterPartition } from '../../../sim/kafka/controller/rules/alterPartition';
import { NO_LEADER } from '../../../sim/kafka/metadata/records';
import { TestCluster } from './testCluster';

// Reference 5.6 walked through with the image: each step applies what the rules return and replays it.
// Expected states are worked out by hand from the rules (and, where marked, from Kafka's
// ReplicationControlManagerTest, an independent source).

function cluster(elr: boolean, brokers: number[]): TestCluster {
  const c = new TestCluster({ elr });
  for (const b of brokers) {
    c.startBroker(b);
    c.unfence(b);
  }
  return c;
}

function proposeIsr(c: TestCluster, topic: string, newIsr: number[]) {
  const p = c.partition(topic);
  return c.apply(
    alterPartition(c.image, {
      brokerId: p.leader,
      brokerEpoch: c.image.broker(p.leader)!.epoch,
      topic,
      partition: 0,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: newIsr.map((b) => ({ brokerId: b, brokerEpoch: c.image.broker(b)!.epoch })),
    }),
  );
}

describe('"last replica standing" (KIP-966, reference 5.6): RF 3, min.insync.replicas 2', () => {
  it('ELR off: the broker that lost its unflushed tail comes back as leader (the data-loss path)', () => {
    const c = cluster(false, [0, 1, 2]);
    c.createTopic('t', [[2, 1, 0]], { 'min.insync.replicas': '2' });
    // T0: broker 0 is partitioned away (its session expires): ISR {1,2}.
    c.fence(0);
    expect(c.partition('t').isr).toEqual([2, 1]);
    // T1: broker 1 too: ISR {2}, leader 2 (its HW is frozen under strict min ISR).
    c.fence(1);
    expect(c.partition('t')).toMatchObject({ isr: [2], leader: 2, elr: [] });
    // T2: broker 2 crashes uncleanly. Without ELR the ISR keeps its last member: ISR {2}, no leader.
    c.crash(2);
    expect(c.partition('t')).toMatchObject({ isr: [2], leader: NO_LEADER, elr: [], lastKnownElr: [] });
    // T3: the partition heals; 0 and 1 return but are not in the ISR: still offline.
    c.unfence(0);
    c.unfence(1);
    expect(c.partition('t').leader).toBe(NO_LEADER);
    // T4: broker 2 restarts (unclean: no clean-shutdown file) and, the sole ISR member, is elected.
    c.startBroker(2);
    expect(c.partition('t').leader).toBe(NO_LEADER);
    c.unfence(2);
    expect(c.partition('t')).toMatchObject({ leader: 2, isr: [2], leaderRecoveryState: 'RECOVERED' });
    expect(c.elections.at(-1)).toMatchObject({ newLeader: 2, source: 'ISR', reason: 'handleBrokerUnfenced' });
  });

  it('ELR on, 0 and 1 cut off from everyone: broker 1 takes over from the ELR when it returns; the restarted 2 is dropped', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('t', [[2, 1, 0]], { 'min.insync.replicas': '2' });
    // T0: ISR {1,2} is still >= min ISR: broker 0 does not enter the ELR.
    c.fence(0);
    expect(c.partition('t')).toMatchObject({ isr: [2, 1], elr: [] });
    // T1: broker 1 leaves while the ISR drops below min ISR: ELR {1}.
    c.fence(1);
    expect(c.partition('t')).toMatchObject({ isr: [2], leader: 2, elr: [1] });
    // T2: broker 2 crashes and is fenced: ISR [], ELR {1,2}; no ELR member is unfenced, so no leader yet.
    c.crash(2);
    expect(c.partition('t')).toMatchObject({ isr: [], elr: [1, 2], leader: NO_LEADER, lastKnownElr: [2] });
    // T3: 0 returns first: not eligible, nothing changes. Then 1 returns: elected from the ELR, ISR {1}.
    c.unfence(0);
    expect(c.partition('t').leader).toBe(NO_LEADER);
    c.unfence(1);
    expect(c.partition('t')).toMatchObject({ leader: 1, isr: [1], elr: [2], lastKnownElr: [], leaderRecoveryState: 'RECOVERED' });
    expect(c.elections.at(-1)).toMatchObject({ previousLeader: NO_LEADER, newLeader: 1, source: 'ELR' });
    // T4: broker 2 re-registers after its unclean shutdown: dropped from the ELR; its truncated log cannot lead.
    c.startBroker(2);
    expect(c.partition('t')).toMatchObject({ leader: 1, isr: [1], elr: [] });
    c.unfence(2);
    expect(c.partition('t').leader).toBe(1);
  });

  it('ELR on, broker 1 still heartbeating to the controller: elected from the ELR at once when 2 is fenced', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('t', [[2, 1, 0]], { 'min.insync.replicas': '2' });
    // The leader shrinks the ISR (AlterPartition) as 0 then 1 stop fetching; they stay unfenced.
    expect(proposeIsr(c, 't', [2, 1]).error).toBe('NONE');
    expect(c.partition('t').elr).toEqual([]);
    expect(proposeIsr(c, 't', [2]).error).toBe('NONE');
    expect(c.partition('t')).toMatchObject({ isr: [2], elr: [1] });
    c.crash(2);
    expect(c.partition('t')).toMatchObject({ leader: 1, isr: [1], elr: [2] });
    c.startBroker(2);
    expect(c.partition('t').elr).toEqual([]);
  });
});

describe('min.insync.replicas = 1 (reference 5.6): ELR only changes the bookkeeping', () => {
  function lastLeaderDown(elr: boolean, how: 'crash' | 'clean'): TestCluster {
    const c = cluster(elr, [0, 1, 2]);
    c.createTopic('t', [[0, 1, 2]], { 'min.insync.replicas': '1' });
    c.fence(1);
    c.fence(2);
    // ISR {0} is still >= 1: nobody enters the ELR.
    expect(c.partition('t')).toMatchObject({ isr: [0], elr: [] });
    if (how === 'crash') c.crash(0);
    else c.cleanShutdown(0);
    return c;
  }

  it('ELR is populated only when the last ISR member leaves: ISR [], ELR {0}', () => {
    const c = lastLeaderDown(true, 'crash');
    expect(c.partition('t')).toMatchObject({ isr: [], elr: [0], leader: NO_LEADER, lastKnownElr: [0] });
  });

  it('a clean restart: re-elected from the ELR (ISR [0]), a clean election', () => {
    const c = lastLeaderDown(true, 'clean');
    expect(c.partition('t')).toMatchObject({ isr: [], elr: [0], leader: NO_LEADER });
    c.startBroker(0);
    expect(c.partition('t').elr).toEqual([0]);
    c.unfence(0);
    expect(c.partition('t')).toMatchObject({ leader: 0, isr: [0], elr: [], lastKnownElr: [], leaderRecoveryState: 'RECOVERED' });
    expect(c.elections.at(-1)?.source).toBe('ELR');
  });

  it('an unclean restart: dropped from the ELR, then elected as the last known leader (ISR [0], RECOVERING)', () => {
    const c = lastLeaderDown(true, 'crash');
    c.startBroker(0);
    expect(c.partition('t')).toMatchObject({ isr: [], elr: [], leader: NO_LEADER, lastKnownElr: [0] });
    c.unfence(0);
    expect(c.partition('t')).toMatchObject({ leader: 0, isr: [0], elr: [], lastKnownElr: [], leaderRecoveryState: 'RECOVERING' });
    expect(c.elections.at(-1)?.source).toBe('LAST_KNOWN_LEADER');
  });

  it('without ELR the same broker returns as leader, as the untouched sole ISR member', () => {
    const c = lastLeaderDown(false, 'crash');
    expect(c.partition('t')).toMatchObject({ isr: [0], elr: [], leader: NO_LEADER, lastKnownElr: [] });
    c.startBroker(0);
    c.unfence(0);
    expect(c.partition('t')).toMatchObject({ leader: 0, isr: [0], leaderRecoveryState: 'RECOVERED' });
  });
});

describe("Kafka's ReplicationControlManagerTest ELR cases (RF 4 or 3, min.insync.replicas 3)", () => {
  it('testEligibleLeaderReplicas_BrokerFence: fencing fills the ELR; unfencing does not empty it', () => {
    const c = cluster(true, [0, 1, 2, 3]);
    c.createTopic('foo', [[0, 1, 2, 3]], { 'min.insync.replicas': '3' });
    c.fence(2);
    c.fence(3);
    expect(c.partition('foo')).toMatchObject({ elr: [3], lastKnownElr: [] });
    c.fence(1);
    expect(c.partition('foo')).toMatchObject({ elr: [1, 3], lastKnownElr: [] });
    for (const b of [1, 2, 3]) c.unfence(b);
    expect(c.partition('foo')).toMatchObject({ elr: [1, 3], lastKnownElr: [], leader: 0 });
  });

  it('testEligibleLeaderReplicas_CleanElection: an unfenced ELR member leads when the ISR empties', () => {
    const c = cluster(true, [0, 1, 2, 3]);
    c.createTopic('foo', [[0, 1, 2, 3]], { 'min.insync.replicas': '3' });
    for (const b of [1, 2, 3]) c.fence(b);
    expect(c.partition('foo')).toMatchObject({ elr: [2, 3] });
    c.unfence(2);
    c.fence(0);
    c.fence(1);
    expect(c.partition('foo')).toMatchObject({ elr: [0, 3], isr: [2], leader: 2, lastKnownElr: [] });
  });

  it('testEligibleLeaderReplicas_UncleanShutdown: unclean re-registration drops ELR members; the last leader is remembered', () => {
    const c = cluster(true, [0, 1, 2, 3]);
    c.createTopic('foo', [[0, 1, 2, 3]], { 'min.insync.replicas': '3' });
    for (const b of [1, 2, 3]) c.fence(b);
    expect(c.partition('foo')).toMatchObject({ elr: [2, 3] });
    c.startBroker(3); // a new incarnation without a clean-shutdown file
    expect(c.partition('foo')).toMatchObject({ elr: [2], lastKnownElr: [] });
    c.startBroker(0); // a new incarnation of broker 0 (the old session is taken as expired), no clean-shutdown file
    expect(c.partition('foo')).toMatchObject({ elr: [2], lastKnownElr: [0], isr: [], leader: NO_LEADER });
  });

  it('testEligibleLeaderReplicas_ShrinkToEmptyIsr: a clean shutdown of the last ISR member empties the ISR', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('foo', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.fence(1);
    c.fence(2);
    expect(c.partition('foo')).toMatchObject({ elr: [1, 2], lastKnownElr: [] });
    c.cleanShutdown(0);
    expect(c.partition('foo')).toMatchObject({ elr: [0, 1, 2], lastKnownElr: [0], isr: [] });
  });
});

describe('min ISR for the ELR rules is min(min.insync.replicas, replication factor) (reference 5.6)', () => {
  it('RF 2 with min.insync.replicas 3: an ISR back at both replicas clears the ELR', () => {
    const c = cluster(true, [0, 1]);
    c.createTopic('t', [[0, 1]], { 'min.insync.replicas': '3' });
    c.fence(1);
    expect(c.partition('t')).toMatchObject({ isr: [0], elr: [1] });
    c.unfence(1);
    // With the raw value 3, ISR [0,1] would still be "below min ISR" and keep 1 in the ELR.
    expect(proposeIsr(c, 't', [0, 1]).error).toBe('NONE');
    expect(c.partition('t')).toMatchObject({ isr: [0, 1], elr: [] });
  });
});

describe('who leaves the ELR (reference 5.6)', () => {
  it('fencing and controlled shutdown remove a broker from the ISR only, never from the ELR', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('t', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.fence(2);
    expect(c.partition('t')).toMatchObject({ isr: [0, 1], elr: [2] });
    c.cleanShutdown(1);
    expect(c.partition('t')).toMatchObject({ isr: [0], elr: [1, 2] });
    c.fence(1);
    expect(c.partition('t').elr).toEqual([1, 2]);
  });

  it('with ELR off, an unclean re-registration only takes the broker out of ISRs', () => {
    const c = cluster(false, [0, 1, 2]);
    c.createTopic('t', [[0, 1, 2]]);
    c.startBroker(1); // a new incarnation while the old one is still in the ISR
    expect(c.partition('t')).toMatchObject({ isr: [0, 2], elr: [] });
  });

  it('a clean re-registration with ELR on only takes the broker out of ISRs; it stays in the ELR', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('t', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.cleanShutdown(2);
    expect(c.partition('t').elr).toEqual([2]);
    c.startBroker(2);
    expect(c.partition('t').elr).toEqual([2]);
  });

  it('unregistration runs the ISR and the ELR partitions through the builder (Kafka 4.2 keeps the broker in an ELR below min ISR)', () => {
    const c = cluster(true, [0, 1, 2, 3]);
    c.createTopic('a', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.fence(2);
    expect(c.partition('a')).toMatchObject({ isr: [0, 1], elr: [2] });
    c.unfence(2);
    c.createTopic('b', [[2, 3, 0]], { 'min.insync.replicas': '2' });
    c.unregister(2);
    expect(c.image.broker(2)).toBeUndefined();
    // Out of b's ISR; it led b, so 3 (next in assignment order) takes over. ISR [3,0] is at min ISR: no ELR.
    expect(c.partition('b')).toMatchObject({ isr: [3, 0], leader: 3, elr: [] });
    // a's ELR pass does not name broker 2 as an unclean replica, and a's ISR [0,1] is still below min ISR 3,
    // so (ELR ∪ ISR) − ISR keeps it: handleBrokerUnregistered writes nothing for a.
    expect(c.partition('a').elr).toEqual([2]);
    expect(c.log.at(-1)).toEqual({ type: 'UnregisterBrokerRecord', brokerId: 2, brokerEpoch: expect.any(Number) });
  });

  it('changing min.insync.replicas clears ELR and LastKnownELR (ClearElrRecord), bumping the partition epoch', () => {
    const c = cluster(true, [0, 1, 2]);
    c.createTopic('t', [[0, 1, 2]], { 'min.insync.replicas': '3' });
    c.fence(2);
    const before = c.partition('t');
    expect(before.elr).toEqual([2]);
    const records = alterConfigs(c.image, [{ resourceType: 'TOPIC', resourceName: 't', name: 'min.insync.replicas', value: '2' }]).records;
    expect(records.map((r) => r.type)).toEqual(['ConfigRecord', 'ClearElrRecord']);
    c.append(records);
    expect(c.partition('t')).toMatchObject({ elr: [], lastKnownElr: [], partitionEpoch: before.partitionEpoch + 1, leaderEpoch: before.leaderEpoch });
  });
});
