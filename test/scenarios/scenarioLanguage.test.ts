import { describe, expect, it } from 'vitest';
import { JsonlSink, ofKind } from '../../sim/core/trace';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import { checkSavedTrace } from '../../sim/scenario/savedTrace';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

/*
 * The scenario language for precise failure cases (issue 23), each case with the outcome a Kafka expert
 * predicts: tombstones and the cleaner's delete horizon, per-partition figures and the final leader, and
 * expectations over a window that leaves a crash out or takes it in.
 */

const observed = (r: RunResult, check: string, i = 0) => r.expectations.filter((e) => e.check === check)[i]?.actual;

/** Ten keys written for 5 s, then a tombstone for k3 at 6 s; a filler key keeps segments rolling so the cleaner has work. */
function tombstoneSpec(deleteRetentionMs: number | undefined): ScenarioSpec {
  return {
    id: 'tombstones',
    duration: '16s',
    quiet: '3s',
    cluster: { brokers: 3, broker: { 'log.cleaner.backoff.ms': 1000 } },
    topics: [
      {
        name: 'prices',
        partitions: 1,
        replicationFactor: 3,
        config: { 'cleanup.policy': 'compact', 'segment.bytes': 16384, 'min.insync.replicas': 2, ...(deleteRetentionMs !== undefined && { 'delete.retention.ms': deleteRetentionMs }) },
      },
    ],
    producers: [
      {
        id: 'p1',
        config: { acks: 'all' },
        workload: [
          { topic: 'prices', rate: 100, stop: '5s', keys: { kind: 'uniform', count: 10 } },
          { topic: 'prices', at: ['6s'], keys: { kind: 'fixed', key: 'k3' }, tombstones: true },
          { topic: 'prices', rate: 100, start: '7s', keys: { kind: 'fixed', key: 'filler' } },
        ],
      },
    ],
    consumers: [{ id: 'c1', group: 'g', topics: ['prices'], config: { 'auto.offset.reset': 'earliest' } }],
    expect: [
      { check: 'final.tombstones.prices-0', op: '>=', value: 0 },
      { check: 'tombstones.removed.prices-0', op: '>=', value: 0 },
    ],
  };
}

