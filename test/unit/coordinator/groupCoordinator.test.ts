import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import type { JoinGroupResponse } from '../../../sim/kafka/protocol';
import { CoordinatorHarness, MemoryStorage, protocol } from './coordinatorHarness';

const G = 'my-group';

/** Two dynamic members through the initial rebalance; returns their ids and the generation. */
function twoMemberGroup(h: CoordinatorHarness, session = 10_000): { leader: string; follower: string; generation: number } {
  h.lead(G);
  const a = h.joinNew(G, 'consumer-1', { session });
  const b = h.joinNew(G, 'consumer-2', { session });
  h.runFor(10_000);
  const ra = a.join.response!;
  const rb = b.join.response!;
  expect(ra.error).toBe('NONE');
  expect(rb.error).toBe('NONE');
  return { leader: ra.leader, follower: ra.leader === a.memberId ? b.memberId : a.memberId, generation: ra.generationId };
}

function stable(h: CoordinatorHarness, session = 10_000): { leader: string; follower: string; generation: number } {
  const g = twoMemberGroup(h, session);
  const fs = h.sync(G, g.follower, g.generation);
  const ls = h.sync(G, g.leader, g.generation, [
    { memberId: g.leader, partitions: [{ topic: 't', partition: 0 }] },
    { memberId: g.follower, partitions: [{ topic: 't', partition: 1 }] },
  ]);
  h.runFor(10);
  expect(ls.response?.error).toBe('NONE');
  expect(fs.response?.error).toBe('NONE');
  expect(h.stateOf(G)).toBe('Stable');
  return g;
}

describe('GroupCoordinator: routing and loading', () => {
  it('answers NOT_COORDINATOR for a group whose partition it does not lead, COORDINATOR_LOAD_IN_PROGRESS while loading', () => {
    const h = new CoordinatorHarness();
    expect(h.join(G, '').response?.error).toBe('NOT_COORDINATOR');
    h.coordinator.onBecomeLeader(h.partitionOf(G), 1);
    expect(h.join(G, '').response?.error).toBe('COORDINATOR_LOAD_IN_PROGRESS');
    expect(h.fetchOffsets(G, null).response?.error).toBe('COORDINATOR_LOAD_IN_PROGRESS');
    h.runFor(50);
    expect(h.join(G, '').response?.error).toBe('MEMBER_ID_REQUIRED');
    // "my-group" hashes to partition 12 of 50 (reference 8.3).
    expect(h.partitionOf(G)).toBe(12);
  });

  it('rejects a session timeout outside group.min/max.session.timeout.ms with INVALID_SESSION_TIMEOUT', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    expect(h.join(G, '', { session: 5999 }).response?.error).toBe('INVALID_SESSION_TIMEOUT');
    expect(h.join(G, '', { session: 1_800_001 }).response?.error).toBe('INVALID_SESSION_TIMEOUT');
    expect(h.join(G, '', { session: 6000 }).response?.error).toBe('MEMBER_ID_REQUIRED');
  });

  it('a new coordinator reloads offsets and members from __consumer_offsets; the old one drops its groups', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    const c = h.commit(G, g.leader, g.generation, [{ topic: 't', partition: 0, offset: 42 }]);
    h.runFor(10);
    expect(c.response?.error).toBe('NONE');
    // A parked join on the old coordinator is released with NOT_COORDINATOR when it resigns.
    const parked = h.join(G, '', { from: 'consumer-3' });
    expect(parked.response?.error).toBe('MEMBER_ID_REQUIRED');
    const rejoin = h.join(G, parked.response!.memberId, { from: 'consumer-3' });
    expect(rejoin.response).toBeUndefined();
    h.coordinator.onResign(h.partitionOf(G));
    expect(rejoin.response?.error).toBe('NOT_COORDINATOR');
    expect(h.heartbeat(G, g.leader, g.generation).response?.error).toBe('NOT_COORDINATOR');

    const other = h.makeCoordinator(1);
    h.lead(G, 2, other);
    const d = other.describeGroup(G)!;
    // Loaded as Stable with the stored generation and assignment (the group record of the leader's sync).
    expect(d.state).toBe('Stable');
    expect(d.generationId).toBe(g.generation);
    expect(d.members.map((m) => m.memberId).sort()).toEqual([g.leader, g.follower].sort());
    expect(d.offsets.map((o) => [o.topic, o.partition, o.offset])).toEqual([['t', 0, 42]]);
    expect(h.send({ type: 'Heartbeat', groupId: G, generationId: g.generation, memberId: g.follower, groupInstanceId: null }, 'consumer-2', other).response?.error).toBe('NONE');
    const f = h.fetchOffsets(G, [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }], other).response!;
    expect(f.partitions.map((p) => p.offset)).toEqual([42, -1]);
  });
});

