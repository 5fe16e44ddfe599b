import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

interface Outcome {
  /** Sum over members of the time they stopped processing their partitions because of a rebalance (consumer.pause). */
  pauseMs: number;
  /** Rebalances after the newcomer joined. */
  rebalances: number;
  /** For each of c1..c3: records processed while the group was rebalancing for the newcomer. */
  processedDuringRebalance: number[];
}

/**
 * Three busy members (each poll returns up to 500 records at ~8 ms a record, so a batch takes seconds), and a fourth
 * that joins at 20 s. The rebalance window runs from the newcomer's JoinGroup to the moment it owns partitions.
 */
function run(strategy: string[], seed: number): Outcome {
  const w = new FakeWorld({ seed, topics: [{ name: 't', partitions: 6 }] });
  const config = {
    'group.id': 'g',
    'auto.offset.reset': 'earliest',
    'partition.assignment.strategy': strategy,
    'max.poll.records': 500,
    'session.timeout.ms': 10_000,
    'heartbeat.interval.ms': 3000,
  };
  const recordTime = { kind: 'exponential' as const, meanMs: 8 };
  for (let i = 1; i <= 3; i++) w.addConsumer(`c${i}`, { topics: ['t'], config, processing: { recordTime, startMs: (i - 1) * 1100 } });
  w.addConsumer('c4', { topics: ['t'], config, processing: { recordTime, startMs: 20_000 } });
  for (let p = 0; p < 6; p++) w.produce('t', p, { count: 6000, perBatch: 10, everyMs: 100 });
  w.start();
  w.runUntilMs(60_000);
  const joinedAt = w.events('group.member.join').find((e) => e.clientId === 'c4')!.t as number;
  const ownsAt = w.events('consumer.assignment').find((e) => e.node === 'c4' && (e.owned as string[]).length > 0)!.t as number;
  let pauseMs = 0;
  for (const e of w.events('consumer.pause')) if ((e.t as number) > joinedAt) pauseMs += e.durationMs as number;
  const processedDuringRebalance = ['c1', 'c2', 'c3'].map((node) => {
    let n = 0;
    for (const e of w.events('consumer.processed')) if (e.node === node && (e.t as number) > joinedAt && (e.t as number) < ownsAt) n += (e.offsets as number[]).length;
    return n;
  });
  return { pauseMs, rebalances: w.events('group.rebalance').filter((e) => (e.t as number) > joinedAt).length, processedDuringRebalance };
}

describe('cooperative rebalancing pauses processing less than eager', () => {
  it('a member joins a busy group: eager members stop everything until the new assignment, cooperative members never stop', () => {
    for (const seed of [41, 42]) {
      const eager = run(['range'], seed);
      const coop = run(['cooperative-sticky'], seed);
      // Eager: one rebalance, during which every member has revoked everything and waits for the slowest to rejoin.
      expect(eager.rebalances).toBe(1);
      expect(eager.pauseMs).toBeGreaterThan(1000);
      // Cooperative: two rebalances (the second hands over what the first took away) and no member pauses.
      expect(coop.rebalances).toBe(2);
      expect(coop.pauseMs).toBe(0);
      // While the newcomer waits for its partitions, every cooperative member keeps processing its own.
      for (const n of coop.processedDuringRebalance) expect(n).toBeGreaterThan(0);
    }
  });
});
