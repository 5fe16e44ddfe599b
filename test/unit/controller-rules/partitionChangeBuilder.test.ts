import { describe, expect, it } from 'vitest';
import { buildPartitionChange, type PartitionChangeInput } from '../../../sim/kafka/controller/rules/partitionChangeBuilder';
import { mergePartitionChange, type PartitionRegistration } from '../../../sim/kafka/metadata/partitionRegistration';
import { NO_LEADER } from '../../../sim/kafka/metadata/records';

// Expected values here are worked out by hand from reference 5.5/5.6 and, where marked, taken from Kafka's
// own metadata/src/test/java/org/apache/kafka/controller/PartitionChangeBuilderTest.java (an independent
// source for the same rule).

function part(p: Partial<PartitionRegistration> & { replicas: number[] }): PartitionRegistration {
  return {
    isr: p.replicas,
    removingReplicas: [],
    addingReplicas: [],
    leader: p.replicas[0]!,
    leaderRecoveryState: 'RECOVERED',
    leaderEpoch: 100,
    partitionEpoch: 200,
    elr: [],
    lastKnownElr: [],
    ...p,
  };
}

function build(partition: PartitionRegistration, opts: Partial<PartitionChangeInput> & { acceptable?: (r: number) => boolean }) {
  const { acceptable, ...rest } = opts;
  return buildPartitionChange({
    topicId: 'T',
    partitionId: 0,
    partition,
    isAcceptableLeader: acceptable ?? (() => true),
    minIsr: 1,
    elrEnabled: true,
    ...rest,
  });
}

