import { describe, expect, it } from 'vitest';
import {
  type GroupAssignment,
  type GroupSubscription,
  type Subscription,
  type TopicPartition,
} from '../../../sim/kafka/client/consumer/assignors/consumerPartitionAssignor';
import { assignCooperativeStickyWithTarget } from '../../../sim/kafka/client/consumer/assignors/cooperativeStickyAssignor';
import {
  ASSIGNORS,
  assignorFor,
  DEFAULT_PARTITION_ASSIGNMENT_STRATEGY,
} from '../../../sim/kafka/client/consumer/assignors/partitionAssignmentStrategy';

// Compact notation: "t-0" is partition 0 of topic t; a member is "id;instance or -;generation;topics;owned".
function group(ppt: Record<string, number>, ...members: string[]): GroupSubscription {
  return {
    partitionsPerTopic: new Map(Object.entries(ppt)),
    members: members.map((m): Subscription => {
      const [memberId, inst, gen, topics, owned] = m.split(';') as [string, string, string, string, string];
      return {
        memberId,
        groupInstanceId: inst === '-' ? null : inst,
        generationId: Number(gen),
        topics: topics ? topics.split(',') : [],
        ownedPartitions: owned ? owned.split(',').map(parseTopicPartition) : [],
      };
    }),
  };
}
function parseTopicPartition(s: string): TopicPartition {
  const dash = s.lastIndexOf('-');
  return { topic: s.slice(0, dash), partition: Number(s.slice(dash + 1)) };
}
const show = (a: GroupAssignment) =>
  Object.fromEntries([...a].map(([m, tps]) => [m, tps.map((tp) => `${tp.topic}-${tp.partition}`).join(',')]));
const fresh = (ppt: Record<string, number>, ids: string[], topics: string) =>
  group(ppt, ...ids.map((id) => `${id};-;-1;${topics};`));

