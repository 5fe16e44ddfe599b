import { describe, expect, it } from 'vitest';
import type { ConsumerGroupHeartbeatResponse } from '../../../sim/kafka/protocol';
import { CoordinatorHarness, type Pending } from './coordinatorHarness';

const G = 'orders-app';

/** A harness leading G's partition, topic t with `partitions` partitions. */
function setup(partitions = 4, overrides: Record<string, unknown> = {}): CoordinatorHarness {
  const h = new CoordinatorHarness(overrides);
  h.topics.set('t', partitions);
  h.lead(G);
  return h;
}

const parts = (r: ConsumerGroupHeartbeatResponse | undefined): Record<string, number[]> | null =>
  r?.assignment ? Object.fromEntries(r.assignment.topicPartitions.map((tp) => [tp.topicId.replace(/^id-/, ''), [...tp.partitions]])) : null;

function answered(p: Pending<ConsumerGroupHeartbeatResponse>): ConsumerGroupHeartbeatResponse {
  if (!p.response) throw new Error('no response yet');
  return p.response;
}

describe('ConsumerGroupHeartbeat on the coordinator', () => {
  it('a first member gets every partition at epoch 1, answered only once its records are committed', () => {
    const h = setup();
    const p = h.consumerHeartbeat(G, 'm1', 0);
    expect(p.response).toBeUndefined();
    h.runFor(5);
    const r = answered(p);
    expect(r.error).toBe('NONE');
    expect(r.memberEpoch).toBe(1);
    expect(r.heartbeatIntervalMs).toBe(5000);
    expect(parts(r)).toEqual({ t: [0, 1, 2, 3] });
    const d = h.coordinator.describeConsumerGroup(G)!;
    expect(d).toMatchObject({ state: 'Stable', groupEpoch: 1, assignmentEpoch: 1 });
  });

  it('a second member: the first revokes before the second receives (no partition has two owners)', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0);
    h.runFor(5);
    const j = h.consumerHeartbeat(G, 'm2', 0);
    h.runFor(5);
    // m2 is at the new epoch but its partitions are still m1's: nothing yet.
    expect(answered(j)).toMatchObject({ memberEpoch: 2 });
    expect(parts(j.response)).toEqual({});
    expect(h.coordinator.describeConsumerGroup(G)!.members.find((m) => m.memberId === 'm2')).toMatchObject({ state: 'UNRELEASED_PARTITIONS', waiting: ['t-2', 't-3'] });
    // m1 hears it must give up 2 and 3, and stays at epoch 1 until it has.
    const b = h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(5);
    expect(answered(b)).toMatchObject({ memberEpoch: 1 });
    expect(parts(b.response)).toEqual({ t: [0, 1] });
    expect(h.coordinator.describeConsumerGroup(G)!.members.find((m) => m.memberId === 'm1')).toMatchObject({ state: 'UNREVOKED_PARTITIONS', revoking: ['t-2', 't-3'] });
    // m2 asks again: still unreleased.
    const c = h.consumerHeartbeat(G, 'm2', 2, { owned: {} });
    h.runFor(5);
    expect(parts(c.response)).toBeNull();
    // m1 acknowledges the revocation in its next heartbeat: epoch 2, stable.
    const d = h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1] } });
    h.runFor(5);
    expect(answered(d)).toMatchObject({ memberEpoch: 2 });
    // Now m2 receives them.
    const e = h.consumerHeartbeat(G, 'm2', 2, { owned: {} });
    h.runFor(5);
    expect(parts(e.response)).toEqual({ t: [2, 3] });
    expect(h.coordinator.describeConsumerGroup(G)!.state).toBe('Stable');
    const targets = h.events('group.consumer.target');
    expect(targets.at(-1)).toMatchObject({ epoch: 2, assignor: 'uniform', assignment: { m1: ['t-0', 't-1'], m2: ['t-2', 't-3'] } });
  });

  it('a member that does not revoke within its rebalance timeout is fenced and its partitions go on', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0, { rebalanceTimeoutMs: 10_000 });
    h.runFor(5);
    h.consumerHeartbeat(G, 'm2', 0);
    h.runFor(5);
    h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(9_000);
    expect(h.events('group.member.expire')).toHaveLength(0);
    // m1 keeps heartbeating without revoking (a poll loop stuck in processing still heartbeats).
    h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(1_100);
    const expired = h.events('group.member.expire');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.memberId).toBe('m1');
    expect(String(expired[0]!.reason)).toMatch(/rebalance timeout/);
    // Its next heartbeat learns it is gone; m2 gets everything.
    const late = h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(5);
    expect(answered(late).error).toBe('UNKNOWN_MEMBER_ID');
    const m2 = h.consumerHeartbeat(G, 'm2', 2, { owned: {} });
    h.runFor(5);
    expect(parts(m2.response)).toEqual({ t: [0, 1, 2, 3] });
  });

  it('a silent member is removed after consumer.session.timeout.ms (45 s by default, a group config wins)', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0);
    h.runFor(44_000);
    expect(h.events('group.member.expire')).toHaveLength(0);
    h.runFor(1_100);
    expect(h.events('group.member.expire')).toHaveLength(1);
    const h2 = new CoordinatorHarness();
    h2.topics.set('t', 2);
    h2.groupConfigs.set(G, new Map([['consumer.session.timeout.ms', '50000'], ['consumer.heartbeat.interval.ms', '7000']]));
    h2.lead(G);
    const r = h2.consumerHeartbeat(G, 'm1', 0);
    h2.runFor(45_100);
    expect(answered(r).heartbeatIntervalMs).toBe(7000);
    expect(h2.events('group.member.expire')).toHaveLength(0);
    h2.runFor(5_000);
    expect(h2.events('group.member.expire')).toHaveLength(1);
  });

  it('epoch validation: ahead is fenced, the previous epoch is accepted only with partitions of the current assignment', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0);
    h.runFor(5);
    const ahead = h.consumerHeartbeat(G, 'm1', 5, { owned: {} });
    h.runFor(5);
    expect(answered(ahead).error).toBe('FENCED_MEMBER_EPOCH');
    // m2 joins: m1 must revoke at epoch 1, then moves to 2.
    h.consumerHeartbeat(G, 'm2', 0);
    h.runFor(5);
    h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(5);
    h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1] } });
    h.runFor(5);
    // The response that took m1 to epoch 2 was lost: epoch 1 with owned ⊆ assigned is accepted.
    const lost = h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1] } });
    h.runFor(5);
    expect(answered(lost)).toMatchObject({ error: 'NONE', memberEpoch: 2 });
    // Epoch 1 claiming a partition it no longer has is a zombie: fenced.
    const zombie = h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2] } });
    h.runFor(5);
    expect(answered(zombie).error).toBe('FENCED_MEMBER_EPOCH');
    const unknown = h.consumerHeartbeat(G, 'nobody', 3, { owned: {} });
    h.runFor(5);
    expect(answered(unknown).error).toBe('UNKNOWN_MEMBER_ID');
  });

  it('offset commits carry the member epoch: a stale one is STALE_MEMBER_EPOCH, a non-member UNKNOWN_MEMBER_ID', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0);
    h.runFor(5);
    const ok = h.commit(G, 'm1', 1, [{ topic: 't', partition: 0, offset: 5 }]);
    const stale = h.commit(G, 'm1', 0, [{ topic: 't', partition: 0, offset: 6 }]);
    const stranger = h.commit(G, 'm9', 1, [{ topic: 't', partition: 0, offset: 7 }]);
    h.runFor(5);
    expect(ok.response!.error).toBe('NONE');
    expect(stale.response!.error).toBe('STALE_MEMBER_EPOCH');
    expect(stranger.response!.error).toBe('UNKNOWN_MEMBER_ID');
    const f = h.send<import('../../../sim/kafka/protocol').OffsetFetchResponse>({ type: 'OffsetFetch', groupId: G, partitions: null, memberId: 'm1', memberEpoch: 0 });
    expect(f.response!.error).toBe('STALE_MEMBER_EPOCH');
  });

  it('a static member leaves with epoch -2 and comes back under a new member id: same partitions, no new epoch', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'a1', 0, { instance: 'clerk-a' });
    h.runFor(5);
    h.consumerHeartbeat(G, 'b1', 0, { instance: 'clerk-b' });
    h.runFor(5);
    h.consumerHeartbeat(G, 'a1', 1, { instance: 'clerk-a', owned: { t: [0, 1, 2, 3] } });
    h.runFor(5);
    h.consumerHeartbeat(G, 'a1', 1, { instance: 'clerk-a', owned: { t: [0, 1] } });
    h.runFor(5);
    h.consumerHeartbeat(G, 'b1', 2, { instance: 'clerk-b', owned: {} });
    h.runFor(5);
    const epochBefore = h.coordinator.describeConsumerGroup(G)!.groupEpoch;
    const leave = h.consumerHeartbeat(G, 'a1', -2, { instance: 'clerk-a', owned: null, topics: null });
    h.runFor(5);
    expect(answered(leave)).toMatchObject({ error: 'NONE', memberEpoch: -2 });
    // b1 cannot take a1's partitions meanwhile: they are held for clerk-a.
    expect(h.coordinator.describeConsumerGroup(G)!.members.find((m) => m.memberId === 'a1')).toMatchObject({ memberEpoch: -2, assigned: ['t-0', 't-1'] });
    const back = h.consumerHeartbeat(G, 'a2', 0, { instance: 'clerk-a' });
    h.runFor(5);
    expect(answered(back)).toMatchObject({ error: 'NONE', memberEpoch: epochBefore });
    expect(parts(back.response)).toEqual({ t: [0, 1] });
    expect(h.coordinator.describeConsumerGroup(G)!.groupEpoch).toBe(epochBefore);
    expect(h.events('group.member.join').at(-1)).toMatchObject({ memberId: 'a2', replaced: 'a1' });
  });

  it('a static member that crashed (no -2 leave) cannot rejoin before its session expires: UNRELEASED_INSTANCE_ID', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'a1', 0, { instance: 'clerk-a' });
    h.runFor(5);
    const again = h.consumerHeartbeat(G, 'a2', 0, { instance: 'clerk-a' });
    h.runFor(5);
    expect(answered(again).error).toBe('UNRELEASED_INSTANCE_ID');
    h.runFor(45_000);
    const later = h.consumerHeartbeat(G, 'a3', 0, { instance: 'clerk-a' });
    h.runFor(5);
    expect(answered(later)).toMatchObject({ error: 'NONE', memberEpoch: 3 });
  });

  it('a new coordinator rebuilds the group from __consumer_offsets, mid-reconciliation, and re-arms the rebalance timeout', () => {
    const h = setup();
    h.consumerHeartbeat(G, 'm1', 0, { rebalanceTimeoutMs: 20_000 });
    h.runFor(5);
    h.consumerHeartbeat(G, 'm2', 0);
    h.runFor(5);
    h.consumerHeartbeat(G, 'm1', 1, { owned: { t: [0, 1, 2, 3] } });
    h.runFor(5);
    const before = h.coordinator.describeConsumerGroup(G)!;
    expect(before.state).toBe('Reconciling');
    const other = h.makeCoordinator(2);
    h.coordinator.onResign(h.partitionOf(G));
    h.lead(G, 2, other);
    expect(other.describeConsumerGroup(G)).toEqual(before);
    h.runFor(20_100);
    expect(h.events('group.member.expire').map((e) => e.memberId)).toContain('m1');
  });

  it('an empty group converts between protocols: classic <-> consumer', () => {
    const h = setup();
    // An empty classic group (offsets only) gives way to a consumer group; its offsets stay.
    h.commit(G, '', -1, [{ topic: 't', partition: 0, offset: 3 }]);
    h.runFor(5);
    const j = h.consumerHeartbeat(G, 'm1', 0);
    h.runFor(5);
    expect(answered(j).error).toBe('NONE');
    expect(h.events('group.convert')).toMatchObject([{ from: 'classic', to: 'consumer' }]);
    expect(h.fetchOffsets(G, [{ topic: 't', partition: 0 }]).response!.partitions[0]!.offset).toBe(3);
    // Once the member leaves, the empty consumer group turns classic for the next JoinGroup.
    h.consumerHeartbeat(G, 'm1', -1, { owned: null, topics: null });
    h.runFor(5);
    const classic = h.join(G, '');
    expect(classic.response!.error).toBe('MEMBER_ID_REQUIRED');
    expect(h.events('group.convert').at(-1)).toMatchObject({ from: 'consumer', to: 'classic', members: 0 });
  });

  it('bad requests get Kafka\'s errors', () => {
    const h = setup();
    const noId = h.consumerHeartbeat(G, '', 0);
    const badAssignor = h.consumerHeartbeat(G, 'm1', 0, { assignor: 'sticky' });
    const noTimeout = h.consumerHeartbeat(G, 'm1', 0, { rebalanceTimeoutMs: -1 });
    h.runFor(5);
    expect(answered(noId)).toMatchObject({ error: 'INVALID_REQUEST', errorMessage: "MemberId can't be empty." });
    expect(answered(badAssignor).error).toBe('UNSUPPORTED_ASSIGNOR');
    expect(answered(noTimeout).error).toBe('INVALID_REQUEST');
    const h2 = setup(4, { 'group.coordinator.rebalance.protocols': 'classic' });
    const off = h2.consumerHeartbeat(G, 'm1', 0);
    expect(answered(off).error).toBe('UNSUPPORTED_VERSION');
  });

  it('range on request: the group uses the assignor most members ask for', () => {
    const h = setup(4);
    h.consumerHeartbeat(G, 'b', 0, { assignor: 'range' });
    h.runFor(5);
    h.consumerHeartbeat(G, 'a', 0, { assignor: 'range' });
    h.runFor(5);
    expect(h.events('group.consumer.target').at(-1)).toMatchObject({ assignor: 'range', assignment: { a: ['t-0', 't-1'], b: ['t-2', 't-3'] } });
  });
});