describe('PartitionChangeBuilder: ONLINE election (reference 5.5)', () => {
  it('rule 1: keeps a current leader that is still valid, and writes nothing when nothing changes', () => {
    const p = part({ replicas: [1, 2, 3], isr: [2, 1, 3], leader: 2 });
    const c = build(p, {});
    expect(c.record).toBeNull();
    expect(c.leaderChange).toBeNull();
  });

  it('rule 1: an ISR shrink that keeps the leader changes only the ISR; no leader-epoch bump (metadata.version >= 3.6)', () => {
    const p = part({ replicas: [1, 2, 3], leader: 1 });
    const c = build(p, { targetIsr: [1, 2], minIsr: 2 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1, 2] });
    const after = mergePartitionChange(p, c.record!);
    expect(after.leaderEpoch).toBe(100);
    expect(after.partitionEpoch).toBe(201);
  });

  it('rule 2: otherwise the first valid replica in assignment order, not ISR order', () => {
    // Leader 3 is fenced; ISR order would pick 2, assignment order [3, 1, 2] picks 1.
    const p = part({ replicas: [3, 1, 2], isr: [3, 2, 1], leader: 3 });
    const c = build(p, { targetIsr: [2, 1], acceptable: (r) => r !== 3, elrEnabled: false });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [2, 1], leader: 1 });
    expect(c.leaderChange).toEqual({ previousLeader: 3, newLeader: 1, source: 'ISR' });
    const after = mergePartitionChange(p, c.record!);
    expect([after.leaderEpoch, after.partitionEpoch]).toEqual([101, 201]);
  });

  it('rule 2: an ISR member that is not acceptable (fenced, shutting down) is skipped', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1 });
    const c = build(p, { targetIsr: [2, 3], acceptable: (r) => r === 3, elrEnabled: false });
    expect(c.record?.leader).toBe(3);
  });

  it('rule 3: ISR and ELR empty, LastKnownELR = [b], b acceptable: b leads as an unclean election (ISR [b], RECOVERING) without unclean.leader.election.enable', () => {
    // Kafka's testEligibleLeaderReplicas_ElectLastKnownLeader (PREFERRED there; ONLINE behaves the same).
    const p = part({ replicas: [1, 2, 3, 4], isr: [], leader: NO_LEADER, lastKnownElr: [1] });
    for (const election of ['ONLINE', 'PREFERRED'] as const) {
      const c = build(p, { election, minIsr: 3 });
      expect(c.record).toStrictEqual({
        type: 'PartitionChangeRecord',
        topicId: 'T',
        partitionId: 0,
        isr: [1],
        leader: 1,
        leaderRecoveryState: 'RECOVERING',
        lastKnownElr: [],
      });
      expect(c.leaderChange?.source).toBe('LAST_KNOWN_LEADER');
    }
  });

  it('rule 3 (4.1+, KAFKA-19522): a fenced last known leader is not elected', () => {
    // Kafka's testEligibleLeaderReplicas_NotEligibleLastKnownLeader, for every election type.
    const p = part({ replicas: [1, 2, 3, 4], isr: [], leader: NO_LEADER, lastKnownElr: [1] });
    for (const election of ['ONLINE', 'PREFERRED', 'UNCLEAN'] as const) {
      expect(build(p, { election, minIsr: 3, acceptable: () => false }).record).toBeNull();
    }
  });

  it('rule 3 needs ELR on, an empty ELR and exactly one last known leader', () => {
    const p = part({ replicas: [1, 2, 3, 4], isr: [], leader: NO_LEADER, lastKnownElr: [1] });
    expect(build(p, { elrEnabled: false, minIsr: 3 }).record).toBeNull();
    // Kafka's testEligibleLeaderReplicas_ElectLastKnownLeaderShouldFail: ELR [3] (not acceptable) blocks it.
    expect(build({ ...p, elr: [3] }, { minIsr: 3, acceptable: (r) => r !== 3 }).record).toBeNull();
    expect(build({ ...p, lastKnownElr: [1, 2] }, { minIsr: 3 }).record).toBeNull();
  });

  it('rule 4: with UNCLEAN, the first acceptable replica in assignment order; ISR := [it], RECOVERING', () => {
    // Kafka's testUncleanLeaderElection (FOO: replicas [2,1,3], isr [2,1], leader 1, acceptable r != 3, min ISR 2).
    const foo = part({ replicas: [2, 1, 3], isr: [2, 1], leader: 1 });
    const c = build(foo, { election: 'UNCLEAN', targetIsr: [3], minIsr: 2, acceptable: (r) => r !== 3 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [2], leader: 2, leaderRecoveryState: 'RECOVERING' });
    expect(c.leaderChange?.source).toBe('UNCLEAN');
    // The same without ELR (the ELR was empty, so there was nothing to clear either way).
    const noElr = build(foo, { election: 'UNCLEAN', targetIsr: [3], minIsr: 2, acceptable: (r) => r !== 3, elrEnabled: false });
    expect(noElr.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [2], leader: 2, leaderRecoveryState: 'RECOVERING' });
  });

  it('rule 4: an unclean election also clears ELR and LastKnownELR', () => {
    // Kafka's testUncleanLeaderElection with OFFLINE_WITH_ELR: replicas [2,1,3], isr [], elr [3], lkElr [2].
    const offline = part({ replicas: [2, 1, 3], isr: [], elr: [3], lastKnownElr: [2], leader: NO_LEADER });
    const c = build(offline, { election: 'UNCLEAN', minIsr: 2, acceptable: (r) => r === 1 });
    expect(c.record).toStrictEqual({
      type: 'PartitionChangeRecord',
      topicId: 'T',
      partitionId: 0,
      isr: [1],
      leader: 1,
      leaderRecoveryState: 'RECOVERING',
      eligibleLeaderReplicas: [],
      lastKnownElr: [],
    });
  });

  it('rule 4 does not apply with ONLINE: an offline partition stays offline', () => {
    const offline = part({ replicas: [2, 1, 3], isr: [3], leader: NO_LEADER });
    expect(build(offline, { minIsr: 2, acceptable: (r) => r === 1, elrEnabled: false }).record).toBeNull();
  });

  it('rule 5: no valid leader -> leader -1 (offline), with a leader-epoch bump', () => {
    const p = part({ replicas: [1, 2], isr: [1, 2], leader: 1 });
    const c = build(p, { targetIsr: [1], acceptable: () => false, elrEnabled: false });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1], leader: NO_LEADER });
    expect(c.leaderChange).toEqual({ previousLeader: 1, newLeader: NO_LEADER, source: null });
    expect(mergePartitionChange(p, c.record!).leaderEpoch).toBe(101);
  });

  it('isValidNewLeader: an ELR member is valid only while the ISR is empty', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1], elr: [2], leader: 1 });
    // Leader 1 is no longer acceptable but stays in the target ISR: 2 is in the ELR yet the ISR is not empty.
    const c = build(p, { minIsr: 3, acceptable: (r) => r !== 1 });
    expect(c.record?.leader).toBe(NO_LEADER);
  });
});

