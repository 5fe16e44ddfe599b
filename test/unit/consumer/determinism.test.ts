import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

function run(seed: number): { hash: string; events: number } {
  const w = new FakeWorld({ seed, brokers: 2, topics: [{ name: 't', partitions: 4 }] });
  for (let i = 1; i <= 3; i++) {
    w.addConsumer(`c${i}`, {
      topics: ['t'],
      config: { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'session.timeout.ms': 6000, 'partition.assignment.strategy': ['cooperative-sticky'] },
      processing: { recordTime: { kind: 'exponential', meanMs: 3 }, startMs: i * 700 },
    });
  }
  for (let p = 0; p < 4; p++) w.produce('t', p, { count: 300, perBatch: 3, everyMs: 40 });
  w.world.scheduler.at(5_000_000, () => w.world.host('h-c2').crash());
  w.world.scheduler.at(9_000_000, () => w.world.host('h-c2').restart(0));
  w.start();
  w.runUntilMs(30_000);
  return { hash: w.world.trace.hash(), events: w.world.trace.count };
}

describe('consumer runs are deterministic', () => {
  it('one seed gives one trace hash; another seed gives another', () => {
    const a = run(5);
    const b = run(5);
    const c = run(6);
    expect(a.events).toBeGreaterThan(150);
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
  });
});
