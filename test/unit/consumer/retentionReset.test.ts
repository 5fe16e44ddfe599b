import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

describe('a consumer down longer than retention', () => {
  it('auto.offset.reset=latest: its committed offset is gone, it jumps to the end and silently skips what is left', () => {
    const { w, polled, after } = scenarioAt('latest');
    const reset = w.events('consumer.offset.reset').filter((e) => e.reason === 'offset out of range');
    expect(reset).toHaveLength(1);
    expect(reset[0]).toMatchObject({ from: 500, to: 1500, strategy: 'latest' });
    // 1,200..1,499 were still in the log but are never read: unseen.
    for (let o = 1200; o < 1500; o++) expect(polled.has(o)).toBe(false);
    expect(after[0]).toBe(1500);
    expect(after).toEqual(Array.from({ length: 100 }, (_, i) => 1500 + i));
  });

  it('auto.offset.reset=earliest: it re-reads from the log start', () => {
    const { w, after } = scenarioAt('earliest');
    const reset = w.events('consumer.offset.reset').filter((e) => e.reason === 'offset out of range');
    expect(reset).toHaveLength(1);
    expect(reset[0]).toMatchObject({ from: 500, to: 1200, strategy: 'earliest' });
    expect(after).toEqual(Array.from({ length: 400 }, (_, i) => 1200 + i));
  });

  it('auto.offset.reset=none: the consumer reports OffsetOutOfRangeException and stops', () => {
    const { w } = scenarioAt('none');
    const errors = w.events('consumer.error');
    expect(errors.map((e) => [e.error, e.fatal])).toEqual([['OffsetOutOfRangeException', true]]);
    expect(w.events('process.exit').map((e) => e.process)).toEqual(['c1']);
  });
});

/**
 * The group's committed offset is set to 0 before the consumer first starts (as an admin tool would), so every
 * policy reads 0..499 first and commits 500. Then the consumer is down while 1,000 more records arrive and
 * retention removes everything before 1,200; it restarts at 7 s; 100 more records arrive at 30 s.
 */
function scenarioAt(reset: 'latest' | 'earliest' | 'none') {
  const w = new FakeWorld({ seed: 71, topics: [{ name: 't', partitions: 1 }] });
  // A committed offset of 0 written as an admin tool would (no generation, empty group).
  w.world.scheduler.at(10_000, () => {
    w.broker(0)!.coordinator.handle('admin', { type: 'OffsetCommit', correlationId: 1, groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 0, leaderEpoch: -1, metadata: '' }] }, () => {});
  });
  w.addConsumer('c1', {
    topics: ['t'],
    config: { 'group.id': 'g', 'auto.offset.reset': reset, 'auto.commit.interval.ms': 1000, 'session.timeout.ms': 10_000 },
    processing: { startMs: 100 },
  });
  w.produce('t', 0, { count: 500, perBatch: 100 });
  w.start();
  w.runUntilMs(5000);
  if (w.cluster.committed('g', 't', 0) !== 500) throw new Error(`setup: committed ${w.cluster.committed('g', 't', 0)}`);
  w.world.host('h-c1').crash();
  w.produce('t', 0, { count: 1000, perBatch: 100, startMs: 6000, value: (i) => `t-0:${500 + i}` });
  w.runUntilMs(7000);
  w.cluster.deleteRecordsBefore('t', 0, 1200);
  w.world.host('h-c1').restart(0);
  w.produce('t', 0, { count: 100, perBatch: 100, startMs: 30_000, value: (i) => `t-0:${1500 + i}` });
  w.runUntilMs(40_000);
  const polled = new Set<number>();
  const after: number[] = [];
  for (const e of w.events('consumer.poll')) {
    for (const p of e.records as { offsets: number[] }[]) {
      for (const o of p.offsets) {
        polled.add(o);
        if ((e.t as number) > 7_000_000) after.push(o);
      }
    }
  }
  return { w, polled, after };
}