describe('PartitionChangeBuilder: PREFERRED election (reference 5.5)', () => {
  it('elects the preferred replica when it is valid', () => {
    const p = part({ replicas: [1, 2, 3], leader: 2 });
    expect(build(p, { election: 'PREFERRED' }).record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, leader: 1 });
  });

  it('keeps the current leader when the preferred replica is not valid', () => {
    const p = part({ replicas: [1, 2, 3], isr: [2, 3], leader: 3 });
    expect(build(p, { election: 'PREFERRED' }).record).toBeNull();
  });

  it('else the next valid replica in assignment order', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1 });
    const c = build(p, { election: 'PREFERRED', acceptable: (r) => r === 3 });
    expect(c.record?.leader).toBe(3);
  });

  it("Kafka's testElectLeader vectors", () => {
    const foo = part({ replicas: [2, 1, 3], isr: [2, 1], leader: 1 });
    const notThree = (r: number) => r !== 3;
    expect(build(foo, { election: 'PREFERRED', minIsr: 2, acceptable: notThree }).record?.leader).toBe(2);
    expect(build(foo, { minIsr: 2, acceptable: notThree }).record).toBeNull(); // keeps 1
    expect(build(foo, { election: 'UNCLEAN', minIsr: 2, acceptable: notThree }).record).toBeNull();
    expect(build(foo, { targetIsr: [1, 3], minIsr: 2, acceptable: notThree }).record?.leader).toBeUndefined();
    expect(build(foo, { targetIsr: [3], minIsr: 2, acceptable: notThree, elrEnabled: false }).record?.leader).toBe(NO_LEADER);
    const baz = part({ replicas: [2, 1, 3], isr: [1, 3], leader: 3 });
    for (const election of ['PREFERRED', 'ONLINE', 'UNCLEAN'] as const) expect(build(baz, { election }).record).toBeNull();
  });
});

