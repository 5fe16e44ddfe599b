import { describe, expect, it } from 'vitest';
import { assignmentOf, type Assignment } from '../../../sim/kafka/coordinator/consumer/assignment';
import { groupSpecOf, type GroupAssignment, type MemberSubscriptionAndAssignment } from '../../../sim/kafka/coordinator/consumer/assignor/groupSpec';
import { RANGE_ASSIGNOR } from '../../../sim/kafka/coordinator/consumer/assignor/rangeAssignor';
import { UNIFORM_ASSIGNOR } from '../../../sim/kafka/coordinator/consumer/assignor/uniformAssignor';

// Kafka's own assignor tests (group-coordinator/src/test/.../assignor/*Test.java) build members in a TreeMap,
// which is the member order here too; they iterate topics in the HashSet order of random topic ids, so where a
// case depends on topic order the topics here are named to sort the way the Kafka case ran.

type Member = { topics: string[]; has?: Record<string, number[]>; instance?: string };
const spec = (members: Record<string, Member>) =>
  groupSpecOf(
    Object.entries(members).map(([id, m]): [string, MemberSubscriptionAndAssignment] => [
      id,
      { rackId: null, instanceId: m.instance ?? null, subscribedTopics: new Set(m.topics), assignment: assignmentOf(m.has ?? {}) },
    ]),
  );
const describer = (counts: Record<string, number>) => ({ numPartitions: (t: string) => counts[t] ?? -1 });
const plain = (a: GroupAssignment): Record<string, Record<string, readonly number[]>> =>
  Object.fromEntries([...a].map(([id, x]: [string, Assignment]) => [id, Object.fromEntries(x)]));

