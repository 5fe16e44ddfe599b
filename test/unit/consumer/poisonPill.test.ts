import { describe, expect, it } from 'vitest';
import type { PoisonPolicy } from '../../../sim/kafka/client/consumer/processingModel';
import { FakeWorld } from '../../support/fakeBroker';

function scenario(policy: PoisonPolicy) {
  const w = new FakeWorld({ seed: 81, topics: [{ name: 't', partitions: 2 }, { name: 't.DLT', partitions: 1 }] });
  w.addConsumer('c1', {
    topics: ['t'],
    config: { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'enable.auto.commit': false, 'max.poll.records': 20 },
    processing: { commit: 'sync', recordTime: { kind: 'fixed', ms: 1 }, poisonPills: [{ valuePrefix: 'POISON', policy }] },
  });
  w.produce('t', 0, { count: 200, perBatch: 10, value: (i) => (i === 50 ? `POISON:${i}` : `t-0:${i}`), key: (i) => `k${i}` });
  w.produce('t', 1, { count: 200, perBatch: 10 });
  w.start();
  w.runUntilMs(20_000);
  const processed = new Map<number, number[]>();
  for (const e of w.events('consumer.processed')) {
    const list = processed.get(e.partition as number) ?? [];
    list.push(...(e.offsets as number[]));
    processed.set(e.partition as number, list);
  }
  return { w, processed, fails: w.events('consumer.process.fail') };
}

describe('poison pills', () => {
  it('retry for ever: the pill blocks its partition (nothing after it is processed or committed); other partitions go on', () => {
    const { w, processed, fails } = scenario({ kind: 'retry-forever', backoffMs: 100 });
    expect(w.cluster.committed('g', 't', 0)).toBe(50);
    expect(w.cluster.committed('g', 't', 1)).toBe(200);
    expect(Math.max(...processed.get(0)!)).toBe(49);
    expect(processed.get(1)!.length).toBe(200);
    // It keeps trying: every failure is the same record, the attempts count up.
    expect(fails.length).toBeGreaterThan(20);
    expect(new Set(fails.map((e) => e.offset))).toEqual(new Set([50]));
    expect(fails.map((e) => e.attempt).slice(0, 3)).toEqual([1, 2, 3]);
    expect(fails.every((e) => e.action === 'retry')).toBe(true);
  });

  it('skip: the pill is logged and passed over', () => {
    const { w, processed, fails } = scenario({ kind: 'skip' });
    expect(fails.map((e) => [e.offset, e.action])).toEqual([[50, 'skip']]);
    expect(w.cluster.committed('g', 't', 0)).toBe(200);
    expect(processed.get(0)!.length).toBe(199);
    expect(processed.get(0)!.includes(50)).toBe(false);
  });

  it('dead letter after 3 tries: the partition is blocked until the pill is written to the DLT, then goes on', () => {
    const { w, processed, fails } = scenario({ kind: 'dead-letter', topic: 't.DLT', attempts: 3, backoffMs: 50 });
    expect(fails.map((e) => [e.offset, e.attempt, e.action])).toEqual([
      [50, 1, 'retry'],
      [50, 2, 'retry'],
      [50, 3, 'dead-letter'],
    ]);
    const dlt = w.events('consumer.dead-letter');
    expect(dlt).toHaveLength(1);
    expect(dlt[0]).toMatchObject({ topic: 't.DLT', partition: 0, offset: 0, sourceTopic: 't', sourcePartition: 0, sourceOffset: 50, key: 'k50', value: 'POISON:50', ok: true });
    // The dead-letter topic holds the record.
    const part = w.cluster.partition('t.DLT', 0);
    expect(part.logEndOffset).toBe(1);
    expect(part.batches[0]!.valueAt(0)).toBe('POISON:50');
    // The partition moved on past the pill; records after it were processed only once the pill was dead-lettered.
    expect(w.cluster.committed('g', 't', 0)).toBe(200);
    expect(processed.get(0)!.filter((o) => o > 50).length).toBe(149);
    const firstAfter = w.events('consumer.processed').find((e) => e.partition === 0 && (e.offsets as number[]).some((o) => o > 50))!;
    expect(firstAfter.t as number).toBeGreaterThan(dlt[0]!.t as number);
  });
});
