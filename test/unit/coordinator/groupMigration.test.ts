import { describe, expect, it } from 'vitest';
import type { ConsumerGroupHeartbeatResponse, TopicPartition } from '../../../sim/kafka/protocol';
import { CoordinatorHarness, protocol, type Pending } from './coordinatorHarness';

const G = 'orders-app';
const tp = (partition: number): TopicPartition => ({ topic: 't', partition });

function setup(overrides: Record<string, unknown> = {}): CoordinatorHarness {
  const h = new CoordinatorHarness({ 'group.initial.rebalance.delay.ms': 0, ...overrides });
  h.topics.set('t', 4);
  h.lead(G);
  return h;
}

function answered<R>(p: Pending<R>): R {
  if (!p.response) throw new Error('no response yet');
  return p.response;
}

const parts = (r: ConsumerGroupHeartbeatResponse | undefined): number[] | null => (r?.assignment ? r.assignment.topicPartitions.flatMap((x) => [...x.partitions]) : null);

/** A classic group of two cooperative members, c1 with t-0,1 and c2 with t-2,3, Stable at generation 1. */
function classicGroup(h: CoordinatorHarness): { c1: string; c2: string } {
  const coop = (owned: TopicPartition[] = []) => [protocol('cooperative-sticky', ['t'], owned)];
  const a = h.joinNew(G, 'c1', { protocols: coop() });
  const b = h.joinNew(G, 'c2', { protocols: coop() });
  h.runFor(10);
  const c1 = a.memberId;
  const c2 = b.memberId;
  const leader = answered(a.join).leader === c1 ? c1 : c2;
  expect(answered(a.join).generationId).toBe(1);
  h.sync(G, leader, 1, [
    { memberId: c1, partitions: [tp(0), tp(1)] },
    { memberId: c2, partitions: [tp(2), tp(3)] },
  ]);
  h.sync(G, leader === c1 ? c2 : c1, 1);
  h.runFor(10);
  expect(h.stateOf(G)).toBe('Stable');
  return { c1, c2 };
}

const coop = (owned: number[]) => ({ protocols: [protocol('cooperative-sticky', ['t'], owned.map(tp))] });

