import { describe, expect, it } from 'vitest';
import { describeGroupOffsets } from '../../../sim/kafka/coordinator/consumerGroupLag';
import { FakeWorld } from '../../support/fakeBroker';

/** Each consumer's owned partitions after its last assignment event. */
function finalOwnership(w: FakeWorld, group: string): Map<string, string[]> {
  const owned = new Map<string, string[]>();
  for (const e of w.events('consumer.assignment')) if (e.group === group) owned.set(e.node as string, e.owned as string[]);
  return owned;
}

describe('consumer groups on the fake broker', () => {
  it('6 partitions and 7 consumers in one group: exactly one consumer owns nothing', () => {
    const w = new FakeWorld({ seed: 11, topics: [{ name: 't', partitions: 6 }] });
    for (let i = 1; i <= 7; i++) w.addConsumer(`c${i}`, { topics: ['t'], config: { 'group.id': 'g' } });
    w.start();
    w.runUntilMs(20_000);
    const owned = finalOwnership(w, 'g');
    expect(owned.size).toBe(7);
    const counts = [...owned.values()].map((l) => l.length).sort();
    // range over 6 partitions and 7 members: six get one partition, one gets none.
    expect(counts).toEqual([0, 1, 1, 1, 1, 1, 1]);
    const all = [...owned.values()].flat().sort();
    expect(all).toEqual(['t-0', 't-1', 't-2', 't-3', 't-4', 't-5']);
    // The coordinator agrees: one generation, seven members, Stable.
    const d = w.broker(0)!.coordinator.describeGroup('g')!;
    expect(d.state).toBe('Stable');
    expect(d.members).toHaveLength(7);
    expect(d.members.filter((m) => m.assignment.length === 0)).toHaveLength(1);
  });

  it('two groups read one topic independently, each with its own committed offsets', () => {
    const w = new FakeWorld({ seed: 12, topics: [{ name: 't', partitions: 2 }] });
    const base = { 'auto.offset.reset': 'earliest', 'auto.commit.interval.ms': 1000 };
    w.addConsumer('a1', { topics: ['t'], config: { ...base, 'group.id': 'ga' } });
    // Group gb processes slowly (20 ms a record) and starts later: its offsets trail ga's.
    w.addConsumer('b1', { topics: ['t'], config: { ...base, 'group.id': 'gb', 'max.poll.records': 10 }, processing: { recordTime: { kind: 'fixed', ms: 20 }, startMs: 2000 } });
    for (let p = 0; p < 2; p++) w.produce('t', p, { count: 200, perBatch: 20, everyMs: 50 });
    w.start();
    w.runUntilMs(4000);
    const ga0 = w.cluster.committed('ga', 't', 0);
    const gb0 = w.cluster.committed('gb', 't', 0);
    // ga has read everything and committed it by now; gb, at 20 ms a record, cannot have.
    expect(ga0).toBe(200);
    expect(gb0).not.toBeNull();
    expect(gb0!).toBeLessThan(200);
    w.runUntilMs(40_000);
    expect(w.cluster.committed('ga', 't', 1)).toBe(200);
    expect(w.cluster.committed('gb', 't', 1)).toBe(200);
    // Each group saw every record exactly once (no failures, no rebalances after the first).
    for (const node of ['a1', 'b1']) {
      const seen = new Map<string, number>();
      for (const e of w.events('consumer.poll')) {
        if (e.node !== node) continue;
        for (const part of e.records as { partition: number; offsets: number[] }[]) for (const o of part.offsets) seen.set(`${part.partition}:${o}`, (seen.get(`${part.partition}:${o}`) ?? 0) + 1);
      }
      expect(seen.size).toBe(400);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    }
    // kafka-consumer-groups --describe: lag 0 for both groups.
    const rows = describeGroupOffsets(w.broker(0)!.coordinator.describeGroup('gb')!, (t, p) => w.cluster.partition(t, p).highWatermark);
    expect(rows.map((r) => [r.partition, r.currentOffset, r.logEndOffset, r.lag, r.clientId])).toEqual([
      [0, 200, 200, 0, 'b1'],
      [1, 200, 200, 0, 'b1'],
    ]);
  });

  it('a coordinator failover reloads the group and its offsets from __consumer_offsets; members carry on without a rebalance', () => {
    const w = new FakeWorld({ seed: 13, brokers: 2, topics: [{ name: 't', partitions: 4 }] });
    const config = { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'auto.commit.interval.ms': 1000, 'session.timeout.ms': 10_000, 'heartbeat.interval.ms': 1000 };
    w.addConsumer('c1', { topics: ['t'], config });
    w.addConsumer('c2', { topics: ['t'], config });
    for (let p = 0; p < 4; p++) w.produce('t', p, { count: 400, perBatch: 2, everyMs: 50 });
    const offsetsPartition = w.cluster.coordinatorPartitionOf('g');
    const oldCoordinator = w.cluster.offsetsLeaders.get(offsetsPartition)!.leader;
    const newCoordinator = 1 - oldCoordinator;
    w.start();
    w.runUntilMs(5000);
    const generation = w.broker(oldCoordinator)!.coordinator.describeGroup('g')!.generationId;
    const committedBefore = w.cluster.committed('g', 't', 0)!;
    expect(committedBefore).toBeGreaterThan(0);
    const rebalancesBefore = w.events('group.rebalance').length;
    w.cluster.moveCoordinator(offsetsPartition, newCoordinator);
    w.runUntilMs(30_000);
    // The old broker unloaded the group; the new one loaded it, with its members and its committed offsets.
    expect(w.events('group.unload').some((e) => e.node === `broker-${oldCoordinator}` && (e.groups as string[]).includes('g'))).toBe(true);
    const load = w.events('group.load').find((e) => e.node === `broker-${newCoordinator}` && e.partition === offsetsPartition)!;
    expect(load.groups).toEqual(['g']);
    expect(load.offsets as number).toBe(4);
    expect(w.broker(oldCoordinator)!.coordinator.describeGroup('g')).toBeNull();
    const d = w.broker(newCoordinator)!.coordinator.describeGroup('g')!;
    expect(d.state).toBe('Stable');
    expect(d.generationId).toBe(generation);
    expect(w.events('group.rebalance').length).toBe(rebalancesBefore);
    // Commits go on at the new coordinator, and everything is committed in the end.
    expect(w.events('group.offset.commit').some((e) => e.node === `broker-${newCoordinator}` && e.error === 'NONE')).toBe(true);
    for (let p = 0; p < 4; p++) expect(w.cluster.committed('g', 't', p)).toBe(400);
  });
});
