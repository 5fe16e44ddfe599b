import { describe, expect, it } from 'vitest';
import { assignmentOf } from '../../../sim/kafka/coordinator/consumer/assignment';
import { isReconciledTo, reconcile, type CurrentAssignment, type ReconcileInput } from '../../../sim/kafka/coordinator/consumer/currentAssignmentBuilder';
import type { MemberState } from '../../../sim/kafka/coordinator/consumer/memberState';

// The cases of Kafka's CurrentAssignmentBuilderTest, topic ids t1 and t2.

const member = (state: MemberState, epoch: number, previous: number, assigned: Record<string, number[]>, pending: Record<string, number[]> = {}): CurrentAssignment => ({
  state,
  memberEpoch: epoch,
  previousMemberEpoch: previous,
  assignedPartitions: assignmentOf(assigned),
  partitionsPendingRevocation: assignmentOf(pending),
});
const step = (current: CurrentAssignment, targetEpoch: number, target: Record<string, number[]>, opts: { epochOf?: ReconcileInput['currentPartitionEpoch']; owned?: Record<string, number[]> | null } = {}) => {
  const r = reconcile({
    current,
    targetEpoch,
    target: assignmentOf(target),
    currentPartitionEpoch: opts.epochOf ?? (() => -1),
    owned: opts.owned === undefined || opts.owned === null ? null : assignmentOf(opts.owned),
  });
  if (!r.ok) throw new Error(r.error);
  return r.next;
};

