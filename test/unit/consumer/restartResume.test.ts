import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { describeGroupOffsets, formatGroupOffsets } from '../../../sim/kafka/coordinator/consumerGroupLag';
import { FakeWorld } from '../../support/fakeBroker';

function offsetsOf(events: Record<string, unknown>[], field: 'records' | 'processed', after = 0, before = Infinity): number[] {
  const out: number[] = [];
  for (const e of events) {
    if ((e.t as number) < after || (e.t as number) >= before) continue;
    if (field === 'records') for (const p of e.records as { offsets: number[] }[]) out.push(...p.offsets);
    else out.push(...(e.offsets as number[]));
  }
  return out;
}

describe('a consumer restart resumes from the committed offset', () => {
  it('log end 1,500, committed 1,200: lag 300, and records 1,200 to 1,499 are read again', () => {
    const w = new FakeWorld({ seed: 21, topics: [{ name: 't', partitions: 1 }] });
    w.addConsumer('c1', {
      topics: ['t'],
      config: { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'enable.auto.commit': false, 'max.poll.records': 300, 'session.timeout.ms': 10_000 },
      processing: { commit: 'sync', recordTime: { kind: 'fixed', ms: 1 } },
    });
    w.produce('t', 0, { count: 1200, perBatch: 300, everyMs: 10 });
    w.start();
    w.runUntilMs(5000);
    expect(w.cluster.committed('g', 't', 0)).toBe(1200);

    // From now on __consumer_offsets refuses writes: the next commit cannot land.
    w.cluster.coordinatorAppendError = 'NOT_ENOUGH_REPLICAS';
    w.produce('t', 0, { count: 300, perBatch: 300, startMs: 5000, value: (i) => `t-0:${1200 + i}` });
    w.runUntilMs(8000);
    const processedBefore = offsetsOf(w.events('consumer.processed'), 'processed');
    // It processed everything up to 1,499 ...
    expect(Math.max(...processedBefore)).toBe(1499);
    // ... but its commit of 1,500 failed (and is being retried) when it crashes.
    expect(w.events('consumer.commit').some((e) => e.ok === false && (e.offsets as { offset: number }[])[0]?.offset === 1500)).toBe(true);
    const crashAt = w.world.now;
    w.world.host('h-c1').crash();
    w.cluster.coordinatorAppendError = null;
    w.runUntilMs(9000);

    // kafka-consumer-groups --describe: CURRENT-OFFSET 1200, LOG-END-OFFSET 1500, LAG 300.
    const rows = describeGroupOffsets(w.broker(0)!.coordinator.describeGroup('g')!, (t, p) => w.cluster.partition(t, p).highWatermark);
    expect(rows.map((r) => [r.topic, r.partition, r.currentOffset, r.logEndOffset, r.lag])).toEqual([['t', 0, 1200, 1500, 300]]);
    expect(formatGroupOffsets(rows).split('\n')[1]).toMatch(/^g +t +0 +1200 +1500 +300 /);

    w.world.host('h-c1').restart(0);
    w.runUntilMs(40_000);
    const polledAfter = offsetsOf(w.events('consumer.poll'), 'records', crashAt);
    // The new incarnation starts at the committed offset and reads 1,200..1,499 again, once each.
    expect(polledAfter[0]).toBe(1200);
    expect(polledAfter).toEqual(Array.from({ length: 300 }, (_, i) => 1200 + i));
    expect(w.cluster.committed('g', 't', 0)).toBe(1500);
    expect(w.world.now).toBe(ms(40_000));
  });
});
