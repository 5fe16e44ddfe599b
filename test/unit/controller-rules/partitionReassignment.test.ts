import { describe, expect, it } from 'vitest';
import { alterPartition } from '../../../sim/kafka/controller/rules/alterPartition';
import { alterPartitionReassignments, listPartitionReassignments } from '../../../sim/kafka/controller/rules/alterPartitionReassignments';
import { maybeCompleteReassignment, originalReplicas, reassignmentReplicas, reassignmentRevert } from '../../../sim/kafka/controller/rules/partitionReassignmentReplicas';
import { TestCluster } from './testCluster';

// Expected values from Kafka's metadata/src/test/java/org/apache/kafka/controller/PartitionReassignmentReplicasTest.java
// and PartitionReassignmentRevertTest.java where marked, and worked out by hand from the rules otherwise.

describe('PartitionReassignmentReplicas', () => {
  it('testNoneAddedOrRemoved / testAdditions / testRemovals / testAdditionsAndRemovals / testRearrangement', () => {
    expect(reassignmentReplicas([3, 2, 1], [3, 2, 1])).toEqual({ removing: [], adding: [], replicas: [3, 2, 1] });
    expect(reassignmentReplicas([3, 2, 1], [3, 6, 2, 1, 5])).toEqual({ removing: [], adding: [5, 6], replicas: [3, 6, 2, 1, 5] });
    expect(reassignmentReplicas([3, 2, 1], [3, 1])).toEqual({ removing: [2], adding: [], replicas: [3, 1, 2] });
    expect(reassignmentReplicas([3, 2, 1], [7, 3, 1, 9])).toEqual({ removing: [2], adding: [7, 9], replicas: [7, 3, 1, 9, 2] });
    expect(reassignmentReplicas([0, 1, 2, 3], [3, 2, 1, 0])).toEqual({ removing: [], adding: [], replicas: [3, 2, 1, 0] });
  });

  it('completes only once the ISR (without the removed replicas) holds every target replica', () => {
    const r = reassignmentReplicas([0, 1, 2], [0, 1, 3]);
    expect(maybeCompleteReassignment(r, [0, 1, 2])).toBeNull();
    expect(maybeCompleteReassignment(r, [0, 1, 2, 3])).toEqual({ replicas: [0, 1, 3], isr: [0, 1, 3] });
    // testDoesNotCompleteReassignmentIfIsrDoesNotHaveAllTargetReplicas / ...IfNoneOrphans: an ISR of removed replicas only.
    expect(maybeCompleteReassignment(reassignmentReplicas([0, 1, 2], [3, 4, 5]), [0, 1, 2])).toBeNull();
    expect(maybeCompleteReassignment(reassignmentReplicas([0, 1], [0, 1]), [0, 1])).toBeNull();
    expect(originalReplicas(reassignmentReplicas([0, 1, 2], [0, 1, 3]))).toEqual([0, 1, 2]);
  });

  it('cancel (PartitionReassignmentRevertTest): back to the original replicas, the ISR without the added ones', () => {
    const r = reassignmentReplicas([3, 2, 1], [3, 2, 1, 4, 5]);
    expect(reassignmentRevert(r, [3, 2, 1, 4])).toEqual({ replicas: [3, 2, 1], isr: [3, 2, 1], unclean: false });
    // testRevertWithIsrSpecialCase: only added replicas in the ISR -> the first original one alone, unclean. The
    // original order is not kept: the replica list held the removed ones after the target, sorted.
    const s = reassignmentReplicas([3, 2, 1], [4, 5]);
    expect(reassignmentRevert(s, [4, 5])).toEqual({ replicas: [1, 2, 3], isr: [1], unclean: true });
  });
});

function cluster(): TestCluster {
  const c = new TestCluster({ elr: true });
  for (const id of [1, 2, 3, 4]) {
    c.startBroker(id);
    c.unfence(id);
  }
  c.createTopic('t', [[1, 2, 3]]);
  return c;
}