describe('online migration between the classic and the consumer protocol', () => {
  it('upgrade: the first ConsumerGroupHeartbeat turns a live classic group into a consumer group that keeps every member and partition', () => {
    const h = setup();
    const { c1, c2 } = classicGroup(h);
    h.commit(G, c1, 1, [{ topic: 't', partition: 0, offset: 7 }]);
    h.runFor(10);
    const m3 = h.consumerHeartbeat(G, 'm3', 0);
    h.runFor(10);
    expect(h.events('group.convert')).toMatchObject([{ from: 'classic', to: 'consumer', members: 2 }]);
    // The generation became the group epoch; the newcomer bumped it and waits for what the others still hold.
    expect(answered(m3)).toMatchObject({ error: 'NONE', memberEpoch: 2 });
    const d = h.coordinator.describeConsumerGroup(G)!;
    expect(d.groupEpoch).toBe(2);
    expect(d.members.find((m) => m.memberId === c1)).toMatchObject({ protocol: 'classic', memberEpoch: 1, assigned: ['t-0', 't-1'] });
    expect(d.members.find((m) => m.memberId === 'm3')).toMatchObject({ protocol: 'consumer', state: 'UNRELEASED_PARTITIONS' });
    expect(h.fetchOffsets(G, [tp(0)]).response!.partitions[0]!.offset).toBe(7);
    // The classic members hear of the new epoch in their heartbeat, and their generation is their member epoch.
    expect(answered(h.heartbeat(G, c1, 1)).error).toBe('REBALANCE_IN_PROGRESS');
    expect(answered(h.heartbeat(G, c1, 5)).error).toBe('ILLEGAL_GENERATION');
    expect(answered(h.commit(G, c1, 5, [{ topic: 't', partition: 0, offset: 8 }])).error).toBe('ILLEGAL_GENERATION');
    // Each rejoins with what it owns; the uniform assignor gave one of their four partitions to m3, and whoever held
    // it must revoke it first: its JoinGroup leaves it at generation 1 (UNREVOKED_PARTITIONS), its SyncGroup hands
    // it what it keeps.
    const j1 = h.join(G, c1, coop([0, 1]));
    const j2 = h.join(G, c2, coop([2, 3]));
    h.runFor(10);
    expect(answered(j1)).toMatchObject({ error: 'NONE', memberId: c1, leader: '', members: [] });
    const revoker = answered(j1).generationId === 1 ? c1 : c2;
    const owned = revoker === c1 ? [0, 1] : [2, 3];
    expect([answered(j1).generationId, answered(j2).generationId].sort()).toEqual([1, 2]);
    const s1 = h.sync(G, revoker, 1);
    h.runFor(10);
    const kept = answered(s1).partitions.map((x) => x.partition);
    expect(kept).toHaveLength(1);
    expect(h.coordinator.describeConsumerGroup(G)!.members.find((m) => m.memberId === revoker)).toMatchObject({ state: 'UNREVOKED_PARTITIONS', revoking: [`t-${owned.find((p) => !kept.includes(p))}`] });
    // Still revoking: rejoin. Having revoked, it reaches epoch 2 and m3 gets the partition.
    expect(answered(h.heartbeat(G, revoker, 1)).error).toBe('REBALANCE_IN_PROGRESS');
    const again = h.join(G, revoker, coop(kept));
    h.runFor(10);
    expect(answered(again).generationId).toBe(2);
    const m3b = h.consumerHeartbeat(G, 'm3', 2, { owned: {} });
    h.runFor(10);
    expect(parts(answered(m3b))).toEqual(owned.filter((p) => !kept.includes(p)));
    expect(answered(h.heartbeat(G, revoker, 2)).error).toBe('NONE');
    expect(h.coordinator.describeConsumerGroup(G)!.state).toBe('Stable');
    // No partition is ever held by two members at once.
    expect(h.coordinator.describeConsumerGroup(G)!.members.flatMap((m) => m.assigned).sort()).toEqual(['t-0', 't-1', 't-2', 't-3']);
  });

  it('the upgrade is refused by group.consumer.migration.policy=downgrade or disabled: GROUP_ID_NOT_FOUND', () => {
    for (const policy of ['downgrade', 'disabled']) {
      const h = setup({ 'group.consumer.migration.policy': policy });
      classicGroup(h);
      const m3 = h.consumerHeartbeat(G, 'm3', 0);
      h.runFor(10);
      expect(answered(m3).error).toBe('GROUP_ID_NOT_FOUND');
      expect(answered(m3).errorMessage).toMatch(/online upgrade is disabled/);
      expect(h.stateOf(G)).toBe('Stable');
    }
  });

  it('downgrade: when the last consumer-protocol member leaves, the group turns classic again and rebalances', () => {
    const h = setup();
    const { c1, c2 } = classicGroup(h);
    h.consumerHeartbeat(G, 'm3', 0);
    h.runFor(10);
    const leave = h.consumerHeartbeat(G, 'm3', -1, { owned: null, topics: null });
    h.runFor(10);
    expect(answered(leave).error).toBe('NONE');
    expect(h.events('group.convert').at(-1)).toMatchObject({ from: 'consumer', to: 'classic', members: 2 });
    expect(h.coordinator.describeConsumerGroup(G)).toBeNull();
    // The classic group starts at the consumer group's epoch (before the leave) with each member's target, and
    // rebalances at once; a member still at an older epoch hears ILLEGAL_GENERATION and rejoins.
    const d = h.coordinator.describeGroup(G)!;
    expect(d).toMatchObject({ state: 'PreparingRebalance', generationId: 2 });
    expect(d.members.map((m) => m.memberId).sort()).toEqual([c1, c2].sort());
    expect(answered(h.heartbeat(G, c1, 2)).error).toBe('REBALANCE_IN_PROGRESS');
    expect(answered(h.heartbeat(G, c2, 1)).error).toBe('ILLEGAL_GENERATION');
    h.join(G, c1, coop([0, 1]));
    h.join(G, c2, coop([2, 3]));
    h.runFor(10);
    expect(h.coordinator.describeGroup(G)).toMatchObject({ state: 'CompletingRebalance', generationId: 3 });
  });

  it('downgrade when the consumer member\'s session expires; and, without a rebalance, when a classic static member takes its place', () => {
    const h = setup();
    const { c1 } = classicGroup(h);
    h.consumerHeartbeat(G, 'm3', 0);
    h.runFor(10);
    // c2 falls silent (10 s session); c1 rejoins and heartbeats; m3 falls silent too (45 s session).
    // c1 behaves as a cooperative classic consumer: told to rejoin, it rejoins with what it owns and syncs.
    let generation = 1;
    let owned = [0, 1];
    for (let i = 0; i < 16; i++) {
      h.runFor(3_000);
      const hb = h.heartbeat(G, c1, generation);
      if (answered(hb).error !== 'REBALANCE_IN_PROGRESS') continue;
      const j = h.join(G, c1, coop(owned));
      h.runFor(10);
      generation = answered(j).generationId;
      const s = h.sync(G, c1, generation);
      h.runFor(10);
      owned = answered(s).partitions.map((x) => x.partition);
    }
    expect(h.events('group.member.expire').map((e) => e.reason)).toEqual(['session timeout (10000 ms)', 'session timeout (45000 ms)']);
    expect(h.events('group.convert').at(-1)).toMatchObject({ from: 'consumer', to: 'classic', members: 1 });
    // The classic group rebalanced at once, c1 rejoined it alone.
    const convertedAt = h.events('group.convert').at(-1)!.t;
    expect(h.events('group.rebalance').filter((e) => e.t >= convertedAt)).toMatchObject([{ members: [c1], generation: answered(h.heartbeat(G, c1, generation)).error === 'NONE' ? generation : -1 }]);

    const h2 = setup();
    classicGroup(h2);
    h2.consumerHeartbeat(G, 'm3', 0, { instance: 'i3' });
    h2.runFor(10);
    const replacing = h2.join(G, '', { instance: 'i3', ...coop([]) });
    h2.runFor(10);
    expect(answered(replacing).error).toBe('NONE');
    expect(h2.events('group.convert').at(-1)).toMatchObject({ from: 'consumer', to: 'classic', members: 3 });
    expect(h2.events('group.member.join').at(-1)).toMatchObject({ groupInstanceId: 'i3' });
    expect(h2.coordinator.describeGroup(G)!).toMatchObject({ state: 'Stable', generationId: 2 });
  });

  it('with policy upgrade only, the group stays a consumer group when the consumer member leaves', () => {
    const h = setup({ 'group.consumer.migration.policy': 'upgrade' });
    classicGroup(h);
    h.consumerHeartbeat(G, 'm3', 0);
    h.runFor(10);
    h.consumerHeartbeat(G, 'm3', -1, { owned: null, topics: null });
    h.runFor(10);
    expect(h.events('group.convert')).toHaveLength(1);
    expect(h.coordinator.describeConsumerGroup(G)!.members).toHaveLength(2);
  });

  it('a classic consumer joins a consumer group: MEMBER_ID_REQUIRED, then its member epoch as generation, its partitions in SyncGroup', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0);
    h.runFor(10);
    const { memberId, join } = h.joinNew(G, 'c2', coop([]));
    h.runFor(10);
    expect(answered(join)).toMatchObject({ error: 'NONE', generationId: 2, protocolName: 'cooperative-sticky', leader: '' });
    // Nothing yet: m1 has not released its partitions.
    expect(answered(h.sync(G, memberId, 2)).partitions).toEqual([]);
    h.runFor(10);
    const m1 = h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(10);
    const kept = parts(answered(m1))!;
    h.consumerHeartbeat(G, 'm1', 1, { owned: { t: kept } });
    h.runFor(10);
    // Its partitions are free now: the heartbeat asks it to rejoin and collect them.
    expect(answered(h.heartbeat(G, memberId, 2)).error).toBe('REBALANCE_IN_PROGRESS');
    h.join(G, memberId, coop([]));
    h.runFor(10);
    const s = h.sync(G, memberId, 2);
    h.runFor(10);
    expect(answered(s).partitions.map((x) => x.partition).sort()).toEqual([0, 1, 2, 3].filter((p) => !kept.includes(p)));
    // An unknown protocol is refused while classic members are in.
    const other = h.join(G, '', { protocols: [protocol('range', ['t'])] });
    expect(answered(other).error).toBe('INCONSISTENT_GROUP_PROTOCOL');
  });

  it('a classic member that does not rejoin within its rebalance timeout is fenced; one that does not heartbeat, by its session timeout', () => {
    const h = setup();
    const { c1, c2 } = classicGroup(h);
    h.consumerHeartbeat(G, 'm3', 0, { rebalanceTimeoutMs: 300_000 });
    h.runFor(10);
    // c1 keeps heartbeating but never rejoins (rebalance timeout 30 s); c2 falls silent (session timeout 10 s).
    expect(answered(h.heartbeat(G, c1, 1)).error).toBe('REBALANCE_IN_PROGRESS');
    for (let i = 0; i < 11; i++) {
      h.runFor(3_000);
      h.heartbeat(G, c1, 1);
      h.consumerHeartbeat(G, 'm3', 2, { owned: {} });
    }
    const expired = h.events('group.member.expire').map((e) => [e.memberId, e.reason]);
    expect(expired).toEqual([
      [c2, 'session timeout (10000 ms)'],
      [c1, expect.stringMatching(/rejoin within the rebalance timeout \(30000 ms\)/)],
    ]);
  });

  it('a new coordinator rebuilds the migrated group, classic members included, from __consumer_offsets', () => {
    const h = setup();
    classicGroup(h);
    h.consumerHeartbeat(G, 'm3', 0);
    h.runFor(10);
    const before = h.coordinator.describeConsumerGroup(G)!;
    const other = h.makeCoordinator(2);
    h.coordinator.onResign(h.partitionOf(G));
    h.lead(G, 2, other);
    expect(other.describeConsumerGroup(G)).toEqual(before);
    expect(other.describeGroup(G)!.state).toBe('Dead');
  });
});