describe('PartitionChangeBuilder: ELR rules (reference 5.6)', () => {
  it('a target ISR at or above min ISR empties the ELR (and, written with the ISR, keeps the leader)', () => {
    // Kafka's testEligibleLeaderReplicas_IsrExpandAboveMinISR (min ISR 3): ISR [1,2] -> [1,2,3], ELR [3] -> [].
    const p = part({ replicas: [1, 2, 3, 4], isr: [1, 2], elr: [3], leader: 1 });
    const c = build(p, { targetIsr: [1, 2, 3], minIsr: 3, acceptable: (r) => r !== 3, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1, 2, 3], eligibleLeaderReplicas: [] });
  });

  it('below min ISR: ELR := (ELR ∪ old ISR) − new ISR', () => {
    // Kafka's testEligibleLeaderReplicas_IsrShrinkBelowMinISR: ISR [1,2,3,4] -> [1,2] with min ISR 3: ELR [3,4].
    const p = part({ replicas: [1, 2, 3, 4], leader: 1 });
    const c = build(p, { targetIsr: [1, 2], minIsr: 3, acceptable: (r) => r !== 3, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1, 2], eligibleLeaderReplicas: [3, 4] });
    // An ELR change alone does not bump the leader epoch.
    expect(mergePartitionChange(p, c.record!).leaderEpoch).toBe(100);
  });

  it('below min ISR, a replica joining the ISR that was not in the ELR leaves the ELR unchanged', () => {
    // Kafka's testEligibleLeaderReplicas_IsrAddNewMemberNotInELR: ISR [1] -> [1,4], ELR [3] stays.
    const p = part({ replicas: [1, 2, 3, 4], isr: [1], elr: [3], lastKnownElr: [2], leader: 1 });
    const c = build(p, { targetIsr: [1, 4], minIsr: 3, acceptable: (r) => r !== 3, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1, 4] });
  });

  it('an ELR member rejoining the ISR below min ISR leaves the ELR', () => {
    const p = part({ replicas: [1, 2, 3, 4], isr: [1], elr: [2, 3], leader: 1 });
    const c = build(p, { targetIsr: [1, 2], minIsr: 4 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1, 2], eligibleLeaderReplicas: [3] });
  });

  it('replicas that shut down uncleanly are kept out of the ELR', () => {
    // Kafka's testEligibleLeaderReplicas_RemoveUncleanShutdownReplicasFromElr (ELR part): ELR [2,3] -> [2].
    const p = part({ replicas: [1, 2, 3, 4], isr: [1], elr: [2, 3], leader: 1 });
    const c = build(p, { minIsr: 3, uncleanShutdownReplicas: [3], acceptable: (r) => r !== 3, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, eligibleLeaderReplicas: [2] });
  });

  it('with ELR the ISR may become empty; the last leader becomes the LastKnownELR (4.2)', () => {
    // Kafka's testEligibleLeaderReplicas_IsrCanShrinkToZero (last-known-leader mode).
    const p = part({ replicas: [1, 2, 3, 4], leader: 1 });
    const c = build(p, { targetIsr: [], minIsr: 3, acceptable: () => false, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({
      type: 'PartitionChangeRecord',
      topicId: 'T',
      partitionId: 0,
      isr: [],
      leader: NO_LEADER,
      eligibleLeaderReplicas: [1, 2, 3, 4],
      lastKnownElr: [1],
    });
    // A further change while still leaderless leaves the LastKnownELR alone.
    const after = mergePartitionChange(p, c.record!);
    const again = build(after, { minIsr: 3, acceptable: () => false, uncleanShutdownReplicas: [2], election: 'PREFERRED' });
    expect(again.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, eligibleLeaderReplicas: [1, 3, 4] });
  });

  it('LastKnownELR is set when the partition loses its leader even if the ISR is not empty (4.2 rule)', () => {
    // Kafka's testEligibleLeaderReplicas_lastKnownElrShouldBePopulatedWhenNoLeader.
    const p = part({ replicas: [1, 2, 3], isr: [1], elr: [2], leader: 1 });
    const c = build(p, { minIsr: 3, acceptable: () => false, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, leader: NO_LEADER, lastKnownElr: [1] });
  });

  it('without ELR the controller never writes an empty ISR: the last member stays, the partition goes offline', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1], leader: 1 });
    const c = build(p, { targetIsr: [], acceptable: (r) => r !== 1, elrEnabled: false, minIsr: 2 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, leader: NO_LEADER });
    expect(mergePartitionChange(p, c.record!).isr).toEqual([1]);
  });

  it('election from the ELR: ISR := [leader], it leaves the ELR, others stay, no RECOVERING', () => {
    // Kafka's testEligibleLeaderReplicas_ElrCanBeElected: ISR [1] -> [] with ELR [3]: 3 leads, ELR [1].
    const p = part({ replicas: [1, 2, 3, 4], isr: [1], elr: [3], leader: 1 });
    const c = build(p, { targetIsr: [], minIsr: 3, acceptable: (r) => r !== 1, election: 'PREFERRED' });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [3], leader: 3, eligibleLeaderReplicas: [1] });
    expect(c.leaderChange?.source).toBe('ELR');
  });

  it('election from the ELR takes the first acceptable ELR member in assignment order', () => {
    const p = part({ replicas: [4, 3, 2, 1], isr: [], elr: [1, 2, 3], leader: NO_LEADER });
    const c = build(p, { minIsr: 2, acceptable: (r) => r !== 3 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [2], leader: 2, eligibleLeaderReplicas: [1, 3] });
  });

  it('with ELR off, an existing ELR is cleared at the next change', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1, 2], elr: [3], leader: 1 });
    const c = build(p, { targetIsr: [1], elrEnabled: false, minIsr: 2 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1], eligibleLeaderReplicas: [] });
  });

  it('naming a leader again clears the LastKnownELR', () => {
    const p = part({ replicas: [1, 2, 3], isr: [], elr: [2], lastKnownElr: [1], leader: NO_LEADER });
    const c = build(p, { minIsr: 2 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [2], leader: 2, eligibleLeaderReplicas: [], lastKnownElr: [] });
  });

  it('a new leader recovering its state: the target recovery state is written (AlterPartition RECOVERED)', () => {
    const p = part({ replicas: [1, 2], isr: [1], leader: 1, leaderRecoveryState: 'RECOVERING' });
    const c = build(p, { targetLeaderRecoveryState: 'RECOVERED', elrEnabled: false });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, leaderRecoveryState: 'RECOVERED' });
  });
});

