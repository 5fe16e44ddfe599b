/**
 * `cooperative-sticky` (KIP-429): the same target as `sticky`, but a partition that must move to another
 * member is, in this rebalance, only taken away from its current owner and given to no one. The owner revokes
 * it (onPartitionsRevoked) and, having revoked something, rejoins; in that follow-up rebalance the partition
 * is unowned and goes to its new owner. So no partition is ever owned by two members at once, and members keep
 * consuming everything that does not move.
 * [clients/.../consumer/CooperativeStickyAssignor.java `assignPartitions`, `adjustAssignment`,
 *  `computePartitionsTransferringOwnership`; consumer/internals/ConsumerCoordinator.java `onJoinComplete`]
 */
import { stickyAssign, toGroupAssignment } from './abstractStickyAssignor';
import type {
  ConsumerPartitionAssignor,
  GroupAssignment,
  GroupSubscription,
  TopicPartition,
} from './consumerPartitionAssignor';

export interface CooperativeStickyResult {
  /** What each member gets now: the target minus partitions still owned by someone else. */
  readonly assignment: GroupAssignment;
  /** The balanced sticky target the group converges to after the follow-up rebalance. */
  readonly target: GroupAssignment;
  /** Partitions held back this round, each with the member it goes to next time, in (topic, partition) order. */
  readonly partitionsTransferringOwnership: readonly TransferringPartition[];
}

export interface TransferringPartition extends TopicPartition {
  readonly newOwner: string;
}

export function assignCooperativeStickyWithTarget(group: GroupSubscription): CooperativeStickyResult {
  const result = stickyAssign(group);
  const { index } = result;
  const transferring =
    result.partitionsTransferringOwnership ??
    computePartitionsTransferringOwnership(result.reportedOwned, result.assignment);
  const adjusted = new Map<string, number[]>();
  for (const [member, ids] of result.assignment) {
    adjusted.set(member, ids.filter((id) => transferring.get(id) !== member));
  }
  const moving = [...transferring.keys()]
    .sort((a, b) => a - b)
    .map((id) => ({ ...index.toTopicPartition(id), newOwner: transferring.get(id)! }));
  return {
    assignment: toGroupAssignment(index, adjusted),
    target: toGroupAssignment(index, result.assignment),
    partitionsTransferringOwnership: moving,
  };
}

export function assignCooperativeSticky(group: GroupSubscription): GroupAssignment {
  return assignCooperativeStickyWithTarget(group).assignment;
}

/**
 * For the general algorithm: partitions newly assigned to one member that another member reported owning
 * and is losing. [clients/.../consumer/CooperativeStickyAssignor.java `computePartitionsTransferringOwnership`]
 */
function computePartitionsTransferringOwnership(
  owned: ReadonlyMap<string, readonly number[]>,
  assignment: ReadonlyMap<string, readonly number[]>,
): Map<number, string> {
  const added = new Map<number, string>();
  const revoked = new Set<number>();
  for (const [member, ids] of assignment) {
    const mine = new Set(owned.get(member) ?? []);
    const assigned = new Set(ids);
    for (const id of ids) if (!mine.has(id)) added.set(id, member);
    for (const id of mine) if (!assigned.has(id)) revoked.add(id);
  }
  for (const id of [...added.keys()]) if (!revoked.has(id)) added.delete(id);
  return added;
}

export const cooperativeStickyAssignor: ConsumerPartitionAssignor = {
  name: 'cooperative-sticky',
  supportedProtocols: ['COOPERATIVE', 'EAGER'],
  assign: assignCooperativeSticky,
};