describe('GroupCoordinator: the join phase', () => {
  it('a dynamic member first gets MEMBER_ID_REQUIRED, then the initial rebalance waits group.initial.rebalance.delay.ms', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    const first = h.join(G, '').response!;
    expect(first.error).toBe('MEMBER_ID_REQUIRED');
    expect(first.memberId.startsWith('consumer-1-')).toBe(true);
    expect(h.stateOf(G)).toBe('Empty');
    const t0 = h.scheduler.now;
    const join = h.join(G, first.memberId);
    expect(h.stateOf(G)).toBe('PreparingRebalance');
    h.runFor(2999);
    expect(join.response).toBeUndefined();
    h.runFor(1);
    const r = join.response!;
    expect(h.scheduler.now - t0).toBe(ms(3000));
    expect(r.error).toBe('NONE');
    expect(r.generationId).toBe(1);
    expect(r.leader).toBe(first.memberId);
    expect(r.protocolName).toBe('range');
    expect(r.members.map((m) => m.memberId)).toEqual([first.memberId]);
    expect(h.stateOf(G)).toBe('CompletingRebalance');
    const states = h.events('group.state').map((e) => `${String(e.from)}->${String(e.to)}`);
    expect(states).toEqual(['Empty->PreparingRebalance', 'PreparingRebalance->CompletingRebalance']);
  });

  it('each member joining during the initial delay extends it by another delay, bounded by the rebalance timeout', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    const t0 = h.scheduler.now;
    const a = h.joinNew(G, 'consumer-1', { rebalance: 10_000 });
    h.runFor(1000);
    h.joinNew(G, 'consumer-2', { rebalance: 10_000 }); // during the first delay: extends once
    h.runFor(2500); // t = 3500: first delay ran out at 3000 and was extended to 6000
    h.joinNew(G, 'consumer-3', { rebalance: 10_000 }); // during the second delay: extends again, to 9000
    h.runFor(5499);
    expect(a.join.response).toBeUndefined();
    h.runFor(1);
    // Delays: 3000 + 3000 + 3000 = 9000 (remaining budget 10000 - 3000 = 7000, then 4000, then 1000 > 0).
    expect(h.scheduler.now - t0).toBe(ms(9000));
    expect(a.join.response?.members).toHaveLength(3);
  });

  it('the leader gets every member\'s metadata, followers an empty list; the protocol is chosen by vote', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    const both = [protocol('range', ['t']), protocol('cooperative-sticky', ['t'])];
    const a = h.joinNew(G, 'consumer-1', { protocols: both });
    const b = h.joinNew(G, 'consumer-2', { protocols: [protocol('cooperative-sticky', ['t']), protocol('range', ['t'])] });
    const c = h.joinNew(G, 'consumer-3', { protocols: [protocol('cooperative-sticky', ['t'])] });
    h.runFor(10_000);
    const rs = [a.join.response!, b.join.response!, c.join.response!];
    // Only cooperative-sticky is supported by all three members, so it is the only candidate.
    for (const r of rs) expect(r.protocolName).toBe('cooperative-sticky');
    const leader = rs.find((r) => r.memberId === r.leader)!;
    expect(leader.members).toHaveLength(3);
    expect(leader.memberId).toBe(a.memberId);
    for (const r of rs.filter((x) => x !== leader)) expect(r.members).toEqual([]);
  });

  it('a member with no protocol in common with a non-empty group gets INCONSISTENT_GROUP_PROTOCOL', () => {
    const h = new CoordinatorHarness();
    stable(h);
    expect(h.join(G, '', { protocols: [protocol('roundrobin', ['t'])] }).response?.error).toBe('INCONSISTENT_GROUP_PROTOCOL');
  });

  it('group.max.size bounds the members: GROUP_MAX_SIZE_REACHED', () => {
    const h = new CoordinatorHarness({ 'group.max.size': 1 });
    h.lead(G);
    const first = h.joinNew(G, 'consumer-1');
    // Still in the initial delay (PreparingRebalance): one member awaits its join, the limit is reached.
    const second = h.join(G, '', { from: 'consumer-2' }).response!;
    expect(second.error).toBe('GROUP_MAX_SIZE_REACHED');
    h.runFor(5000);
    expect(first.join.response?.error).toBe('NONE');
    // CompletingRebalance: a new member is refused before it even gets a member id.
    expect(h.join(G, '', { from: 'consumer-2' }).response?.error).toBe('GROUP_MAX_SIZE_REACHED');
  });

  it('a JoinGroup with a member id the group does not know gets UNKNOWN_MEMBER_ID', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    expect(h.join(G, 'nobody-1').response?.error).toBe('UNKNOWN_MEMBER_ID');
    stable(h);
    expect(h.join(G, 'nobody-1').response?.error).toBe('UNKNOWN_MEMBER_ID');
  });
});