describe('PartitionChangeBuilder at its edges', () => {
  it('an unclean election on a partition already RECOVERING does not write the recovery state again', () => {
    const p = part({ replicas: [1, 2, 3], isr: [], leader: NO_LEADER, leaderRecoveryState: 'RECOVERING' });
    const c = build(p, { election: 'UNCLEAN', elrEnabled: false, acceptable: (r) => r === 2 });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [2], leader: 2 });
    expect(c.leaderChange).toEqual({ previousLeader: NO_LEADER, newLeader: 2, source: 'UNCLEAN' });
  });

  it('a leader elected while the ISR is not empty comes from the ISR, not the ELR', () => {
    // Preferred 1 and the current leader 3 cannot lead: 2, next in assignment order and in the ISR.
    const p = part({ replicas: [1, 2, 3], isr: [2, 3], elr: [1], leader: 3 });
    const c = build(p, { election: 'PREFERRED', minIsr: 3, acceptable: (r) => r !== 1 && r !== 3 });
    expect(c.leaderChange).toEqual({ previousLeader: 3, newLeader: 2, source: 'ISR' });
  });

  it('a preferred election keeps the current leader when the preferred replica cannot lead, before any other replica', () => {
    const p = part({ replicas: [1, 2, 3], isr: [2, 3], leader: 3 });
    expect(build(p, { election: 'PREFERRED', acceptable: (r) => r !== 1 }).record).toBeNull();
    // Neither the preferred nor the current leader: the next replica in assignment order.
    expect(build(p, { election: 'PREFERRED', acceptable: (r) => r === 2 }).record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, leader: 2 });
  });

  it('the ELR leaves out replicas that shut down uncleanly', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1 });
    const c = build(p, { targetIsr: [1], minIsr: 2, uncleanShutdownReplicas: [3] });
    expect(c.record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1], eligibleLeaderReplicas: [2] });
  });

  it('with ELR off nothing joins the ELR, so a shrunk ISR is all the record holds', () => {
    const p = part({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1 });
    expect(build(p, { targetIsr: [1], minIsr: 2, elrEnabled: false }).record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1] });
  });

  it('LastKnownELR: kept when it is already set and the partition stays leaderless; left alone when a leader stays', () => {
    const leaderless = part({ replicas: [1, 2], isr: [1], leader: 1, lastKnownElr: [2] });
    // 1 can no longer lead and nobody else is valid: NO_LEADER, and LastKnownELR [2] stays as it was.
    const c = build(leaderless, { targetIsr: [], minIsr: 2, acceptable: () => false });
    expect(c.record).toMatchObject({ leader: NO_LEADER });
    expect(c.record).not.toHaveProperty('lastKnownElr');
    const steady = part({ replicas: [1, 2], isr: [1, 2], leader: 1, lastKnownElr: [] });
    expect(build(steady, { targetIsr: [1], minIsr: 1 }).record).toStrictEqual({ type: 'PartitionChangeRecord', topicId: 'T', partitionId: 0, isr: [1] });
  });
});

