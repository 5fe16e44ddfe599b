/**
 * `range`: per topic, on its own, the subscribed members in order (static members by group.instance.id, then
 * dynamic ones by member id) each take a consecutive run of floor(P/M) partitions, and the first P mod M of
 * them one more. With several topics of equal size the same members get the same partition numbers
 * (co-partitioning), at the price of imbalance: the first members get the extras of every topic.
 * Rack-aware range assignment (client.rack) is not modelled.
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

/** [clients/.../consumer/RangeAssignor.java `assignPartitions`, `assignRanges`] */
export function assignRange(group: GroupSubscription): GroupAssignment {
  const lists = emptyAssignment(group.members);
  for (const [topic, numPartitions] of assignableTopics(group)) {
    const consumers = group.members.filter((m) => m.topics.includes(topic)).sort(compareMembers);
    const perConsumer = Math.floor(numPartitions / consumers.length);
    const withExtra = numPartitions % consumers.length;
    for (let i = 0; i < consumers.length; i++) {
      const start = perConsumer * i + Math.min(i, withExtra);
      const length = perConsumer + (i < withExtra ? 1 : 0);
      const list = lists.get(consumers[i]!.memberId)!;
      for (let p = start; p < start + length; p++) list.push({ topic, partition: p });
    }
  }
  return finishAssignment(lists);
}

export const rangeAssignor: ConsumerPartitionAssignor = {
  name: 'range',
  supportedProtocols: ['EAGER'],
  assign: assignRange,
};
