import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ofKind, type TraceEventOf, type TraceKind } from '../../sim/core/trace';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// End-to-end checks of the producer (issue 7's done-means) on the real cluster: brokers, controllers, network.

function run(spec: Record<string, unknown>, seed = 1): RunResult {
  return runScenario(validateScenario(spec), { seed, hash: false });
}

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(process.cwd(), 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

/** The same scenario with other producer configs. */
function withProducerConfig(spec: ScenarioSpec, config: Record<string, unknown>): ScenarioSpec {
  return { ...spec, producers: spec.producers!.map((p) => ({ ...p, config: { ...p.config, ...config } })) };
}

const count = (r: RunResult, check: string) => r.checks[check]?.count ?? 0;
const events = <K extends TraceKind>(r: RunResult, kind: K): TraceEventOf<K>[] => ofKind(r.trace, kind);

const cluster = { controllers: 1, brokers: 3 };

describe('the producer on a real cluster', () => {
  it('sticky partitioning spreads 10,000 keyless records over every partition in full batches', () => {
    const r = run({
      id: 'sticky',
      duration: '3s',
      quiet: '2s',
      cluster,
      topics: [{ name: 'events', partitions: 6, replicationFactor: 1 }],
      producers: [{ id: 'p', workload: { topic: 'events', rate: 50_000, maxRecords: 10_000, valueBytes: 100 } }],
    });
    const oks = events(r, 'send.ok');
    const perBatch = oks.map((e) => (e.values as string[]).length);
    const total = perBatch.reduce((a, b) => a + b, 0);
    expect(total).toBe(10_000);
    // A keyless record with a declared 100-byte value is 109 bytes (110 once its offset delta needs two bytes),
    // so a 16384-byte batch holds 64 * 109 + 84 * 110 = 16216 bytes of records behind its 61-byte header: 148.
    const fullBatch = 148;
    // 148 records (16277 bytes) stay just under batch.size, so the sticky partitioner switches when the second
    // batch can take no more (KIP-794: at a batch boundary, after batch.size bytes): two full batches per stint.
    // Only a batch sent by linger.ms before it filled can be smaller.
    const inFull = perBatch.filter((n) => n >= fullBatch - 1).reduce((a, b) => a + b, 0);
    expect(inFull / total).toBeGreaterThan(0.9);
    expect(total / oks.length).toBeGreaterThan(0.8 * fullBatch);
    // Every partition got records (a uniform share is 1667; the partition is drawn at random about 34 times,
    // once per stint of two full batches, so shares vary, but none is left out or takes half).
    const perPartition = new Map<number, number>();
    for (const e of oks) perPartition.set(e.partition as number, (perPartition.get(e.partition as number) ?? 0) + (e.values as string[]).length);
    expect([...perPartition.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const n of perPartition.values()) {
      expect(n).toBeGreaterThanOrEqual(296);
      expect(n).toBeLessThan(5000);
    }
  });

  it('without idempotence, 5 requests in flight and lost responses write records twice and out of order; with it, neither', () => {
    const spec = library('retries-without-idempotence-reorder');
    for (const seed of [1, 2, 3]) {
      const off = run(withProducerConfig(spec, { 'enable.idempotence': false }) as unknown as Record<string, unknown>, seed);
      expect(count(off, 'duplicate'), `seed ${seed}`).toBeGreaterThan(0);
      expect(count(off, 'nonmonotonic-send'), `seed ${seed}`).toBeGreaterThan(0);
      expect(count(off, 'lost-write')).toBe(0);
      const on = run(withProducerConfig(spec, { 'enable.idempotence': true }) as unknown as Record<string, unknown>, seed);
      expect(count(on, 'duplicate'), `seed ${seed}`).toBe(0);
      expect(count(on, 'nonmonotonic-send'), `seed ${seed}`).toBe(0);
      expect(count(on, 'lost-write')).toBe(0);
      // The same faults hit both: the idempotent producer retried too, in sequence order.
      expect(events(on, 'send.retry').length).toBeGreaterThan(0);
    }
  });

  it('a leader change mid-stream re-routes sends to the new leader and loses nothing acknowledged (acks=all)', () => {
    const r = run({
      id: 'leader-change',
      duration: '25s',
      quiet: '10s',
      cluster: { controllers: 3, brokers: 3 },
      topics: [{ name: 'orders', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
      producers: [{ id: 'p', workload: { topic: 'orders', rate: 300, keys: { kind: 'uniform', count: 20 } } }],
      faults: [{ at: '5s', fault: 'crash', targets: ['leader:orders/0'], duration: '10s' }],
    });
    const elections = events(r, 'controller.election');
    expect(elections.length).toBeGreaterThanOrEqual(1);
    const old = elections[0]!.previousLeader as number;
    const electedAt = elections[0]!.t;
    const before = events(r, 'send.ok').filter((e) => e.t < electedAt);
    const after = events(r, 'send.ok').filter((e) => e.t > electedAt);
    expect(before.every((e) => e.broker === old)).toBe(true);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((e) => e.broker === elections[0]!.leader)).toBe(true);
    expect(count(r, 'lost-write')).toBe(0);
    expect(count(r, 'duplicate')).toBe(0);
    expect(count(r, 'nonmonotonic-send')).toBe(0);
    expect(count(r, 'send-failed')).toBe(0);
  });

  it('sees new partitions only on a metadata refresh (metadata.max.age.ms)', () => {
    const r = run({
      id: 'grow',
      duration: '20s',
      quiet: '2s',
      cluster,
      topics: [{ name: 'orders', partitions: 2, replicationFactor: 3 }],
      producers: [{ id: 'p', config: { 'metadata.max.age.ms': 4000 }, workload: { topic: 'orders', rate: 200, keys: { kind: 'uniform', count: 50 } } }],
      actions: [{ at: '5s', action: 'create-partitions', topic: 'orders', count: 4 }],
    });
    const answered = events(r, 'admin.create-partitions');
    expect(answered.map((e) => e.error)).toEqual(['NONE']);
    const firstNew = events(r, 'send.invoke').find((e) => (e.partition as number) >= 2)!;
    expect(firstNew.t).toBeGreaterThan(answered[0]!.t);
    // Found on the periodic refresh: at most metadata.max.age.ms after the change (plus the refresh's round trip).
    expect(firstNew.t - answered[0]!.t).toBeLessThanOrEqual(4_100_000);
    expect(count(r, 'keys.moved-partition')).toBeGreaterThan(0);
  });

  it('a full buffer.memory blocks send() for max.block.ms, then fails it; unacknowledged batches expire at delivery.timeout.ms', () => {
    const r = run({
      id: 'exhausted',
      duration: '12s',
      quiet: '10s',
      cluster,
      topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
      producers: [
        {
          id: 'p',
          config: { 'buffer.memory': 65_536, 'max.block.ms': 500, 'request.timeout.ms': 2000, 'delivery.timeout.ms': 3000 },
          workload: { topic: 'orders', rate: 2000, valueBytes: 100 },
        },
      ],
      faults: [{ at: '2s', fault: 'one-way', from: ['p'], to: ['leader:orders/0'], duration: '8s' }],
    });
    expect(count(r, 'errors.BUFFER_EXHAUSTED')).toBeGreaterThan(0);
    expect(count(r, 'errors.TIMEOUT')).toBeGreaterThan(0);
    const fails = events(r, 'send.fail');
    const exhausted = fails.filter((e) => e.error === 'BUFFER_EXHAUSTED');
    // Never written: a send that never got memory is a definite failure.
    expect(exhausted.every((e) => e.definite === true)).toBe(true);
    // No blocked send failed before it had waited max.block.ms.
    const invoked = new Map(events(r, 'send.invoke').map((e) => [e.value as string, e.t]));
    for (const e of exhausted) expect(e.t - invoked.get((e.values as string[])[0]!)!).toBeGreaterThanOrEqual(500_000);
    // Expired batches failed no earlier than delivery.timeout.ms after their first record was sent.
    for (const e of fails.filter((f) => f.error === 'TIMEOUT')) expect(e.t - invoked.get((e.values as string[])[0]!)!).toBeGreaterThanOrEqual(3_000_000);
    expect(count(r, 'acked')).toBeGreaterThan(0);
  });
});