describe('AlterPartitionReassignments [ReplicationControlManager.changePartitionReassignment]', () => {
  it('starts with target + removed replicas, completes when the new replica joins the ISR, and moves a removed leader', () => {
    const c = cluster();
    const started = c.apply(alterPartitionReassignments(c.image, [{ topic: 't', partition: 0, replicas: [4, 2, 3] }]));
    expect(started).toEqual([{ topic: 't', partition: 0, error: 'NONE', message: '' }]);
    expect(c.partition('t')).toMatchObject({ replicas: [4, 2, 3, 1], addingReplicas: [4], removingReplicas: [1], leader: 1, isr: [1, 2, 3], leaderEpoch: 0 });
    expect(listPartitionReassignments(c.image)).toEqual([{ topic: 't', partition: 0, replicas: [4, 2, 3, 1], addingReplicas: [4], removingReplicas: [1] }]);
    // The leader adds the caught-up new replica to the ISR: that change completes the reassignment.
    const p = c.partition('t');
    const epochOf = (b: number) => c.image.broker(b)!.epoch;
    const r = alterPartition(c.image, {
      brokerId: 1,
      brokerEpoch: epochOf(1),
      topic: 't',
      partition: 0,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: [1, 2, 3, 4].map((b) => ({ brokerId: b, brokerEpoch: epochOf(b) })),
    });
    expect(r.response.error).toBe('NEW_LEADER_ELECTED');
    c.apply(r);
    // Leader: the first target replica in the ISR; the removed one leaves the ISR and the replica list.
    expect(c.partition('t')).toMatchObject({ replicas: [4, 2, 3], addingReplicas: [], removingReplicas: [], leader: 4, isr: [2, 3, 4], leaderEpoch: 1 });
    expect(listPartitionReassignments(c.image)).toEqual([]);
  });

  it('a reorder of replicas already in sync completes at once (the leader stays: an ONLINE election keeps a valid one)', () => {
    const c = cluster();
    c.apply(alterPartitionReassignments(c.image, [{ topic: 't', partition: 0, replicas: [3, 2, 1] }]));
    expect(c.partition('t')).toMatchObject({ replicas: [3, 2, 1], addingReplicas: [], removingReplicas: [], leader: 1, leaderEpoch: 0 });
  });

  it('dropping a replica bumps the leader epoch even when the leader stays', () => {
    const c = cluster();
    c.apply(alterPartitionReassignments(c.image, [{ topic: 't', partition: 0, replicas: [1, 2] }]));
    expect(c.partition('t')).toMatchObject({ replicas: [1, 2], isr: [1, 2], leader: 1, leaderEpoch: 1 });
  });

  it('rejects bad assignments partition by partition, and cancels only what is in progress', () => {
    const c = cluster();
    const r = c.apply(
      alterPartitionReassignments(c.image, [
        { topic: 'nope', partition: 0, replicas: [1] },
        { topic: 't', partition: 5, replicas: [1] },
        { topic: 't', partition: 0, replicas: [1, 9] },
        { topic: 't', partition: 0, replicas: [2, 2] },
        { topic: 't', partition: 0, replicas: [] },
        { topic: 't', partition: 0, replicas: null },
      ]),
    );
    expect(r.map((x) => x.error)).toEqual([
      'UNKNOWN_TOPIC_OR_PARTITION',
      'UNKNOWN_TOPIC_OR_PARTITION',
      'INVALID_REPLICA_ASSIGNMENT',
      'INVALID_REPLICA_ASSIGNMENT',
      'INVALID_REPLICA_ASSIGNMENT',
      'NO_REASSIGNMENT_IN_PROGRESS',
    ]);
    expect(r[2]!.message).toMatch(/broker 9, but no such broker is registered/);
    c.apply(alterPartitionReassignments(c.image, [{ topic: 't', partition: 0, replicas: [4, 2, 3] }]));
    c.apply(alterPartitionReassignments(c.image, [{ topic: 't', partition: 0, replicas: null }]));
    // Back to brokers 1, 2, 3 (in the order the reassignment's replica list left them), broker 4 gone.
    expect(c.partition('t')).toMatchObject({ replicas: [2, 3, 1], addingReplicas: [], removingReplicas: [], isr: [1, 2, 3], leader: 1 });
  });
});