describe('GroupCoordinator: sync, heartbeat, rebalance, leave', () => {
  it('followers\' SyncGroup waits for the leader; the assignment is stored before anyone hears it; then Stable', () => {
    const h = new CoordinatorHarness();
    const g = twoMemberGroup(h);
    const fs = h.sync(G, g.follower, g.generation);
    h.runFor(100);
    expect(fs.response).toBeUndefined();
    h.storage.commitDelayMs = 20;
    const ls = h.sync(G, g.leader, g.generation, [
      { memberId: g.leader, partitions: [{ topic: 't', partition: 0 }] },
      { memberId: g.follower, partitions: [{ topic: 't', partition: 1 }] },
    ]);
    h.runFor(19);
    expect(ls.response).toBeUndefined();
    expect(h.stateOf(G)).toBe('CompletingRebalance');
    h.runFor(1);
    expect(ls.response).toEqual({ type: 'SyncGroupResponse', correlationId: expect.any(Number), error: 'NONE', partitions: [{ topic: 't', partition: 0 }] });
    expect(fs.response?.partitions).toEqual([{ topic: 't', partition: 1 }]);
    expect(h.stateOf(G)).toBe('Stable');
    expect(h.heartbeat(G, g.follower, g.generation).response?.error).toBe('NONE');
    // A SyncGroup in Stable returns the member's assignment at once.
    expect(h.sync(G, g.follower, g.generation).response?.partitions).toEqual([{ topic: 't', partition: 1 }]);
  });

  it('storing the assignment fails: members get the mapped error and the group rebalances', () => {
    const h = new CoordinatorHarness();
    const g = twoMemberGroup(h);
    h.storage.failWith = 'NOT_LEADER_OR_FOLLOWER';
    const fs = h.sync(G, g.follower, g.generation);
    const ls = h.sync(G, g.leader, g.generation, []);
    h.runFor(10);
    expect(ls.response?.error).toBe('NOT_COORDINATOR');
    expect(fs.response?.error).toBe('NOT_COORDINATOR');
    expect(h.stateOf(G)).toBe('PreparingRebalance');
  });

  it('heartbeat errors: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    expect(h.heartbeat(G, 'nobody', g.generation).response?.error).toBe('UNKNOWN_MEMBER_ID');
    expect(h.heartbeat(G, g.leader, g.generation - 1).response?.error).toBe('ILLEGAL_GENERATION');
    // A new member's join starts a rebalance: known members now hear REBALANCE_IN_PROGRESS.
    h.joinNew(G, 'consumer-3');
    expect(h.stateOf(G)).toBe('PreparingRebalance');
    expect(h.heartbeat(G, g.follower, g.generation).response?.error).toBe('REBALANCE_IN_PROGRESS');
    expect(h.sync(G, g.follower, g.generation).response?.error).toBe('REBALANCE_IN_PROGRESS');
  });

  it('a rebalance completes as soon as every known member rejoined; generation + 1', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    const c = h.joinNew(G, 'consumer-3');
    const lj = h.join(G, g.leader, { from: 'consumer-1' });
    expect(lj.response).toBeUndefined();
    const fj = h.join(G, g.follower, { from: 'consumer-2' });
    // All three are parked now: the join completes at once.
    expect(fj.response?.generationId).toBe(g.generation + 1);
    expect(c.join.response?.generationId).toBe(g.generation + 1);
    expect(lj.response?.members).toHaveLength(3);
    expect(h.events('group.rebalance').at(-1)?.reason).toContain('new member');
  });

  it('members that do not rejoin within the rebalance timeout are removed', () => {
    const h = new CoordinatorHarness();
    // Sessions longer than the rebalance timeout, so that the rebalance timeout removes the follower.
    const g = stable(h, 60_000);
    const lj = h.join(G, g.leader, { from: 'consumer-1', rebalance: 30_000, session: 60_000 });
    h.runFor(29_999);
    expect(lj.response).toBeUndefined();
    h.runFor(1);
    expect(lj.response?.generationId).toBe(g.generation + 1);
    expect(lj.response?.members.map((m) => m.memberId)).toEqual([g.leader]);
    expect(h.events('group.member.expire').map((e) => e.memberId)).toContain(g.follower);
  });

  it('a member whose session times out is removed and the others rebalance without it', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    const t0 = h.scheduler.now;
    // The leader keeps heartbeating; the follower goes silent.
    let lastError = 'NONE';
    for (let i = 0; i < 4; i++) {
      h.runFor(3000);
      lastError = h.heartbeat(G, g.leader, g.generation).response!.error;
    }
    expect(lastError).toBe('REBALANCE_IN_PROGRESS');
    const expired = h.events('group.member.expire');
    expect(expired.map((e) => e.memberId)).toEqual([g.follower]);
    // Session 10 s, counted from the last time the coordinator heard of it (its sync).
    expect(expired[0]!.t - t0).toBeLessThanOrEqual(ms(10_000));
    expect(expired[0]!.t - t0).toBeGreaterThan(ms(9_000));
    const lj = h.join(G, g.leader, { from: 'consumer-1' });
    expect(lj.response?.members.map((m) => m.memberId)).toEqual([g.leader]);
  });

  it('a follower that never syncs is removed after the rebalance timeout, and the group rebalances', () => {
    const h = new CoordinatorHarness();
    const g = twoMemberGroup(h, 60_000);
    const ls = h.sync(G, g.leader, g.generation, []);
    h.runFor(10);
    expect(h.stateOf(G)).toBe('Stable');
    expect(ls.response?.error).toBe('NONE');
    h.heartbeat(G, g.leader, g.generation);
    h.runFor(29_990); // rebalance timeout 30 s after the join completed
    expect(h.events('group.member.expire').map((e) => [e.memberId, e.reason])).toEqual([[g.follower, 'no SyncGroup within the rebalance timeout']]);
    expect(h.stateOf(G)).toBe('PreparingRebalance');
  });

  it('LeaveGroup: the group rebalances without the member; when the last leaves it is Empty and stored so', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    const leave = (memberId: string) =>
      h.send({ type: 'LeaveGroup', groupId: G, members: [{ memberId, groupInstanceId: null, reason: 'closing' }] }).response;
    expect(leave(g.follower)?.error).toBe('NONE');
    expect(h.stateOf(G)).toBe('PreparingRebalance');
    expect(leave('nobody')?.error).toBe('UNKNOWN_MEMBER_ID');
    expect(leave(g.leader)?.error).toBe('NONE');
    expect(h.stateOf(G)).toBe('Empty');
    h.runFor(10);
    const log = h.storage.readLog(h.partitionOf(G));
    const last = JSON.parse(log.at(-1)!.value!) as { members: unknown[]; generation: number };
    expect(last.members).toEqual([]);
    expect(last.generation).toBe(g.generation + 1);
    expect(h.events('group.member.leave').map((e) => e.memberId)).toEqual([g.follower, g.leader]);
  });

  it('a JoinGroup in CompletingRebalance with unchanged metadata gets the current generation again; changed metadata rebalances', () => {
    const h = new CoordinatorHarness();
    const g = twoMemberGroup(h);
    const again = h.join(G, g.follower, { from: 'consumer-2' }).response!;
    expect(again.generationId).toBe(g.generation);
    expect(h.stateOf(G)).toBe('CompletingRebalance');
    const fs = h.sync(G, g.follower, g.generation);
    h.join(G, g.follower, { from: 'consumer-2', protocols: [protocol('range', ['t', 'u'])] });
    expect(h.stateOf(G)).toBe('PreparingRebalance');
    expect(fs.response?.error).toBe('REBALANCE_IN_PROGRESS');
  });
});

