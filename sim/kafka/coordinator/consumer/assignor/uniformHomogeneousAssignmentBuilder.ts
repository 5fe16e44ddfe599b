/**
 * The uniform assignor when every member subscribes to the same topics: each member gets floor(P/M) partitions
 * and the first P mod M members (in member order) one more; a member keeps what it already has up to its quota,
 * and the partitions nobody has (new ones, or taken from members above quota) fill the members below quota.
 * [group-coordinator/.../assignor/UniformHomogeneousAssignmentBuilder.java]
 */
import { compareStrings } from '../../../topicPartition';
import { assignmentOf, type Assignment } from '../assignment';
import { PartitionAssignorException, type GroupAssignment, type GroupSpec, type SubscribedTopicDescriber } from './groupSpec';

export function assignUniformHomogeneous(group: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
  const first = group.members.values().next().value;
  if (first === undefined || first.subscribedTopics.size === 0) return new Map();
  const subscribed = [...first.subscribedTopics].sort(compareStrings);
  // Partitions no member's target holds yet, topic by topic.
  const unassigned: [string, number][] = [];
  let total = 0;
  for (const t of subscribed) {
    const n = topics.numPartitions(t);
    if (n === -1) throw new PartitionAssignorException(`Members are subscribed to topic ${t} which doesn't exist in the topic metadata.`);
    for (let p = 0; p < n; p++) if (!group.isPartitionAssigned(t, p)) unassigned.push([t, p]);
    total += n;
  }
  const minQuota = Math.floor(total / group.members.size);
  let extra = total % group.members.size;
  const target = new Map<string, Map<string, number[]>>();
  const unfilled: { memberId: string; remaining: number }[] = [];
  // Keep each member's partitions up to its quota; the rest and unsubscribed topics are taken away.
  for (const [memberId, m] of group.members) {
    let quota = minQuota;
    if (extra > 0) {
      quota++;
      extra--;
    }
    const kept = new Map<string, number[]>();
    for (const [t, ps] of m.assignment) {
      if (!first.subscribedTopics.has(t)) continue;
      const keep: number[] = [];
      for (const p of ps) {
        if (quota > 0) {
          keep.push(p);
          quota--;
        } else unassigned.push([t, p]);
      }
      if (keep.length > 0) kept.set(t, keep);
    }
    if (quota > 0) unfilled.push({ memberId, remaining: quota });
    target.set(memberId, kept);
  }
  // Members below quota take the free partitions in order.
  let next = 0;
  for (const u of unfilled) {
    const a = target.get(u.memberId)!;
    for (let i = 0; i < u.remaining && next < unassigned.length; i++) {
      const [t, p] = unassigned[next++]!;
      let l = a.get(t);
      if (!l) a.set(t, (l = []));
      l.push(p);
    }
  }
  if (next < unassigned.length) throw new PartitionAssignorException('Partitions were left unassigned');
  const out = new Map<string, Assignment>();
  for (const [id, a] of target) out.set(id, assignmentOf(a));
  return out;
}
