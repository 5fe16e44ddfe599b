/**
 * `sticky` (eager): the sticky assignment as is. Under the eager protocol every member revokes all its
 * partitions before joining, so the previous assignment travels in the subscription's user data (with its
 * generation) and the assignor uses it to give members back what they had.
 * [clients/.../consumer/StickyAssignor.java]
 */
import { stickyAssign, toGroupAssignment } from './abstractStickyAssignor';
import type { ConsumerPartitionAssignor, GroupAssignment, GroupSubscription } from './consumerPartitionAssignor';

export function assignSticky(group: GroupSubscription): GroupAssignment {
  const result = stickyAssign(group);
  return toGroupAssignment(result.index, result.assignment);
}

export const stickyAssignor: ConsumerPartitionAssignor = {
  name: 'sticky',
  supportedProtocols: ['EAGER'],
  assign: assignSticky,
};
