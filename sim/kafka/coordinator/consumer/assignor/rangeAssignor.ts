/**
 * `range` on the server (KIP-848): per topic, members in order (static members first by group.instance.id,
 * then the others by member id) take consecutive ranges, floor(P/M) each and one more for the first P mod M, so
 * co-partitioned topics land on the same members. Not sticky: ranges follow the member order.
 * [group-coordinator/.../assignor/RangeAssignor.java (rewritten in KAFKA-16944)]
 */
import { compareStrings } from '../../../topicPartition';
import { assignmentOf, type Assignment } from '../assignment';
import { PartitionAssignorException, type GroupSpec, type MemberSubscriptionAndAssignment, type ServerAssignor } from './groupSpec';

interface TopicRanges {
  readonly numPartitions: number;
  numMembers: number;
  minQuota: number;
  extra: number;
  nextRange: number;
}

/** Static members first (by instance id), then dynamic ones by member id. [RangeAssignor.java `sortMemberIds`] */
function sortedMemberIds(group: GroupSpec): string[] {
  const rank = (id: string, m: MemberSubscriptionAndAssignment): [number, string] => (m.instanceId !== null ? [0, m.instanceId] : [1, id]);
  return [...group.members]
    .map(([id, m]) => ({ id, key: rank(id, m) }))
    .sort((a, b) => a.key[0] - b.key[0] || compareStrings(a.key[1], b.key[1]))
    .map((x) => x.id);
}

export const RANGE_ASSIGNOR: ServerAssignor = {
  name: 'range',
  assign(group, topics) {
    if (group.members.size === 0) return new Map();
    const memberIds = sortedMemberIds(group);
    const ranges = new Map<string, TopicRanges>();
    // Homogeneous: every topic has every member; heterogeneous: count each topic's subscribers.
    for (const id of memberIds) {
      for (const t of group.members.get(id)!.subscribedTopics) {
        let r = ranges.get(t);
        if (!r) {
          const n = topics.numPartitions(t);
          if (n === -1) throw new PartitionAssignorException('Member is subscribed to a non-existent topic');
          ranges.set(t, (r = { numPartitions: n, numMembers: 0, minQuota: -1, extra: -1, nextRange: 0 }));
        }
        r.numMembers++;
      }
    }
    const out = new Map<string, Assignment>();
    for (const id of memberIds) {
      const a = new Map<string, number[]>();
      for (const t of [...group.members.get(id)!.subscribedTopics].sort(compareStrings)) {
        const r = ranges.get(t)!;
        if (r.minQuota === -1) {
          r.minQuota = Math.floor(r.numPartitions / r.numMembers);
          r.extra = r.numPartitions % r.numMembers;
        }
        let quota = r.minQuota;
        if (r.extra > 0) {
          quota++;
          r.extra--;
        }
        const start = r.nextRange;
        const end = Math.min(start + quota, r.numPartitions);
        r.nextRange = end;
        if (start < end) a.set(t, Array.from({ length: end - start }, (_, i) => start + i));
      }
      out.set(id, assignmentOf(a));
    }
    return out;
  },
};
