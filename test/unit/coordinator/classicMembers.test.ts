import { describe, expect, it } from 'vitest';
import { assignmentKeys, assignmentOf } from '../../../sim/kafka/coordinator/consumer/assignment';
import { classicHeartbeatToConsumerGroup, classicLeaveToConsumerGroup, classicSyncToConsumerGroup, ownedFromProtocols } from '../../../sim/kafka/coordinator/consumer/classicMembers';
import type { ConsumerGroup } from '../../../sim/kafka/coordinator/consumer/consumerGroup';
import { consumerGroupKeyOf, currentAssignmentRecord, replayConsumerGroupRecord } from '../../../sim/kafka/coordinator/consumer/consumerGroupRecords';
import { classicGroupFromConsumer, consumerGroupRecordsFromClassic, downgradeOnFence, onlineUpgradeRefusal, type ClassicGroupView } from '../../../sim/kafka/coordinator/consumer/groupMigration';
import type { CoordinatorRecord } from '../../../sim/kafka/coordinator/storage';
import { protocol } from './coordinatorHarness';

const G = 'g';
const tp = (partition: number) => ({ topic: 't', partition });

function replay(records: readonly CoordinatorRecord[], groups = new Map<string, ConsumerGroup>()): Map<string, ConsumerGroup> {
  for (const r of records) replayConsumerGroupRecord(groups, consumerGroupKeyOf(JSON.parse(r.key) as unknown[])!, r.value);
  return groups;
}

/** A classic group at generation 4: c1 owns t-0, t-1 (session 10 s), c2 owns t-2, t-3 (static "i2", session 20 s). */
const CLASSIC: ClassicGroupView = {
  groupId: G,
  generationId: 4,
  protocolName: 'cooperative-sticky',
  members: [
    { memberId: 'c1', instanceId: null, clientId: 'c1', rebalanceTimeoutMs: 30_000, sessionTimeoutMs: 10_000, protocols: [protocol('range', ['t']), protocol('cooperative-sticky', ['t'], [tp(0), tp(1)])], assignment: [tp(0), tp(1)] },
    { memberId: 'c2', instanceId: 'i2', clientId: 'c2', rebalanceTimeoutMs: 30_000, sessionTimeoutMs: 20_000, protocols: [protocol('cooperative-sticky', ['t'], [tp(2), tp(3)])], assignment: [tp(2), tp(3)] },
  ],
};

const upgraded = (): ConsumerGroup => replay(consumerGroupRecordsFromClassic(CLASSIC, () => 4)).get(G)!;