describe('tombstones and the delete horizon (delete.retention.ms)', () => {
  it('a tombstone deletes its key: the cleaner drops the older values, then the tombstone once delete.retention.ms has passed', () => {
    const r = runScenario(validateScenario(tombstoneSpec(2000)), { hash: false });
    // Each replica's cleaner removes its own copy of the tombstone, once.
    expect(observed(r, 'tombstones.removed.prices-0')).toBe(3);
    expect(observed(r, 'final.tombstones.prices-0')).toBe(0);
    expect(r.checks['tombstones.removed']!.count).toBeGreaterThanOrEqual(3);
    expect(r.checks['final.tombstones']!.count).toBe(0);
    const final = ofKind(r.trace, 'final.partition').find((e) => e.topic === 'prices')!;
    expect(final.keys).not.toContain('k3');
    expect(final.keys).toContain('k4');
    // k3's values went with the delete, and the tombstone with its horizon: gone legitimately, not lost.
    expect(r.checks['lost-write']!.count).toBe(0);
    expect(r.checks['inconsistent-offsets']!.count).toBe(0);
    // The tombstone went out as a null value, and the consumer read it as one, so it is not unseen (the group
    // joins after group.initial.rebalance.delay.ms, by when the cleaner has already compacted the first values away).
    const sent = ofKind(r.trace, 'send.invoke').filter((e) => e.tombstone === true);
    expect(sent.map((e) => e.key)).toEqual(['k3']);
    expect(ofKind(r.trace, 'consumer.poll').some((e) => e.records.some((p) => p.values.includes(null)))).toBe(true);
    expect(r.checks.unseen!.values).not.toContain(sent[0]!.value);
  });

  it("with Kafka's default delete.retention.ms (24 h) the tombstone stays, and it is k3's only record", () => {
    const r = runScenario(validateScenario(tombstoneSpec(undefined)), { hash: false });
    expect(observed(r, 'tombstones.removed.prices-0')).toBe(0);
    expect(observed(r, 'final.tombstones.prices-0')).toBe(1);
    expect(r.checks['final.tombstones']!.count).toBe(1);
    expect(r.checks['lost-write']!.count).toBe(0);
    expect(r.checks['inconsistent-offsets']!.count).toBe(0);
    const final = ofKind(r.trace, 'final.partition').find((e) => e.topic === 'prices')!;
    expect(final.keys.flatMap((k, i) => (k === 'k3' ? [final.values[i]] : []))).toEqual([null]);
  });

  it('a share of tombstones: about that share of the sends carry a null value, and none is taken for lost', () => {
    const spec: ScenarioSpec = {
      id: 'tombstone-share',
      duration: '4s',
      quiet: '1s',
      topics: [{ name: 't', partitions: 1, replicationFactor: 1, config: { 'cleanup.policy': 'compact' } }],
      producers: [{ id: 'p1', workload: { topic: 't', rate: 400, keys: { kind: 'uniform', count: 20 }, tombstones: 0.25 } }],
      consumers: [{ id: 'c1', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest' } }],
    };
    const r = runScenario(validateScenario(spec), { hash: false });
    const sends = ofKind(r.trace, 'send.invoke');
    const share = sends.filter((e) => e.tombstone === true).length / sends.length;
    expect(sends.length).toBeGreaterThan(1200);
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.3);
    for (const c of ['lost-write', 'lost-write-jepsen', 'inconsistent-offsets', 'unseen', 'unseen.g']) expect(r.checks[c]!.count, c).toBe(0);
  });
});

describe('per-partition figures, the final leader, and a window around a crash', () => {
  // orders-0 prefers broker 2, orders-1 broker 3; broker 2 crashes at 10 s and is down until 30 s. With acks=1 a
  // partition answers as soon as its leader has the record: only the partition whose leader crashed stalls.
  const spec: ScenarioSpec = {
    id: 'window',
    duration: '30s',
    quiet: '5s',
    topics: [{ name: 'orders', assignment: [[2, 1, 3], [3, 1, 2]] }],
    producers: [{ id: 'p1', config: { acks: '1' }, workload: { topic: 'orders', rate: 100, keys: { kind: 'uniform', count: 50 } } }],
    faults: [{ at: '10s', fault: 'crash', targets: ['broker-2'], duration: '20s' }],
    expect: [
      { check: 'unavailability.longest-ms.orders-0', op: '>', value: 5000, description: 'its leader crashed: no acknowledgement until the controller fences broker 2 and elects another' },
      { check: 'unavailability.longest-ms.orders-1', op: '<', value: 1000, description: 'orders-1 never lost its leader: acks=1 answers at once' },
      { check: 'unavailability.longest-ms.orders-0', op: '<', value: 200, during: ['0s', '9s'], description: 'before the crash orders-0 answers within milliseconds' },
      { check: 'unavailability.longest-ms.orders-0', op: '>', value: 5000, during: ['9s', '25s'], description: 'a window around the crash sees the stall' },
      { check: 'unavailability.longest-ms', op: '<', value: 200, during: ['22s', '30s'], description: 'after the failover the run answers again' },
      { check: 'elections.orders-0', op: '>=', value: 1 },
      { check: 'elections.orders-1', op: '=', value: 0 },
      { check: 'elections.orders-0', op: '=', value: 0, during: ['0s', '9s'] },
      { check: 'partition.offline-ms.orders-0', op: '=', value: 0, description: 'the controller moved leadership to a live replica: never leaderless' },
      { check: 'leader.final.orders-0', op: '=', value: 1, description: 'the next replica of the assignment leads, and keeps leading after broker 2 returns (no preferred election within the run)' },
      { check: 'leader.final.orders-1', op: '=', value: 3 },
      { check: 'acked', op: '>', value: 800, during: ['0s', '9s'] },
      { check: 'acked.orders-1', op: '>', value: 0, during: ['12s', '18s'], description: 'orders-1 acknowledged sends while orders-0 stalled' },
      { check: 'acked.orders-0', op: '=', value: 0, during: ['12s', '18s'], description: 'orders-0 acknowledged none of the sends made while its leader was gone and not yet replaced' },
    ],
  };

  it('holds every expectation, and `kafkasim check` judges the saved trace the same', () => {
    let text = '';
    const r = runScenario(validateScenario(spec), { keepEvents: false, sinks: [new JsonlSink((l) => (text += l))] });
    for (const e of r.expectations) expect(e.ok, `${e.description} (observed ${e.actual})`).toBe(true);
    // The whole run's worst stall is orders-0's, and the window around the crash saw all of it.
    expect(r.checks['unavailability.longest-ms']!.count).toBe(observed(r, 'unavailability.longest-ms.orders-0'));
    expect(observed(r, 'unavailability.longest-ms.orders-0', 2)).toBe(observed(r, 'unavailability.longest-ms.orders-0'));
    expect(r.checks['leader.final.orders-0']!.count).toBe(1);
    // Figures nobody named are not computed.
    expect(Object.keys(r.checks).filter((k) => k.endsWith('.orders-2') || k.startsWith('final.records.'))).toEqual([]);
    const saved = checkSavedTrace(text);
    expect(saved.expectations).toEqual(r.expectations);
    expect(saved.checks).toEqual(r.checks);
  });
});
