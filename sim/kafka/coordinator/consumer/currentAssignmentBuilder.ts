/**
 * The reconciliation engine of the consumer group protocol (KIP-848): one step that moves a member's current
 * assignment towards its target, never handing a partition to a member before its previous owner has revoked it.
 * A pure function of the member's current assignment record, the target, who owns what now, and what the member
 * reported owning in its heartbeat. [group-coordinator/.../modern/consumer/CurrentAssignmentBuilder.java]
 */
import {
  assignmentHas,
  assignmentOf,
  EMPTY_ASSIGNMENT,
  type Assignment,
} from './assignment';
import type { MemberState } from './memberState';

/** A member's reconciliation state, as ConsumerGroupCurrentMemberAssignmentValue stores it. */
export interface CurrentAssignment {
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  /** What the member may own now. */
  readonly assignedPartitions: Assignment;
  /** What it still owns but must give up before it moves on. */
  readonly partitionsPendingRevocation: Assignment;
}

export interface ReconcileInput {
  readonly current: CurrentAssignment;
  readonly targetEpoch: number;
  readonly target: Assignment;
  /** The epoch of the member currently owning a partition (assigned or pending revocation), -1 when free. */
  readonly currentPartitionEpoch: (topic: string, partition: number) => number;
  /** What the member reported owning in this heartbeat; null when it did not say. */
  readonly owned: Assignment | null;
}

/** The next state, or FENCED_MEMBER_EPOCH when a member in an unknown state must drop everything and rejoin. */
export type ReconcileResult = { readonly ok: true; readonly next: CurrentAssignment } | { readonly ok: false; readonly error: 'FENCED_MEMBER_EPOCH' };

/** The member is in STABLE at `targetEpoch`: nothing to do. [ConsumerGroupMember.java `isReconciledTo`] */
export function isReconciledTo(c: CurrentAssignment, targetEpoch: number): boolean {
  return c.state === 'STABLE' && c.memberEpoch === targetEpoch;
}

/** One reconciliation step; returns `current` itself when nothing can move. [CurrentAssignmentBuilder.java `build`] */
export function reconcile(input: ReconcileInput): ReconcileResult {
  const c = input.current;
  switch (c.state) {
    case 'STABLE':
      // A newer target: reconcile towards it.
      if (c.memberEpoch !== input.targetEpoch) return ok(computeNextAssignment(input, c.memberEpoch));
      return ok(c);
    case 'UNREVOKED_PARTITIONS':
      // Revoked partitions count as revoked once the member stops reporting them.
      if (ownsAnyOf(input.owned, c.partitionsPendingRevocation)) return ok(c);
      // Revoked: the member moves past its epoch and on towards the latest target.
      return ok(computeNextAssignment(input, c.memberEpoch + 1));
    case 'UNRELEASED_PARTITIONS':
      // Picks up the unreleased partitions as soon as their owners let go.
      return ok(computeNextAssignment(input, c.memberEpoch));
    case 'UNKNOWN':
      // Written by a newer version: the member must give up everything and start again.
      if (input.owned === null || input.owned.size > 0) return { ok: false, error: 'FENCED_MEMBER_EPOCH' };
      return ok(computeNextAssignment(input, input.targetEpoch));
  }
}

function ok(next: CurrentAssignment): ReconcileResult {
  return { ok: true, next };
}

/** Whether the member still reports any of `pending`; a member that did not report counts as still owning them. */
function ownsAnyOf(owned: Assignment | null, pending: Assignment): boolean {
  if (owned === null) return true;
  for (const [t, ps] of owned) for (const p of ps) if (assignmentHas(pending, t, p)) return true;
  return false;
}

/** [CurrentAssignmentBuilder.java `computeNextAssignment`] */
function computeNextAssignment(input: ReconcileInput, memberEpoch: number): CurrentAssignment {
  const c = input.current;
  const { target, targetEpoch } = input;
  const kept = new Map<string, number[]>();
  const revoke = new Map<string, number[]>();
  const add = new Map<string, number[]>();
  let unreleased = false;
  const topics = new Set([...target.keys(), ...c.assignedPartitions.keys()]);
  for (const topic of topics) {
    const want = target.get(topic) ?? [];
    const have = c.assignedPartitions.get(topic) ?? [];
    // kept = current ∩ target; to revoke = current − kept.
    kept.set(topic, have.filter((p) => want.includes(p)));
    revoke.set(topic, have.filter((p) => !want.includes(p)));
    // to add = target − kept − partitions another member still owns. A partition this member is itself revoking
    // is not someone else's (a fix of later Kafka versions; the 4.0 code waits one more heartbeat for it).
    const adding: number[] = [];
    for (const p of want) {
      if (have.includes(p)) continue;
      const ownedElsewhere = input.currentPartitionEpoch(topic, p) !== -1 && !assignmentHas(c.partitionsPendingRevocation, topic, p);
      if (ownedElsewhere) unreleased = true;
      else adding.push(p);
    }
    add.set(topic, adding);
  }
  const keptA = assignmentOf(kept);
  const revokeA = assignmentOf(revoke);
  const addA = assignmentOf(add);
  const step = (state: MemberState, epoch: number, assigned: Assignment, pending: Assignment): CurrentAssignment => ({
    // Kafka's ConsumerGroupMember.Builder.updateMemberEpoch: the previous epoch is the one the member had.
    previousMemberEpoch: c.memberEpoch,
    memberEpoch: epoch,
    state,
    assignedPartitions: assigned,
    partitionsPendingRevocation: pending,
  });
  if (revokeA.size > 0 && ownsAnyOf(input.owned, revokeA)) {
    // Revocation first: the member stays at its epoch and keeps only what it keeps.
    return step('UNREVOKED_PARTITIONS', memberEpoch, keptA, revokeA);
  }
  if (addA.size > 0) {
    // New partitions go to the member at once, at the target epoch.
    const merged = assignmentOf([...keptA, ...addA]);
    return step(unreleased ? 'UNRELEASED_PARTITIONS' : 'STABLE', targetEpoch, merged, EMPTY_ASSIGNMENT);
  }
  return step(unreleased ? 'UNRELEASED_PARTITIONS' : 'STABLE', targetEpoch, keptA, EMPTY_ASSIGNMENT);
}