describe('GroupCoordinator: static membership', () => {
  it('a static member that restarts within the session timeout takes over its assignment without a rebalance', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    const a = h.join(G, '', { from: 'consumer-1', instance: 'i-1' });
    const b = h.join(G, '', { from: 'consumer-2', instance: 'i-2' });
    h.runFor(10_000);
    const ra = a.response!;
    const rb = b.response!;
    expect(ra.error).toBe('NONE');
    const gen = ra.generationId;
    const leader = ra.leader;
    const follower = leader === ra.memberId ? rb.memberId : ra.memberId;
    const followerInstance = leader === ra.memberId ? 'i-2' : 'i-1';
    h.sync(G, follower, gen, [], followerInstance);
    h.sync(G, leader, gen, [{ memberId: follower, partitions: [{ topic: 't', partition: 3 }] }], followerInstance === 'i-1' ? 'i-2' : 'i-1');
    h.runFor(10);
    expect(h.stateOf(G)).toBe('Stable');
    const rebalancesBefore = h.events('group.rebalance').length;

    const rejoin = h.join(G, '', { from: 'consumer-2b', instance: followerInstance });
    h.runFor(10);
    const r = rejoin.response!;
    expect(r.error).toBe('NONE');
    expect(r.memberId).not.toBe(follower);
    expect(r.generationId).toBe(gen);
    expect(h.stateOf(G)).toBe('Stable');
    expect(h.events('group.rebalance').length).toBe(rebalancesBefore);
    expect(h.sync(G, r.memberId, gen, [], followerInstance).response?.partitions).toEqual([{ topic: 't', partition: 3 }]);
    // The old member id is fenced.
    expect(h.heartbeat(G, follower, gen, followerInstance).response?.error).toBe('FENCED_INSTANCE_ID');
    expect(h.events('group.member.join').at(-1)?.replaced).toBe(follower);
  });

  it('a static member is not removed by a rebalance it misses; only its session timeout removes it', () => {
    const h = new CoordinatorHarness();
    h.lead(G);
    const a = h.join(G, '', { from: 'consumer-1', instance: 'i-1', session: 20_000, rebalance: 5000 });
    const b = h.joinNew(G, 'consumer-2', { session: 20_000, rebalance: 5000 });
    // Initial delay 3000, extended once by min(3000, 5000 - 3000) for b: the join completes at 5 s.
    h.runFor(5_100);
    const gen = a.response!.generationId;
    h.sync(G, a.response!.memberId, gen, [], 'i-1');
    h.sync(G, b.memberId, gen);
    h.runFor(10);
    // b rejoins (a new rebalance); a never does.
    // b rejoins with a new subscription: a rebalance that a (static) never rejoins.
    const bj = h.join(G, b.memberId, { from: 'consumer-2', session: 20_000, rebalance: 5000, protocols: [protocol('range', ['t', 'u'])] });
    expect(bj.response).toBeUndefined();
    h.runFor(5000);
    expect(bj.response?.error).toBe('NONE');
    expect(bj.response?.generationId).toBe(gen + 1);
    // The new generation still has a: static members are not dropped for missing a rebalance.
    expect(h.events('group.rebalance').at(-1)?.members).toEqual([a.response!.memberId, b.memberId]);
    // a's session (20 s, restarted when the join completed) then expires.
    h.sync(G, b.memberId, bj.response!.generationId);
    expect(h.events('group.member.expire')).toHaveLength(0);
    h.runFor(20_000);
    expect(h.events('group.member.expire').map((e) => e.groupInstanceId)).toContain('i-1');
  });
});

