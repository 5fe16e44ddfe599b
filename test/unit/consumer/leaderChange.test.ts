import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

function polled(w: FakeWorld): number[] {
  const out: number[] = [];
  for (const e of w.events('consumer.poll')) for (const p of e.records as { offsets: number[] }[]) out.push(...p.offsets);
  return out;
}

describe('partition leadership changes', () => {
  it('NOT_LEADER_OR_FOLLOWER: the consumer refreshes metadata and fetches from the new leader, losing and repeating nothing', () => {
    const w = new FakeWorld({ seed: 101, brokers: 2, topics: [{ name: 't', partitions: 1 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'auto.offset.reset': 'earliest' } });
    w.produce('t', 0, { count: 200, perBatch: 2, everyMs: 50 });
    w.world.scheduler.at(2_000_000, () => w.cluster.moveLeader('t', 0, 1 - w.cluster.partition('t', 0).leader));
    w.start();
    w.runUntilMs(15_000);
    expect(polled(w)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // The position was checked against the new leader's epoch (KIP-320) and found good.
    expect(w.events('consumer.truncation')).toHaveLength(0);
  });

  it('a new leader with a shorter log: OffsetsForLeaderEpoch detects the truncation and the consumer continues from where the logs diverge', () => {
    const w = new FakeWorld({ seed: 102, brokers: 2, topics: [{ name: 't', partitions: 1 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'auto.offset.reset': 'earliest' } });
    w.produce('t', 0, { count: 100, perBatch: 10 });
    w.start();
    w.runUntilMs(3000);
    expect(polled(w).length).toBe(100);
    // Unclean election: the new leader only had the first 80 records; then new records arrive.
    w.cluster.truncate('t', 0, 80);
    w.cluster.moveLeader('t', 0, 1 - w.cluster.partition('t', 0).leader);
    w.produce('t', 0, { count: 30, perBatch: 10, startMs: 3000, value: (i) => `new:${80 + i}` });
    w.runUntilMs(10_000);
    const t = w.events('consumer.truncation');
    expect(t).toHaveLength(1);
    expect(t[0]).toMatchObject({ position: 100, endOffset: 80 });
    // It reads the new leader's records 80..109 (80..99 are different records now).
    const after = w.events('consumer.poll').filter((e) => (e.t as number) > 3_000_000);
    const values = after.flatMap((e) => (e.records as { values: string[] }[]).flatMap((r) => r.values));
    expect(values).toEqual(Array.from({ length: 30 }, (_, i) => `new:${80 + i}`));
  });
});