describe('uniform assignor, homogeneous (UniformHomogeneousAssignmentBuilder)', () => {
  it('first assignment of 5 partitions over two members: the first member takes the extra partition', () => {
    // testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks (Kafka iterated topic3 before topic1).
    const a = UNIFORM_ASSIGNOR.assign(spec({ A: { topics: ['t1', 't3'] }, B: { topics: ['t1', 't3'] } }), describer({ t3: 3, t1: 2 }));
    expect(plain(a)).toEqual({ A: { t1: [0, 1], t3: [0] }, B: { t3: [1, 2] } });
  });

  it('more members than partitions: the last member gets nothing', () => {
    const a = UNIFORM_ASSIGNOR.assign(spec({ A: { topics: ['t'] }, B: { topics: ['t'] }, C: { topics: ['t'] } }), describer({ t: 2 }));
    expect(plain(a)).toEqual({ A: { t: [0] }, B: { t: [1] }, C: {} });
  });

  it('an unbalanced previous assignment: the member over quota gives up its last partition', () => {
    // testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment
    const a = UNIFORM_ASSIGNOR.assign(
      spec({ A: { topics: ['t1', 't2'], has: { t1: [0, 1], t2: [0, 1] } }, B: { topics: ['t1', 't2'], has: { t1: [2], t2: [2] } } }),
      describer({ t1: 3, t2: 3 }),
    );
    expect(plain(a)).toEqual({ A: { t1: [0, 1], t2: [0] }, B: { t1: [2], t2: [1, 2] } });
  });

  it('partitions added: members keep theirs and share the new ones', () => {
    // testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics (Kafka iterated topic2 before topic1).
    const a = UNIFORM_ASSIGNOR.assign(
      spec({ A: { topics: ['t1', 't2'], has: { t2: [0, 2], t1: [0] } }, B: { topics: ['t1', 't2'], has: { t2: [1], t1: [1, 2] } } }),
      describer({ t2: 6, t1: 5 }),
    );
    expect(plain(a)).toEqual({ A: { t1: [0, 3, 4], t2: [0, 2, 3] }, B: { t1: [1, 2], t2: [1, 4, 5] } });
  });

  it('a member joins: only the partitions above the others\' quota move, to the new member', () => {
    // testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics
    const a = UNIFORM_ASSIGNOR.assign(
      spec({
        A: { topics: ['t1', 't2'], has: { t1: [0, 2], t2: [0] } },
        B: { topics: ['t1', 't2'], has: { t1: [1], t2: [1, 2] } },
        C: { topics: ['t1', 't2'] },
      }),
      describer({ t1: 3, t2: 3 }),
    );
    expect(plain(a)).toEqual({ A: { t1: [0, 2] }, B: { t1: [1], t2: [1] }, C: { t2: [0, 2] } });
  });

  it('a member left: its partitions go to the members that remain, nothing else moves', () => {
    // testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics
    const a = UNIFORM_ASSIGNOR.assign(
      spec({ A: { topics: ['t1', 't2'], has: { t1: [0], t2: [0] } }, B: { topics: ['t1', 't2'], has: { t1: [1], t2: [1] } } }),
      describer({ t1: 3, t2: 3 }),
    );
    expect(plain(a)).toEqual({ A: { t1: [0, 2], t2: [0] }, B: { t1: [1], t2: [1, 2] } });
  });

  it('a topic unsubscribed: its partitions are dropped', () => {
    const a = UNIFORM_ASSIGNOR.assign(
      spec({ A: { topics: ['t2'], has: { t1: [0], t2: [0] } }, B: { topics: ['t2'], has: { t1: [1], t2: [1] } } }),
      describer({ t1: 2, t2: 2 }),
    );
    expect(plain(a)).toEqual({ A: { t2: [0] }, B: { t2: [1] } });
  });

  it('no subscription: an empty assignment; an unknown topic: an error', () => {
    expect(plain(UNIFORM_ASSIGNOR.assign(spec({ A: { topics: [] } }), describer({})))).toEqual({});
    expect(() => UNIFORM_ASSIGNOR.assign(spec({ A: { topics: ['nope'] } }), describer({}))).toThrow(/doesn't exist/);
  });
});

describe('uniform assignor, heterogeneous (UniformHeterogeneousAssignmentBuilder)', () => {
  it('first assignment: each topic goes only to its subscribers, balanced overall', () => {
    const a = UNIFORM_ASSIGNOR.assign(spec({ A: { topics: ['t1', 't2'] }, B: { topics: ['t2'] } }), describer({ t1: 3, t2: 3 }));
    const out = plain(a);
    expect(out.A!.t1).toEqual([0, 1, 2]);
    expect([...(out.A!.t2 ?? []), ...(out.B!.t2 ?? [])].sort()).toEqual([0, 1, 2]);
    // A holds t1 alone, so B takes all of t2: 3 and 3.
    expect(out.B).toEqual({ t2: [0, 1, 2] });
  });

  it('an unbalanced previous assignment is evened out by moving the most loaded member\'s last partitions', () => {
    const a = UNIFORM_ASSIGNOR.assign(
      spec({ A: { topics: ['t1', 't2'], has: { t1: [0, 1, 2], t2: [0, 1, 2] } }, B: { topics: ['t2'] } }),
      describer({ t1: 3, t2: 3 }),
    );
    expect(plain(a)).toEqual({ A: { t1: [0, 1, 2] }, B: { t2: [0, 1, 2] } });
  });

  it('a member without subscriptions gets nothing', () => {
    const a = UNIFORM_ASSIGNOR.assign(spec({ A: { topics: [] }, B: { topics: ['t'] } }), describer({ t: 2 }));
    expect(plain(a)).toEqual({ A: {}, B: { t: [0, 1] } });
  });
});

describe('range assignor on the server (RangeAssignor)', () => {
  it('two members, two topics: consecutive ranges per topic, the first member takes the extra one', () => {
    // testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions
    const a = RANGE_ASSIGNOR.assign(spec({ A: { topics: ['t1', 't3'] }, B: { topics: ['t1', 't3'] } }), describer({ t1: 3, t3: 2 }));
    expect(plain(a)).toEqual({ A: { t1: [0, 1], t3: [0] }, B: { t1: [2], t3: [1] } });
  });

  it('three members with different subscriptions', () => {
    // testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions
    const a = RANGE_ASSIGNOR.assign(
      spec({ A: { topics: ['t1', 't2'] }, B: { topics: ['t3'] }, C: { topics: ['t2', 't3'] } }),
      describer({ t1: 3, t2: 3, t3: 2 }),
    );
    expect(plain(a)).toEqual({ A: { t1: [0, 1, 2], t2: [0, 1] }, B: { t3: [0] }, C: { t2: [2], t3: [1] } });
  });

  it('static members come first, by instance id, and keep their ranges under a new member id', () => {
    // testStaticMembership / testMixedStaticMembership
    const before = RANGE_ASSIGNOR.assign(
      spec({ A: { topics: ['t'], instance: 'instanceA' }, B: { topics: ['t'] }, C: { topics: ['t'], instance: 'instanceC' } }),
      describer({ t: 5 }),
    );
    expect(plain(before)).toEqual({ A: { t: [0, 1] }, C: { t: [2, 3] }, B: { t: [4] } });
    const after = RANGE_ASSIGNOR.assign(
      spec({ A1: { topics: ['t'], instance: 'instanceA' }, B: { topics: ['t'] }, C: { topics: ['t'], instance: 'instanceC' } }),
      describer({ t: 5 }),
    );
    expect(after.get('A1')).toEqual(before.get('A'));
    expect(after.get('B')).toEqual(before.get('B'));
  });

  it('more members than partitions: the last members get nothing', () => {
    const a = RANGE_ASSIGNOR.assign(spec({ A: { topics: ['t'] }, B: { topics: ['t'] }, C: { topics: ['t'] } }), describer({ t: 2 }));
    expect(plain(a)).toEqual({ A: { t: [0] }, B: { t: [1] }, C: {} });
  });

  it('a subscribed topic missing from metadata is an error', () => {
    expect(() => RANGE_ASSIGNOR.assign(spec({ A: { topics: ['nope'] } }), describer({}))).toThrow(/non-existent topic/);
  });
});
