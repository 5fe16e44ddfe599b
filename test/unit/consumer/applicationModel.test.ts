import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

function polledAfter(w: FakeWorld, node: string, afterUs: number): number[] {
  const out: number[] = [];
  for (const e of w.events('consumer.poll')) {
    if (e.node !== node || (e.t as number) <= afterUs) continue;
    for (const p of e.records as { offsets: number[] }[]) out.push(...p.offsets);
  }
  return out;
}

describe('the application loop', () => {
  it('seek to the beginning at a given time: the group rewinds and replays the partition', () => {
    const w = new FakeWorld({ seed: 91, topics: [{ name: 't', partitions: 1 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'auto.offset.reset': 'earliest' }, processing: { seeks: [{ atMs: 10_000, to: 'beginning' }] } });
    w.produce('t', 0, { count: 300, perBatch: 100 });
    w.start();
    w.runUntilMs(20_000);
    const seek = w.events('consumer.seek');
    expect(seek).toHaveLength(1);
    expect(seek[0]!.partitions).toEqual(['t-0']);
    expect(w.events('consumer.offset.reset').filter((e) => e.reason === 'seekToBeginning').map((e) => [e.from, e.to])).toEqual([[300, 0]]);
    expect(polledAfter(w, 'c1', 10_000_000)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('seek to a time: ListOffsets finds the first record at or after it', () => {
    const w = new FakeWorld({ seed: 92, topics: [{ name: 't', partitions: 1 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'auto.offset.reset': 'earliest' }, processing: { seeks: [{ atMs: 10_000, to: { timestampMs: 2000 } }] } });
    // One record every 10 ms from 0 to 3 s: the record stamped 2000 ms is offset 200.
    w.produce('t', 0, { count: 300, perBatch: 1, everyMs: 10 });
    w.start();
    w.runUntilMs(20_000);
    const after = polledAfter(w, 'c1', 10_000_000);
    expect(after[0]).toBe(200);
    expect(after).toEqual(Array.from({ length: 100 }, (_, i) => 200 + i));
  });

  it('close(): a dynamic member commits, revokes and leaves; the group is empty afterwards', () => {
    const w = new FakeWorld({ seed: 93, topics: [{ name: 't', partitions: 2 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'auto.commit.interval.ms': 60_000 }, processing: { stopMs: 5000 } });
    for (let p = 0; p < 2; p++) w.produce('t', p, { count: 50, perBatch: 10 });
    w.start();
    w.runUntilMs(10_000);
    // The only commit is the one close() makes (the auto-commit interval never came round).
    const commits = w.events('consumer.commit');
    expect(commits.map((e) => [e.source, e.ok])).toEqual([['close', true]]);
    expect(w.cluster.committed('g', 't', 0)).toBe(50);
    expect(w.cluster.committed('g', 't', 1)).toBe(50);
    expect(w.events('consumer.leave').map((e) => [e.reason, e.sent])).toEqual([['the consumer is being closed', true]]);
    expect(w.events('group.member.leave')).toHaveLength(1);
    expect(w.broker(0)!.coordinator.describeGroup('g')!.state).toBe('Empty');
    const last = w.events('consumer.assignment').at(-1)!;
    expect(last.revoked).toEqual(['t-0', 't-1']);
    expect(w.events('process.exit').map((e) => [e.process, e.reason])).toEqual([['c1', 'closed']]);
  });

  it('close() of a static member does not send LeaveGroup: it stays in the group until its session times out', () => {
    const w = new FakeWorld({ seed: 94, topics: [{ name: 't', partitions: 2 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'group.instance.id': 'i1', 'auto.offset.reset': 'earliest', 'session.timeout.ms': 10_000 }, processing: { stopMs: 5000 } });
    w.start();
    w.runUntilMs(9000);
    expect(w.events('consumer.leave').map((e) => e.sent)).toEqual([false]);
    expect(w.events('group.member.leave')).toHaveLength(0);
    expect(w.broker(0)!.coordinator.describeGroup('g')!.members).toHaveLength(1);
    w.runUntilMs(20_000);
    expect(w.events('group.member.expire').map((e) => e.groupInstanceId)).toEqual(['i1']);
  });

  it('auto.offset.reset=none with no committed offset: NoOffsetForPartitionException, and the consumer stops', () => {
    const w = new FakeWorld({ seed: 95, topics: [{ name: 't', partitions: 1 }] });
    w.addConsumer('c1', { topics: ['t'], config: { 'group.id': 'g', 'auto.offset.reset': 'none' } });
    w.start();
    w.runUntilMs(5000);
    expect(w.events('consumer.error').map((e) => e.error)).toEqual(['NoOffsetForPartitionException']);
    expect(w.events('process.exit').map((e) => e.process)).toEqual(['c1']);
  });

  it('manual assignment without a group: starts from auto.offset.reset and reads its partitions', () => {
    const w = new FakeWorld({ seed: 96, topics: [{ name: 't', partitions: 3 }] });
    w.addConsumer('c1', { assign: [{ topic: 't', partition: 1 }], config: { 'auto.offset.reset': 'earliest' } });
    for (let p = 0; p < 3; p++) w.produce('t', p, { count: 20 });
    w.start();
    w.runUntilMs(5000);
    const polled = w.events('consumer.poll').flatMap((e) => (e.records as { partition: number; offsets: number[] }[]).map((r) => [r.partition, r.offsets.length]));
    expect(polled.every(([p]) => p === 1)).toBe(true);
    expect(polled.reduce((n, [, k]) => n + (k as number), 0)).toBe(20);
    expect(w.events('consumer.commit')).toHaveLength(0);
  });
});
