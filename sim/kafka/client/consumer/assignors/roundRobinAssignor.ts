/**
 * `roundrobin`: all partitions of all subscribed topics, sorted by (topic, partition), dealt one at a time
 * to the members in order (static members by group.instance.id, then dynamic ones by member id), skipping a
 * member not subscribed to the partition's topic. Balanced within one when all subscriptions are equal.
 */
import {
  assignableTopics,
  compareMembers,
  emptyAssignment,
  finishAssignment,
  type ConsumerPartitionAssignor,
  type GroupAssignment,
  type GroupSubscription,
} from './consumerPartitionAssignor';

/** [clients/.../consumer/RoundRobinAssignor.java `assign`] */
export function assignRoundRobin(group: GroupSubscription): GroupAssignment {
  const lists = emptyAssignment(group.members);
  const members = [...group.members].sort(compareMembers);
  const subscribed = members.map((m) => new Set(m.topics));
  // A circular iterator over the sorted members that survives from one partition to the next.
  let next = 0;
  for (const [topic, numPartitions] of assignableTopics(group)) {
    for (let p = 0; p < numPartitions; p++) {
      // Some member subscribes to `topic` (assignableTopics only keeps subscribed ones), so this ends.
      while (!subscribed[next]!.has(topic)) next = (next + 1) % members.length;
      lists.get(members[next]!.memberId)!.push({ topic, partition: p });
      next = (next + 1) % members.length;
    }
  }
  return finishAssignment(lists);
}

export const roundRobinAssignor: ConsumerPartitionAssignor = {
  name: 'roundrobin',
  supportedProtocols: ['EAGER'],
  assign: assignRoundRobin,
};
