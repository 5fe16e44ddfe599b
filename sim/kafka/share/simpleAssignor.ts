/**
 * The `simple` share-group assignor: every partition of a subscribed topic goes to at least one member
 * subscribed to it, and members are spread evenly. With fewer members than partitions each partition has one
 * member and members share the partitions out; with more members than partitions each member gets one
 * partition and the partitions share the members out, so no member sits idle (unlike a consumer group).
 * There is no revocation barrier: several members may hold one partition at once.
 * [src: group-coordinator/.../assignor/SimpleAssignor.java, SimpleHomogeneousAssignmentBuilder.java,
 * SimpleHeterogeneousAssignmentBuilder.java (Kafka 4.1)]
 *
 * Member order is member-id order and topic order by name (Kafka iterates hash maps of random ids), and the
 * spread is round robin rather than Kafka's sticky balancing, so a change of membership may move more partitions.
 */
import type { TopicPartitions } from './shareProtocol';

export interface ShareMemberSubscription {
  readonly memberId: string;
  readonly topics: readonly string[];
}

/** memberId -> its partitions, topics by name, partitions ascending; every member present, maybe with nothing. */
export function assignSimple(members: readonly ShareMemberSubscription[], partitionCount: (topic: string) => number): Map<string, TopicPartitions[]> {
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const out = new Map<string, Map<string, number[]>>(sorted.map((m) => [m.memberId, new Map()]));
  const topics = [...new Set(sorted.flatMap((m) => m.topics))].sort();
  for (const topic of topics) {
    const n = partitionCount(topic);
    if (n <= 0) continue;
    const subs = sorted.filter((m) => m.topics.includes(topic)).map((m) => m.memberId);
    const give = (memberId: string, p: number): void => {
      const mine = out.get(memberId)!;
      const list = mine.get(topic) ?? [];
      if (!list.includes(p)) list.push(p);
      mine.set(topic, list);
    };
    if (subs.length <= n) for (let p = 0; p < n; p++) give(subs[p % subs.length]!, p);
    else subs.forEach((m, i) => give(m, i % n));
  }
  const result = new Map<string, TopicPartitions[]>();
  for (const [memberId, byTopic] of out) {
    result.set(
      memberId,
      [...byTopic.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([topic, ps]) => ({ topic, partitions: [...ps].sort((x, y) => x - y) })),
    );
  }
  return result;
}
