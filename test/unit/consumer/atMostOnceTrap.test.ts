import { describe, expect, it } from 'vitest';
import { FakeWorld } from '../../support/fakeBroker';

function processedOffsets(w: FakeWorld): Set<number> {
  const s = new Set<number>();
  for (const e of w.events('consumer.processed')) for (const o of e.offsets as number[]) s.add(o);
  return s;
}

function scenario(handoff: boolean) {
  const w = new FakeWorld({ seed: 61, topics: [{ name: 't', partitions: 1 }] });
  w.addConsumer('c1', {
    topics: ['t'],
    config: { 'group.id': 'g', 'auto.offset.reset': 'earliest', 'enable.auto.commit': true, 'auto.commit.interval.ms': 1000, 'session.timeout.ms': 10_000 },
    processing: { commit: 'auto', recordTime: { kind: 'fixed', ms: 5 }, ...(handoff ? { handoff: {} } : {}) },
  });
  w.produce('t', 0, { count: 2000, perBatch: 100 });
  w.start();
  w.runUntilMs(4000);
  const committedAtCrash = w.cluster.committed('g', 't', 0)!;
  const processedAtCrash = processedOffsets(w).size;
  w.world.host('h-c1').crash();
  w.world.host('h-c1').restart(0);
  w.runUntilMs(60_000);
  return { w, committedAtCrash, processedAtCrash };
}

describe('auto-commit with processing on another thread', () => {
  it('loses records when the consumer crashes: positions were committed before the worker processed them', () => {
    const { w, committedAtCrash, processedAtCrash } = scenario(true);
    // The poll thread raced ahead and auto-commit stored its positions, far past what the worker had done.
    expect(committedAtCrash).toBe(2000);
    expect(processedAtCrash).toBeLessThan(1000);
    const processed = processedOffsets(w);
    const lost = [];
    for (let o = 0; o < 2000; o++) if (!processed.has(o)) lost.push(o);
    // Everything the worker had not reached is gone for good: the restart resumes at 2000.
    expect(lost.length).toBe(2000 - processedAtCrash);
    expect(lost[0]).toBe(processedAtCrash);
    expect(w.events('consumer.poll').filter((e) => (e.t as number) > 4_000_000)).toHaveLength(0);
  });

  it('processing on the polling thread is at-least-once: the same crash loses nothing (it re-reads instead)', () => {
    const { w, committedAtCrash, processedAtCrash } = scenario(false);
    // poll N+1 commits what poll N returned, and poll N's records were processed before poll N+1.
    expect(committedAtCrash).toBeLessThanOrEqual(processedAtCrash);
    const processed = processedOffsets(w);
    for (let o = 0; o < 2000; o++) expect(processed.has(o)).toBe(true);
    // Records processed after the last commit before the crash were processed twice.
    let twice = 0;
    const counts = new Map<number, number>();
    for (const e of w.events('consumer.processed')) for (const o of e.offsets as number[]) counts.set(o, (counts.get(o) ?? 0) + 1);
    for (const n of counts.values()) if (n > 1) twice++;
    expect(twice).toBe(processedAtCrash - committedAtCrash);
  });
});
