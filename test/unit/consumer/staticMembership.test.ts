import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

function scenario(staticMembers: boolean) {
  const w = new FakeWorld({ seed: 51, topics: [{ name: 't', partitions: 6 }] });
  for (let i = 1; i <= 3; i++) {
    w.addConsumer(`c${i}`, {
      topics: ['t'],
      config: { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'session.timeout.ms': 10_000, 'heartbeat.interval.ms': 1000, ...(staticMembers ? { 'group.instance.id': `i${i}` } : {}) },
    });
  }
  for (let p = 0; p < 6; p++) w.produce('t', p, { count: 300, everyMs: 100 });
  w.start();
  w.runUntilMs(10_000);
  const before = w.broker(0)!.coordinator.describeGroup('g')!;
  const ownedBefore = w.events('consumer.assignment').filter((e) => e.node === 'c2').at(-1)!.owned;
  const rebalancesBefore = w.events('group.rebalance').length;
  // A quick restart: crash, back 2 s later (well within session.timeout.ms).
  w.world.host('h-c2').crash();
  w.runUntilMs(12_000);
  w.world.host('h-c2').restart(0);
  w.runUntilMs(40_000);
  return { w, before, ownedBefore, rebalancesBefore };
}

describe('static membership', () => {
  it('a static member restarting within session.timeout.ms gets its partitions back without a rebalance', () => {
    const { w, before, ownedBefore, rebalancesBefore } = scenario(true);
    expect(before.state).toBe('Stable');
    expect(w.events('group.rebalance').length).toBe(rebalancesBefore);
    const after = w.broker(0)!.coordinator.describeGroup('g')!;
    expect(after.generationId).toBe(before.generationId);
    expect(after.state).toBe('Stable');
    // The new incarnation replaced the old member id and owns what the old one owned.
    const replaced = w.events('group.member.join').filter((e) => e.replaced !== null);
    expect(replaced).toHaveLength(1);
    expect(replaced[0]!.groupInstanceId).toBe('i2');
    const ownedAfter = w.events('consumer.assignment').filter((e) => e.node === 'c2').at(-1)!.owned;
    expect(ownedAfter).toEqual(ownedBefore);
    // Other members never gave anything up.
    for (const node of ['c1', 'c3']) {
      expect(w.events('consumer.assignment').filter((e) => e.node === node && ((e.revoked as string[]).length > 0 || (e.lost as string[]).length > 0))).toHaveLength(0);
    }
    // Nothing was expired either: the old member id was fenced, not timed out.
    expect(w.events('group.member.expire')).toHaveLength(0);
  });

  it('the same restart of a dynamic member costs rebalances', () => {
    const { w, rebalancesBefore } = scenario(false);
    // The new incarnation joins as a new member (one rebalance), the old member id is expired (another, unless they coincide).
    expect(w.events('group.rebalance').length).toBeGreaterThan(rebalancesBefore);
    expect(w.events('group.member.expire').length + w.events('group.member.leave').length).toBeGreaterThanOrEqual(1);
  });
});