describe('every assignor', () => {
  it.each(Object.keys(ASSIGNORS))('%s: 6 partitions and 7 members leave exactly one member with nothing', (name) => {
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
    const a = ASSIGNORS[name as keyof typeof ASSIGNORS].assign(fresh({ orders: 6 }, ids, 'orders'));
    expect([...a.keys()]).toEqual(ids);
    expect([...a.values()].filter((l) => l.length === 0)).toHaveLength(1);
    const all = [...a.values()].flat().map((tp) => tp.partition).sort();
    expect(all).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it.each(Object.keys(ASSIGNORS))('%s: skips topics without metadata and gives unsubscribed topics to no one', (name) => {
    const a = ASSIGNORS[name as keyof typeof ASSIGNORS].assign(
      group({ t: 2, other: 5, empty: 0 }, 'a;-;-1;t,missing,empty;', 'b;-;-1;t;'),
    );
    expect(show(a)).toEqual({ a: 't-0', b: 't-1' });
  });
});

describe('range', () => {
  // RangeAssignor javadoc: C0, C1; t0 and t1 with 3 partitions each.
  it('gives the first members the extra partition of every topic', () => {
    const a = assignorFor('range').assign(fresh({ t0: 3, t1: 3 }, ['C0', 'C1'], 't0,t1'));
    expect(show(a)).toEqual({ C0: 't0-0,t0-1,t1-0,t1-1', C1: 't0-2,t1-2' });
  });

  // Verified against Kafka's RangeAssignor in a throwaway harness: static members (by instance id) come first.
  it('orders static members by group.instance.id before dynamic members by member id', () => {
    const a = assignorFor('range').assign(
      group({ t: 5, u: 3 }, 'a;i2;-1;t,u;', 'b;i1;-1;t,u;', 'c;-;-1;t,u;', 'd;-;-1;t;'),
    );
    expect(show(a)).toEqual({ a: 't-2,u-1', b: 't-0,t-1,u-0', c: 't-3,u-2', d: 't-4' });
  });
});

describe('roundrobin', () => {
  // RoundRobinAssignor javadoc examples.
  it('deals partitions in (topic, partition) order over the sorted members', () => {
    const a = assignorFor('roundrobin').assign(fresh({ t0: 3, t1: 3 }, ['C0', 'C1'], 't0,t1'));
    expect(show(a)).toEqual({ C0: 't0-0,t0-2,t1-1', C1: 't0-1,t1-0,t1-2' });
  });

  it('skips members not subscribed to a partition\'s topic', () => {
    const a = assignorFor('roundrobin').assign(
      group({ t0: 1, t1: 2, t2: 3 }, 'C0;-;-1;t0;', 'C1;-;-1;t0,t1;', 'C2;-;-1;t0,t1,t2;'),
    );
    expect(show(a)).toEqual({ C0: 't0-0', C1: 't1-0', C2: 't1-1,t2-0,t2-1,t2-2' });
  });

  // Verified against Kafka's RoundRobinAssignor in a throwaway harness.
  it('uses the static-member order too', () => {
    const a = assignorFor('roundrobin').assign(
      group({ t: 5, u: 3 }, 'a;i2;-1;t,u;', 'b;i1;-1;t,u;', 'c;-;-1;t,u;', 'd;-;-1;t;'),
    );
    expect(show(a)).toEqual({ a: 't-1,u-0', b: 't-0,t-4,u-2', c: 't-2,u-1', d: 't-3' });
  });
});

describe('sticky', () => {
  // StickyAssignor javadoc, example 1: the fresh assignment.
  it('starts balanced', () => {
    const a = assignorFor('sticky').assign(fresh({ t0: 2, t1: 2, t2: 2, t3: 2 }, ['C0', 'C1', 'C2'], 't0,t1,t2,t3'));
    expect(show(a)).toEqual({ C0: 't0-0,t1-1,t3-0', C1: 't0-1,t2-0,t3-1', C2: 't1-0,t2-1' });
  });

  // Example 1 after C1 leaves. Every previous assignment is kept; the exact spread of C1's partitions is what
  // Kafka's current code produces (checked in a throwaway harness; the javadoc's list predates that code).
  it('keeps every remaining member\'s partitions when a member leaves', () => {
    const a = assignorFor('sticky').assign(
      group({ t0: 2, t1: 2, t2: 2, t3: 2 }, 'C0;-;1;t0,t1,t2,t3;t0-0,t1-1,t3-0', 'C2;-;1;t0,t1,t2,t3;t1-0,t2-1'),
    );
    expect(show(a)).toEqual({ C0: 't0-0,t0-1,t1-1,t3-0', C2: 't1-0,t2-0,t2-1,t3-1' });
  });

  // StickyAssignor javadoc, example 2 (subscriptions differ: the general algorithm).
  it('balances unequal subscriptions better than roundrobin, and keeps 5 of 6 when C0 leaves', () => {
    const start = assignorFor('sticky').assign(
      group({ t0: 1, t1: 2, t2: 3 }, 'C0;-;-1;t0;', 'C1;-;-1;t0,t1;', 'C2;-;-1;t0,t1,t2;'),
    );
    expect(show(start)).toEqual({ C0: 't0-0', C1: 't1-0,t1-1', C2: 't2-0,t2-1,t2-2' });
    const after = assignorFor('sticky').assign(
      group({ t0: 1, t1: 2, t2: 3 }, 'C1;-;1;t0,t1;t1-0,t1-1', 'C2;-;1;t0,t1,t2;t2-0,t2-1,t2-2'),
    );
    expect(show(after)).toEqual({ C1: 't0-0,t1-0,t1-1', C2: 't2-0,t2-1,t2-2' });
  });

  // Verified against Kafka's AbstractStickyAssignor (general path) in a throwaway harness.
  it('drops partitions of topics a member no longer subscribes to', () => {
    const a = assignorFor('sticky').assign(
      group({ t: 4, u: 3, v: 2 }, 'a;-;3;t;t-0,t-1,u-0', 'b;-;3;t,u;t-2,u-1,u-2', 'c;-;3;t,u,v;t-3,v-0,v-1', 'd;-;-1;u,v;'),
    );
    expect(show(a)).toEqual({ a: 't-0,t-1', b: 't-2,u-1,u-2', c: 't-3,v-1', d: 'u-0,v-0' });
  });

  // Verified in the same harness: a and b (generation 5) both claim t-2, so neither keeps it; b's claim on
  // t-4 (generation 5) beats c's (generation 4).
  it('resolves conflicting claims by generation', () => {
    const a = assignorFor('sticky').assign(
      group({ t: 6 }, 'a;-;5;t;t-0,t-1,t-2', 'b;-;5;t;t-2,t-3,t-4', 'c;-;4;t;t-5,t-4', 'd;-;-1;t;'),
    );
    expect(show(a)).toEqual({ a: 't-0,t-1', b: 't-3,t-4', c: 't-5', d: 't-2' });
  });
});

describe('sticky: Kafka quirks kept or avoided', () => {
  // Kafka's own output (throwaway harness): the general algorithm moves t-1 back to a0, its owner in an older
  // generation, although a0 no longer subscribes to t. Kafka's consumer then rejoins; we reproduce the result.
  it('can, like Kafka, move a partition back to an old owner that no longer subscribes to its topic', () => {
    const a = assignorFor('sticky').assign(
      group(
        { t: 2, u: 2, v: 0, w: 8 },
        'a;-;-1;t,u,v,w;u-1',
        'a0;-;2;u;t-1,w-2,w-6',
        'a-;-;-1;t,u,v,w;u-1',
        'a0-;-;3;u,v,w;t-1,u-1,w-4',
      ),
    );
    expect(show(a)).toEqual({ a: 't-0,w-0,w-2,w-6', 'a-': 'w-1,w-3,w-7', a0: 't-1,u-0', 'a0-': 'u-1,w-4,w-5' });
  });

  // Here Kafka throws a NullPointerException (the old owner f of v-1 takes no part in balancing, and
  // performReassignments looks up its size). We skip the move back instead; the result, traced by hand:
  // h keeps the u partitions nobody else can take, and v-1 moves to k, which has fewer partitions.
  it('does not fail where Kafka throws, when the old owner takes no part in balancing', () => {
    const g = group({ t: 0, u: 2, v: 2 }, 'h;-;3;t,u,v;v-1', 'f;i14f;2;t;v-1', 'k;-;-1;t,v;');
    expect(show(assignorFor('sticky').assign(g))).toEqual({ f: '', h: 'u-0,u-1', k: 'v-0,v-1' });
    expect(show(assignorFor('cooperative-sticky').assign(g))).toEqual({ f: '', h: 'u-0,u-1', k: 'v-0' });
  });
});

describe('cooperative-sticky', () => {
  it('first only revokes what moves, then assigns it in the follow-up rebalance', () => {
    // Round 1: c joins a and b, which own 3 partitions each. The target is 2/2/2, but t-2 and t-5 are still
    // owned, so this round gives them to no one (verified against Kafka's code in a throwaway harness).
    const r1 = assignCooperativeStickyWithTarget(group({ t: 6 }, 'a;-;2;t;t-0,t-1,t-2', 'b;-;2;t;t-3,t-4,t-5', 'c;-;-1;t;'));
    expect(show(r1.assignment)).toEqual({ a: 't-0,t-1', b: 't-3,t-4', c: '' });
    expect(show(r1.target)).toEqual({ a: 't-0,t-1', b: 't-3,t-4', c: 't-2,t-5' });
    expect(r1.partitionsTransferringOwnership).toEqual([
      { topic: 't', partition: 2, newOwner: 'c' },
      { topic: 't', partition: 5, newOwner: 'c' },
    ]);
    // Round 2: a and b revoked t-2 and t-5 and rejoined owning only what they were given.
    const r2 = assignCooperativeStickyWithTarget(group({ t: 6 }, 'a;-;3;t;t-0,t-1', 'b;-;3;t;t-3,t-4', 'c;-;3;t;'));
    expect(show(r2.assignment)).toEqual({ a: 't-0,t-1', b: 't-3,t-4', c: 't-2,t-5' });
    expect(r2.partitionsTransferringOwnership).toEqual([]);
  });

  it('assigns at once what nobody owns any more (a member left)', () => {
    const r = assignCooperativeStickyWithTarget(group({ t: 6 }, 'a;-;2;t;t-0,t-1', 'c;-;2;t;t-4,t-5'));
    expect(show(r.assignment)).toEqual({ a: 't-0,t-1,t-2', c: 't-3,t-4,t-5' });
  });

  // Verified against Kafka's code in a throwaway harness: partitions still owned elsewhere wait a round
  // in the general algorithm too, and a doubly claimed partition waits as well.
  it('holds back moving partitions in the general and the conflict cases', () => {
    const general = assignorFor('cooperative-sticky').assign(
      group({ t: 4, u: 3, v: 2 }, 'a;-;3;t;t-0,t-1,u-0', 'b;-;3;t,u;t-2,u-1,u-2', 'c;-;3;t,u,v;t-3,v-0,v-1', 'd;-;-1;u,v;'),
    );
    expect(show(general)).toEqual({ a: 't-0,t-1', b: 't-2,u-1,u-2', c: 't-3,v-1', d: '' });
    const conflict = assignorFor('cooperative-sticky').assign(
      group({ t: 6 }, 'a;-;5;t;t-0,t-1,t-2', 'b;-;5;t;t-2,t-3,t-4', 'c;-;4;t;t-5,t-4', 'd;-;-1;t;'),
    );
    expect(show(conflict)).toEqual({ a: 't-0,t-1', b: 't-3,t-4', c: 't-5', d: '' });
  });
});

describe('partition.assignment.strategy', () => {
  it('defaults to [range, cooperative-sticky] and knows Kafka\'s names and protocols', () => {
    expect(DEFAULT_PARTITION_ASSIGNMENT_STRATEGY).toEqual(['range', 'cooperative-sticky']);
    expect(Object.values(ASSIGNORS).map((a) => [a.name, a.supportedProtocols])).toEqual([
      ['range', ['EAGER']],
      ['roundrobin', ['EAGER']],
      ['sticky', ['EAGER']],
      ['cooperative-sticky', ['COOPERATIVE', 'EAGER']],
    ]);
    expect(() => assignorFor('uniform')).toThrow(/unknown partition.assignment.strategy/);
  });
});