describe('GroupCoordinator: offset commits', () => {
  it('a commit is answered only once it is committed in __consumer_offsets, and OffsetFetch then returns it', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    h.storage.commitDelayMs = 30;
    const c = h.commit(G, g.leader, g.generation, [{ topic: 't', partition: 0, offset: 1200 }]);
    h.runFor(29);
    expect(c.response).toBeUndefined();
    expect(h.fetchOffsets(G, [{ topic: 't', partition: 0 }]).response?.partitions[0]?.offset).toBe(-1);
    h.runFor(1);
    expect(c.response?.error).toBe('NONE');
    expect(h.fetchOffsets(G, [{ topic: 't', partition: 0 }]).response?.partitions[0]?.offset).toBe(1200);
    expect(h.events('group.offset.commit').at(-1)).toMatchObject({ group: G, offsets: [{ topic: 't', partition: 0, offset: 1200 }], error: 'NONE' });
  });

  it('validates generation and member: ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS in CompletingRebalance', () => {
    const h = new CoordinatorHarness();
    const g = twoMemberGroup(h);
    const o = [{ topic: 't', partition: 0, offset: 5 }];
    expect(h.commit(G, g.leader, g.generation, o).response?.error).toBe('REBALANCE_IN_PROGRESS');
    h.sync(G, g.leader, g.generation, []);
    h.runFor(10);
    expect(h.commit(G, g.leader, g.generation - 1, o).response?.error).toBe('ILLEGAL_GENERATION');
    expect(h.commit(G, 'nobody', g.generation, o).response?.error).toBe('UNKNOWN_MEMBER_ID');
    // Without a generation, commits are refused while the group has members.
    expect(h.commit(G, '', -1, o).response?.error).toBe('UNKNOWN_MEMBER_ID');
    const ok = h.commit(G, g.follower, g.generation, o);
    h.runFor(5);
    expect(ok.response?.error).toBe('NONE');
    // During PreparingRebalance members of the current generation may still commit.
    h.joinNew(G, 'consumer-3');
    expect(h.stateOf(G)).toBe('PreparingRebalance');
    const during = h.commit(G, g.follower, g.generation, o);
    h.runFor(5);
    expect(during.response?.error).toBe('NONE');
  });

  it('a commit without a generation creates a simple group and is accepted while it is empty', () => {
    const h = new CoordinatorHarness();
    h.lead('manual');
    const c = h.commit('manual', '', -1, [{ topic: 't', partition: 2, offset: 7 }]);
    h.runFor(5);
    expect(c.response?.error).toBe('NONE');
    expect(h.stateOf('manual')).toBe('Empty');
  });

  it('a failed or timed-out write becomes COORDINATOR_NOT_AVAILABLE (NOT_ENOUGH_REPLICAS, offsets.commit.timeout.ms)', () => {
    const h = new CoordinatorHarness();
    const g = stable(h);
    h.storage.failWith = 'NOT_ENOUGH_REPLICAS';
    const failed = h.commit(G, g.leader, g.generation, [{ topic: 't', partition: 0, offset: 1 }]);
    h.runFor(5);
    expect(failed.response?.error).toBe('COORDINATOR_NOT_AVAILABLE');
    h.storage.failWith = null;
    h.storage.hang = true;
    const hung = h.commit(G, g.leader, g.generation, [{ topic: 't', partition: 0, offset: 2 }]);
    h.runFor(4999);
    expect(hung.response).toBeUndefined();
    h.runFor(1);
    expect(hung.response?.error).toBe('COORDINATOR_NOT_AVAILABLE');
  });

  it('offsets of an empty group expire after offsets.retention.minutes, and the group is deleted', () => {
    const h = new CoordinatorHarness({ 'offsets.retention.minutes': 20 });
    h.lead('manual');
    h.commit('manual', '', -1, [{ topic: 't', partition: 0, offset: 7 }]);
    h.runFor(10 * 60_000 + 100); // first check at 10 min: not yet expired
    expect(h.fetchOffsets('manual', null).response?.partitions).toHaveLength(1);
    h.runFor(20 * 60_000); // checks at 20 and 30 min: expired
    expect(h.fetchOffsets('manual', null).response?.partitions).toHaveLength(0);
    expect(h.events('group.offset.expire')).toHaveLength(1);
    expect(h.stateOf('manual')).toBe('Dead');
  });
});

