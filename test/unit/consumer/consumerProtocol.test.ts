import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { checkPartitionOwnership } from '../../../sim/check/partitionOwnership';
import { FakeWorld } from '../../support/fakeBroker';

// Consumers with group.protocol=consumer (KIP-848) against the real group coordinator on fake brokers.

const CONSUMER = { 'group.id': 'g', 'group.protocol': 'consumer', 'auto.offset.reset': 'earliest' };

function world(n: number, opts: { partitions?: number; config?: Record<string, unknown>; processing?: (i: number) => object | undefined; brokers?: number } = {}): FakeWorld {
  const partitions = opts.partitions ?? 6;
  const w = new FakeWorld({ seed: 848, brokers: opts.brokers ?? 1, topics: [{ name: 't', partitions }] });
  for (let i = 1; i <= n; i++) {
    const processing = opts.processing?.(i);
    w.addConsumer(`c${i}`, { topics: ['t'], config: { ...CONSUMER, ...opts.config }, ...(processing ? { processing } : {}) });
  }
  for (let p = 0; p < partitions; p++) w.produce('t', p, { count: 200, everyMs: 100 });
  return w;
}

const ownedBy = (w: FakeWorld, node: string): string[] => (w.events('consumer.assignment').filter((e) => e.node === node).at(-1)?.owned as string[] | undefined) ?? [];
const allEvents = (w: FakeWorld): TraceEvent[] => (w.world.memory?.events ?? []) as TraceEvent[];

