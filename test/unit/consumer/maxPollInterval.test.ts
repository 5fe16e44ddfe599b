import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

const base = { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'session.timeout.ms': 10_000, 'heartbeat.interval.ms': 1000 };

describe('max.poll.interval.ms', () => {
  it('a consumer that does not poll in time leaves the group, a rebalance follows, and it rejoins when it polls again', () => {
    const w = new FakeWorld({ seed: 31, topics: [{ name: 't', partitions: 4 }] });
    w.addConsumer('c1', { topics: ['t'], config: { ...base, 'max.poll.interval.ms': 10_000 } });
    // c2 stalls for 25 s at t = 5 s: its last poll is just before 5 s, so at about 15 s its heartbeat thread leaves.
    w.addConsumer('c2', { topics: ['t'], config: { ...base, 'max.poll.interval.ms': 10_000 }, processing: { stalls: [{ atMs: 5000, durationMs: 25_000 }] } });
    for (let p = 0; p < 4; p++) w.produce('t', p, { count: 300, everyMs: 100 });
    w.start();
    w.runUntilMs(45_000);

    const leave = w.events('consumer.leave').filter((e) => e.node === 'c2');
    expect(leave).toHaveLength(1);
    expect(leave[0]!.reason).toBe('consumer poll timeout has expired');
    expect(leave[0]!.sent).toBe(true);
    const leftAt = leave[0]!.t as number;
    expect(leftAt).toBeGreaterThanOrEqual(15_000_000);
    expect(leftAt).toBeLessThan(15_200_000);
    // The coordinator removes it and rebalances without it: c1 gets all four partitions.
    expect(w.events('group.member.leave').map((e) => e.reason)).toEqual(['consumer poll timeout has expired']);
    const rebalances = w.events('group.rebalance');
    const after = rebalances.filter((e) => (e.t as number) > leftAt);
    expect((after[0]!.members as string[]).length).toBe(1);
    const c1Owned = w.events('consumer.assignment').filter((e) => e.node === 'c1' && (e.t as number) > leftAt && (e.t as number) < 30_000_000);
    expect(c1Owned.at(-1)!.owned).toEqual(['t-0', 't-1', 't-2', 't-3']);
    // When c2 polls again (t = 30 s) it has lost its partitions and joins again: one more rebalance, two members.
    const lost = w.events('consumer.assignment').filter((e) => e.node === 'c2' && (e.lost as string[]).length > 0);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.t as number).toBeGreaterThanOrEqual(30_000_000);
    expect(after.some((e) => (e.t as number) > 30_000_000 && (e.members as string[]).length === 2)).toBe(true);
    // Every record was still read by someone.
    const seen = new Set<string>();
    for (const e of w.events('consumer.poll')) for (const p of e.records as { partition: number; offsets: number[] }[]) for (const o of p.offsets) seen.add(`${p.partition}:${o}`);
    expect(seen.size).toBe(1200);
  });

  it('several slow consumers make the group churn', () => {
    // Batches of 50 records at 300 ms each take 15 s, longer than max.poll.interval.ms (10 s): each slow member
    // overstays, leaves, rejoins, and every leave and join is a rebalance for everyone.
    const slow = { ...base, 'max.poll.interval.ms': 10_000, 'max.poll.records': 50 };
    const fast = { ...base, 'max.poll.interval.ms': 10_000, 'max.poll.records': 50 };
    const w = new FakeWorld({ seed: 32, topics: [{ name: 't', partitions: 6 }] });
    for (let i = 1; i <= 3; i++) w.addConsumer(`slow${i}`, { topics: ['t'], config: slow, processing: { recordTime: { kind: 'fixed', ms: 300 } } });
    w.addConsumer('fast', { topics: ['t'], config: fast, processing: { recordTime: { kind: 'fixed', ms: 1 } } });
    for (let p = 0; p < 6; p++) w.produce('t', p, { count: 2000, perBatch: 10, everyMs: 50 });
    w.start();
    w.runUntilMs(120_000);
    const leaves = w.events('group.member.leave');
    const rebalances = w.events('group.rebalance');
    // Every slow member leaves at least twice in two minutes; a calm group would rebalance once.
    for (let i = 1; i <= 3; i++) expect(w.events('consumer.leave').filter((e) => e.node === `slow${i}`).length).toBeGreaterThanOrEqual(2);
    expect(leaves.length).toBeGreaterThanOrEqual(6);
    expect(rebalances.length).toBeGreaterThanOrEqual(8);
    // Churn costs work: records are read more than once (commits of evicted members fail).
    expect(w.events('consumer.commit').some((e) => e.ok === false)).toBe(true);
  });
});