describe('online migration rules', () => {
  it('upgrade: the consumer group keeps the generation as epoch and each member STABLE with its partitions as target', () => {
    const g = upgraded();
    expect({ epoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, state: g.state }).toEqual({ epoch: 4, assignmentEpoch: 4, state: 'Stable' });
    const c2 = g.members.get('c2')!;
    expect(c2).toMatchObject({ instanceId: 'i2', memberEpoch: 4, previousMemberEpoch: 4, state: 'STABLE', subscribedTopicNames: ['t'], rebalanceTimeoutMs: 30_000 });
    expect(assignmentKeys(c2.assignedPartitions)).toEqual(['t-2', 't-3']);
    expect(assignmentKeys(g.targetAssignment.get('c1')!)).toEqual(['t-0', 't-1']);
    expect(c2.classicMemberMetadata).toEqual({ sessionTimeoutMs: 20_000, supportedProtocols: CLASSIC.members[1]!.protocols });
    expect(g.currentPartitionEpoch('t', 3)).toBe(4);
    expect(g.staticMember('i2')?.memberId).toBe('c2');
  });

  it('the upgrade needs the policy and a group that fits group.consumer.max.size', () => {
    expect(onlineUpgradeRefusal('bidirectional', 2, 10)).toBeNull();
    expect(onlineUpgradeRefusal('upgrade', 2, 10)).toBeNull();
    expect(onlineUpgradeRefusal('downgrade', 2, 10)).toMatch(/disabled/);
    expect(onlineUpgradeRefusal('disabled', 2, 10)).toMatch(/disabled/);
    expect(onlineUpgradeRefusal('bidirectional', 11, 10)).toMatch(/group.consumer.max.size/);
  });

  it('a classic member heartbeat: its generation is its member epoch; it is told to rejoin when the epoch moved, when it must revoke, and when what it waits for is free', () => {
    const g = upgraded();
    expect(classicHeartbeatToConsumerGroup(g, { memberId: 'c1', groupInstanceId: null, generationId: 4 }).error).toBe('NONE');
    expect(classicHeartbeatToConsumerGroup(g, { memberId: 'c1', groupInstanceId: null, generationId: 3 }).error).toBe('ILLEGAL_GENERATION');
    expect(classicHeartbeatToConsumerGroup(g, { memberId: 'nobody', groupInstanceId: null, generationId: 4 }).error).toBe('UNKNOWN_MEMBER_ID');
    expect(classicHeartbeatToConsumerGroup(g, { memberId: 'c9', groupInstanceId: 'i2', generationId: 4 }).error).toBe('FENCED_INSTANCE_ID');
    g.groupEpoch = 5;
    expect(classicHeartbeatToConsumerGroup(g, { memberId: 'c1', groupInstanceId: null, generationId: 4 }).error).toBe('REBALANCE_IN_PROGRESS');
    // SyncGroup the same: a member behind the group epoch rejoins first, unless it is revoking.
    expect(classicSyncToConsumerGroup(g, { memberId: 'c1', groupInstanceId: null, generationId: 4 })).toMatchObject({ error: 'REBALANCE_IN_PROGRESS', rejoin: true });
    replay([currentAssignmentRecord(G, 'c1', { memberEpoch: 4, previousMemberEpoch: 4, state: 'UNREVOKED_PARTITIONS', assignedPartitions: assignmentOf({ t: [0] }), partitionsPendingRevocation: assignmentOf({ t: [1] }) })], new Map([[G, g]]));
    expect(classicSyncToConsumerGroup(g, { memberId: 'c1', groupInstanceId: null, generationId: 4 }).error).toBe('NONE');
    g.groupEpoch = 4;
    expect(classicHeartbeatToConsumerGroup(g, { memberId: 'c1', groupInstanceId: null, generationId: 4 }).error).toBe('REBALANCE_IN_PROGRESS');
  });

  it('owned partitions come from the first protocol; the eager sticky one carries its previous assignment, not what it owns', () => {
    expect(assignmentKeys(ownedFromProtocols([protocol('cooperative-sticky', ['t'], [tp(1), tp(0)])]))).toEqual(['t-0', 't-1']);
    expect(assignmentKeys(ownedFromProtocols([protocol('sticky', ['t'], [tp(1)])]))).toEqual([]);
  });

  it('a classic LeaveGroup removes each named classic member and moves the epoch once', () => {
    const g = upgraded();
    const r = classicLeaveToConsumerGroup(g, [{ memberId: 'c1', groupInstanceId: null }, { memberId: '', groupInstanceId: 'i2' }, { memberId: 'ghost', groupInstanceId: null }], () => 4);
    expect(r.errors).toEqual(['NONE', 'NONE', 'UNKNOWN_MEMBER_ID']);
    replay(r.records, new Map([[G, g]]));
    expect(g.members.size).toBe(0);
    expect(g.groupEpoch).toBe(5);
  });

  it('downgrade: only when the fenced member is the last of the consumer protocol, others remain, the policy allows it and they fit group.max.size', () => {
    const g = upgraded();
    // Add a consumer-protocol member m3 at epoch 5.
    replay(
      [
        { key: JSON.stringify(['ConsumerGroupMemberMetadata', G, 'm3']), value: JSON.stringify({ instanceId: null, rackId: null, clientId: 'm3', clientHost: 'm3', subscribedTopicNames: ['t'], serverAssignor: null, rebalanceTimeoutMs: 300_000, classicMemberMetadata: null }) },
        { key: JSON.stringify(['ConsumerGroupTargetAssignmentMember', G, 'm3']), value: JSON.stringify({ topicPartitions: { t: [3] } }) },
      ],
      new Map([[G, g]]),
    );
    expect(downgradeOnFence(g, 'm3', 'bidirectional', 1000)).toBe(true);
    expect(downgradeOnFence(g, 'm3', 'downgrade', 1000)).toBe(true);
    expect(downgradeOnFence(g, 'm3', 'upgrade', 1000)).toBe(false);
    expect(downgradeOnFence(g, 'm3', 'bidirectional', 1)).toBe(false);
    expect(downgradeOnFence(g, 'c1', 'bidirectional', 1000)).toBe(false);
    const classic = classicGroupFromConsumer(g, 'm3', null);
    expect(classic.generationId).toBe(4);
    expect(classic.members.map((m) => [m.memberId, m.sessionTimeoutMs, m.assignment.map((x) => x.partition)])).toEqual([
      ['c1', 10_000, [0, 1]],
      ['c2', 20_000, [2, 3]],
    ]);
    // A classic static member replacing c2 takes c2's target (the caller checks the rest are classic).
    const plain = upgraded();
    const joining = { ...plain.members.get('c2')!, memberId: 'c2b' };
    expect(classicGroupFromConsumer(plain, 'c2', joining).members.map((m) => [m.memberId, m.assignment.map((x) => x.partition)])).toEqual([
      ['c1', [0, 1]],
      ['c2b', [2, 3]],
    ]);
  });
});