describe('the consumer protocol on the member side', () => {
  it('three members share six partitions, two each, and every record is read once', () => {
    const w = world(3).start();
    w.runUntilMs(40_000);
    const owned = ['c1', 'c2', 'c3'].map((c) => ownedBy(w, c));
    expect(owned.map((o) => o.length)).toEqual([2, 2, 2]);
    expect(new Set(owned.flat()).size).toBe(6);
    const polled = w.events('consumer.poll').flatMap((e) => (e.records as { topic: string; partition: number; offsets: number[] }[]).flatMap((r) => r.offsets.map((o) => `${r.partition}@${o}`)));
    expect(polled.length).toBe(1200);
    expect(new Set(polled).size).toBe(1200);
    expect(checkPartitionOwnership(allEvents(w)).violations).toEqual([]);
    // Every member went JOINING -> ... -> STABLE, and the coordinator's view agrees.
    const group = w.broker(0)!.coordinator.describeConsumerGroup('g')!;
    expect(group.state).toBe('Stable');
    expect(group.members.map((m) => m.state)).toEqual(['STABLE', 'STABLE', 'STABLE']);
  });

  it('the member generates its own id (KIP-1082) and commits carry its epoch', () => {
    const w = world(1).start();
    w.runUntilMs(20_000);
    const join = w.events('consumer.join')[0]!;
    expect(join.protocol).toBe('consumer');
    expect(String(join.memberId)).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    const commits = w.events('consumer.commit').filter((e) => e.ok);
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.every((e) => e.generation === w.broker(0)!.coordinator.describeConsumerGroup('g')!.members[0]!.memberEpoch)).toBe(true);
    expect(w.cluster.committed('g', 't', 0)).toBeGreaterThan(0);
  });

  it('a member joining a busy group: the others keep their partitions, only the moved ones are revoked first', () => {
    const w = world(2);
    w.addConsumer('late', { topics: ['t'], config: CONSUMER, processing: { startMs: 15_000 } });
    w.start();
    w.runUntilMs(12_000);
    const before = { c1: ownedBy(w, 'c1'), c2: ownedBy(w, 'c2') };
    w.runUntilMs(40_000);
    // Nobody lost anything; c1 and c2 each revoked exactly what moved to the newcomer.
    expect(w.events('consumer.assignment').filter((e) => (e.lost as string[]).length > 0)).toEqual([]);
    const late = ownedBy(w, 'late');
    expect(late.length).toBe(2);
    for (const c of ['c1', 'c2'] as const) {
      const revoked = w.events('consumer.assignment').filter((e) => e.node === c && Number(e.t) > 12_000_000).flatMap((e) => e.revoked as string[]);
      expect(new Set(revoked)).toEqual(new Set(before[c].filter((p) => !ownedBy(w, c).includes(p))));
      expect(ownedBy(w, c).every((p) => before[c].includes(p))).toBe(true);
    }
    expect(checkPartitionOwnership(allEvents(w)).violations).toEqual([]);
    // The coordinator saw a revoker in UNREVOKED_PARTITIONS and the newcomer in UNRELEASED_PARTITIONS.
    const states = new Set(w.events('group.consumer.member').map((e) => e.state));
    expect(states).toContain('UNREVOKED_PARTITIONS');
    expect(states).toContain('UNRELEASED_PARTITIONS');
  });

  it('a member that stops polling for max.poll.interval.ms leaves; only its partitions move; it rejoins when it polls again', () => {
    const w = world(3, { config: { 'max.poll.interval.ms': 10_000 }, processing: (i) => (i === 1 ? { stalls: [{ atMs: 15_000, durationMs: 14_000 }] } : undefined) }).start();
    w.runUntilMs(14_000);
    const before = { c2: ownedBy(w, 'c2'), c3: ownedBy(w, 'c3') };
    w.runUntilMs(28_000);
    const leave = w.events('consumer.leave').find((e) => e.node === 'c1');
    expect(leave?.reason).toBe('consumer poll timeout has expired');
    // c2 and c3 kept everything they had and took c1's.
    for (const c of ['c2', 'c3'] as const) {
      expect(before[c].every((p) => ownedBy(w, c).includes(p))).toBe(true);
      expect(w.events('consumer.assignment').filter((e) => e.node === c && Number(e.t) > 14_000_000 && (e.revoked as string[]).length > 0)).toEqual([]);
    }
    expect(ownedBy(w, 'c1')).toEqual([]);
    expect(w.events('consumer.member').some((e) => e.node === 'c1' && e.state === 'STALE')).toBe(true);
    w.runUntilMs(60_000);
    // Back from its stall, c1 rejoined and got a share again.
    expect(ownedBy(w, 'c1').length).toBe(2);
    expect(checkPartitionOwnership(allEvents(w)).violations).toEqual([]);
  });

  it('a crashed member is removed after consumer.session.timeout.ms (45 s) and its partitions move', () => {
    const w = world(2).start();
    w.runUntilMs(12_000);
    const had = ownedBy(w, 'c2');
    w.world.host('h-c2').crash();
    w.runUntilMs(12_000 + 30_000);
    expect(w.events('group.member.expire')).toHaveLength(0);
    w.runUntilMs(12_000 + 60_000);
    const expired = w.events('group.member.expire');
    expect(expired).toHaveLength(1);
    expect(String(expired[0]!.reason)).toMatch(/session timeout \(45000 ms\)/);
    // 45 s after its last heartbeat, which came at most one heartbeat interval (5 s) before the crash.
    expect(Number(expired[0]!.t)).toBeGreaterThanOrEqual((12_000 + 40_000) * 1000);
    expect(Number(expired[0]!.t)).toBeLessThanOrEqual((12_000 + 45_000) * 1000);
    expect(had.every((p) => ownedBy(w, 'c1').includes(p))).toBe(true);
  });

  it('configs of the other protocol are refused the way ConsumerConfig refuses them', async () => {
    const { validateScenario } = await import('../../../sim/scenario/validate');
    const base = { id: 'x', duration: '1s', topics: [{ name: 't' }] };
    expect(() => validateScenario({ ...base, consumers: [{ id: 'c', group: 'g', topics: ['t'], config: { 'group.protocol': 'consumer', 'session.timeout.ms': 10_000 } }] })).toThrow(
      /consumers\[0\]\.config\.session\.timeout\.ms.*session\.timeout\.ms cannot be set when group\.protocol=CONSUMER/,
    );
    expect(() => validateScenario({ ...base, consumers: [{ id: 'c', group: 'g', topics: ['t'], config: { 'group.remote.assignor': 'range' } }] })).toThrow(/group\.remote\.assignor cannot be set when group\.protocol=CLASSIC/);
    // A group may mix the protocols, as during an online migration.
    expect(() =>
      validateScenario({
        ...base,
        consumers: [
          { id: 'a', group: 'g', topics: ['t'] },
          { id: 'b', group: 'g', topics: ['t'], config: { 'group.protocol': 'consumer' } },
        ],
      }),
    ).not.toThrow();
  });

  it('an online upgrade and downgrade: a consumer-protocol member joins a live classic group, which carries on as a consumer group, then turns classic again', () => {
    const w = new FakeWorld({ seed: 848, brokers: 1, topics: [{ name: 't', partitions: 6 }] });
    const CLASSIC = { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'partition.assignment.strategy': ['cooperative-sticky'] };
    w.addConsumer('c1', { topics: ['t'], config: CLASSIC, processing: { stopMs: 35_000 } });
    w.addConsumer('c2', { topics: ['t'], config: CLASSIC });
    w.addConsumer('k1', { topics: ['t'], config: CONSUMER, processing: { startMs: 15_000, stopMs: 60_000 } });
    for (let p = 0; p < 6; p++) w.produce('t', p, { count: 400, everyMs: 100 });
    w.start();
    w.runUntilMs(14_000);
    expect(w.broker(0)!.coordinator.describeGroup('g')!.state).toBe('Stable');
    w.runUntilMs(34_000);
    // k1 upgraded the group; c1 and c2 stay in it as classic members and handed k1 its share.
    expect(w.events('group.convert')).toMatchObject([{ from: 'classic', to: 'consumer', members: 2 }]);
    const mid = w.broker(0)!.coordinator.describeConsumerGroup('g')!;
    expect(mid.state).toBe('Stable');
    expect(mid.members.map((m) => m.protocol).sort()).toEqual(['classic', 'classic', 'consumer']);
    expect(['c1', 'c2', 'k1'].map((c) => ownedBy(w, c).length)).toEqual([2, 2, 2]);
    w.runUntilMs(90_000);
    // c1 left; k1, the last consumer-protocol member, left at 60 s: the group is classic again, c2 holds everything.
    expect(w.events('group.convert').at(-1)).toMatchObject({ from: 'consumer', to: 'classic', members: 1 });
    expect(w.broker(0)!.coordinator.describeGroup('g')!.state).toBe('Stable');
    expect(ownedBy(w, 'c2').length).toBe(6);
    expect(checkPartitionOwnership(allEvents(w)).violations).toEqual([]);
    for (let q = 0; q < 6; q++) expect(w.cluster.committed('g', 't', q)).toBe(400);
  });

  it('the coordinator moves in the middle of a reconciliation: the group carries on from its records, no partition has two owners', () => {
    const w = world(2, { brokers: 2 });
    w.addConsumer('late', { topics: ['t'], config: CONSUMER, processing: { startMs: 15_000 } });
    w.start();
    w.runUntilMs(15_020);
    const p = w.cluster.coordinatorPartitionOf('g');
    const from = w.cluster.offsetsLeaders.get(p)!.leader;
    w.cluster.moveCoordinator(p, 1 - from);
    w.runUntilMs(60_000);
    expect(w.events('group.load').some((e) => e.node === `broker-${1 - from}` && (e.groups as string[]).includes('g'))).toBe(true);
    expect(['c1', 'c2', 'late'].map((c) => ownedBy(w, c).length)).toEqual([2, 2, 2]);
    expect(checkPartitionOwnership(allEvents(w)).violations).toEqual([]);
    // Committed offsets survived the move: everything is read, and the group ends caught up.
    for (let q = 0; q < 6; q++) expect(w.cluster.committed('g', 't', q)).toBe(200);
  });
});