describe('reconcile (CurrentAssignmentBuilder)', () => {
  it('STABLE at the target epoch stays as it is', () => {
    const m = member('STABLE', 10, 10, { t1: [1, 2, 3] });
    expect(step(m, 10, { t1: [1, 2, 3] })).toBe(m);
    expect(isReconciledTo(m, 10)).toBe(true);
    expect(isReconciledTo(m, 11)).toBe(false);
  });

  it('STABLE to STABLE with a new epoch and new free partitions: assigned at once', () => {
    const m = member('STABLE', 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] });
    expect(step(m, 11, { t1: [1, 2, 3, 4], t2: [4, 5, 6, 7] })).toEqual(member('STABLE', 11, 10, { t1: [1, 2, 3, 4], t2: [4, 5, 6, 7] }));
  });

  it('STABLE to UNREVOKED_PARTITIONS: stays at its epoch, keeps only what it keeps, must revoke the rest first', () => {
    const m = member('STABLE', 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] });
    // The target also adds partitions (t1-4, t2-7): they come only after the revocation.
    expect(step(m, 11, { t1: [2, 3, 4], t2: [5, 6, 7] })).toEqual(member('UNREVOKED_PARTITIONS', 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] }));
  });

  it('STABLE to UNRELEASED_PARTITIONS: moves to the target epoch but waits for partitions another member still owns', () => {
    const m = member('STABLE', 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] });
    expect(step(m, 11, { t1: [1, 2, 3, 4], t2: [4, 5, 6, 7] }, { epochOf: () => 10 })).toEqual(member('UNRELEASED_PARTITIONS', 11, 10, { t1: [1, 2, 3], t2: [4, 5, 6] }));
  });

  it('a partition to revoke that the member already stopped reporting counts as revoked', () => {
    // testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions
    const m = member('STABLE', 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] });
    const next = step(m, 11, { t1: [1, 2, 3], t2: [4, 5, 7] }, { epochOf: (t) => (t === 't2' ? 10 : -1), owned: {} });
    expect(next).toEqual(member('UNRELEASED_PARTITIONS', 11, 10, { t1: [1, 2, 3], t2: [4, 5] }));
  });

  it('UNREVOKED_PARTITIONS to STABLE once the heartbeat no longer reports the revoked partitions', () => {
    const m = member('UNREVOKED_PARTITIONS', 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] });
    expect(step(m, 11, { t1: [2, 3], t2: [5, 6] }, { owned: { t1: [2, 3], t2: [5, 6] } })).toEqual(member('STABLE', 11, 10, { t1: [2, 3], t2: [5, 6] }));
  });

  it('UNREVOKED_PARTITIONS stays while the member still reports a revoked partition, or says nothing', () => {
    const m = member('UNREVOKED_PARTITIONS', 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] });
    expect(step(m, 12, { t1: [3], t2: [6] }, { owned: null })).toBe(m);
    expect(step(m, 12, { t1: [3], t2: [6] }, { owned: { t1: [1, 2, 3], t2: [5, 6] } })).toBe(m);
    expect(step(m, 12, { t1: [3], t2: [6] }, { owned: { t1: [2, 3], t2: [4, 5, 6] } })).toBe(m);
  });

  it('UNREVOKED_PARTITIONS to UNREVOKED_PARTITIONS: the target moved on meanwhile, more to revoke at epoch + 1', () => {
    const m = member('UNREVOKED_PARTITIONS', 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] });
    expect(step(m, 12, { t1: [3], t2: [6] }, { owned: { t1: [2, 3], t2: [5, 6] } })).toEqual(member('UNREVOKED_PARTITIONS', 11, 10, { t1: [3], t2: [6] }, { t1: [2], t2: [5] }));
  });

  it('UNREVOKED_PARTITIONS to UNRELEASED_PARTITIONS', () => {
    const m = member('UNREVOKED_PARTITIONS', 11, 10, { t1: [2, 3], t2: [5, 6] });
    expect(step(m, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }, { epochOf: () => 10, owned: { t1: [2, 3], t2: [5, 6] } })).toEqual(
      member('UNRELEASED_PARTITIONS', 11, 11, { t1: [2, 3], t2: [5, 6] }),
    );
  });

  it('UNRELEASED_PARTITIONS to STABLE: the target no longer wants what was unreleased', () => {
    const m = member('UNRELEASED_PARTITIONS', 11, 11, { t1: [2, 3], t2: [5, 6] });
    expect(step(m, 12, { t1: [2, 3], t2: [5, 6] }, { epochOf: () => 10 })).toEqual(member('STABLE', 12, 11, { t1: [2, 3], t2: [5, 6] }));
  });

  it('UNRELEASED_PARTITIONS to STABLE: the previous owners released them', () => {
    const m = member('UNRELEASED_PARTITIONS', 11, 11, { t1: [2, 3], t2: [5, 6] });
    expect(step(m, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }, { epochOf: () => -1 })).toEqual(member('STABLE', 11, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }));
  });

  it('UNRELEASED_PARTITIONS stays while the partitions are still owned elsewhere', () => {
    const m = member('UNRELEASED_PARTITIONS', 11, 11, { t1: [2, 3], t2: [5, 6] });
    expect(step(m, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }, { epochOf: () => 10 })).toEqual(m);
  });

  it('UNRELEASED_PARTITIONS to UNREVOKED_PARTITIONS: a newer target takes partitions away', () => {
    const m = member('UNRELEASED_PARTITIONS', 11, 11, { t1: [2, 3], t2: [5, 6] });
    expect(step(m, 12, { t1: [3], t2: [6] }, { epochOf: () => 10 })).toEqual(member('UNREVOKED_PARTITIONS', 11, 11, { t1: [3], t2: [6] }, { t1: [2], t2: [5] }));
  });

  it('a partition the member is revoking itself is not "unreleased" when the target gives it back', () => {
    const m = member('UNREVOKED_PARTITIONS', 10, 10, { t1: [2] }, { t1: [1] });
    // Its own pending revocation holds t1-1 at epoch 10; the newer target gives t1-1 back to it.
    expect(step(m, 12, { t1: [1, 2] }, { epochOf: (_t, p) => (p === 1 ? 10 : -1), owned: { t1: [2] } })).toEqual(member('STABLE', 12, 10, { t1: [1, 2] }));
  });

  it('UNKNOWN: fenced unless the member reports owning nothing, then reconciled from scratch', () => {
    const m = member('UNKNOWN', 11, 11, { t1: [1, 2] });
    expect(reconcile({ current: m, targetEpoch: 12, target: assignmentOf({ t1: [1] }), currentPartitionEpoch: () => -1, owned: null })).toEqual({ ok: false, error: 'FENCED_MEMBER_EPOCH' });
    expect(reconcile({ current: m, targetEpoch: 12, target: assignmentOf({ t1: [1] }), currentPartitionEpoch: () => -1, owned: assignmentOf({ t1: [1] }) }).ok).toBe(false);
    // It owns nothing, so nothing waits for a revocation: straight to the target.
    expect(step(m, 12, { t1: [1, 3] }, { owned: {} })).toEqual(member('STABLE', 12, 11, { t1: [1, 3] }));
  });
});