describe('GroupCoordinator: parked requests end on resignation', () => {
  it('parked syncs get NOT_COORDINATOR and every group becomes Dead', () => {
    const h = new CoordinatorHarness();
    const g = twoMemberGroup(h);
    const fs = h.sync(G, g.follower, g.generation);
    h.coordinator.onResign(h.partitionOf(G));
    expect(fs.response?.error).toBe('NOT_COORDINATOR');
    expect(h.events('group.state').at(-1)).toMatchObject({ from: 'CompletingRebalance', to: 'Dead' });
  });

  it('a rejoin with a stale leader epoch is ignored; a newer epoch reloads', () => {
    const storage = new MemoryStorage(new CoordinatorHarness().scheduler);
    const h = new CoordinatorHarness({}, storage);
    h.lead(G, 5);
    h.coordinator.onBecomeLeader(h.partitionOf(G), 4);
    expect(h.coordinator.isLeaderOf(h.partitionOf(G))).toBe(true);
    expect(h.join(G, '').response?.error).toBe('MEMBER_ID_REQUIRED');
    h.coordinator.onBecomeLeader(h.partitionOf(G), 6);
    expect(h.join(G, '').response?.error).toBe('COORDINATOR_LOAD_IN_PROGRESS');
  });
});

// Keeps the type import used for readers of the harness.
export type { JoinGroupResponse };
