import { describe, expect, it } from 'vitest';
import { buildBatch } from '../../../sim/kafka/records';
import { ms } from '../../../sim/core/time';
import { allRecords, eventsOf, openLog, processEnv, values } from './logTestKit';

const NO_WRITEBACK = { writebackDelayMs: null };

describe('opening a log after a crash or a power loss', () => {
  it('keeps everything after a process crash (the page cache survives)', () => {
    const { w, envOf, crashCycle } = processEnv(1, NO_WRITEBACK);
    const log = openLog(envOf(), { 'segment.bytes': 300 });
    for (let i = 0; i < 10; i++) log.appendAsLeader(values(2), 1, 0);
    crashCycle();
    const again = openLog(envOf(), { 'segment.bytes': 300 });
    expect(again.logEndOffset).toBe(20);
    expect(allRecords(again).map((r) => r.offset)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(eventsOf(w, 'log.recovery').at(-1)).toMatchObject({ logEndOffset: 20, droppedBatches: 0, stop: null, cleanShutdown: false });
  });

  it('keeps exactly what was fsynced after a power loss', () => {
    const { w, envOf, powerCycle } = processEnv(1, NO_WRITEBACK);
    const log = openLog(envOf());
    log.appendAsLeader(values(3), 1, 0);
    log.appendAsLeader(values(2), 1, 0);
    const done = log.flush();
    w.runUntil(done);
    log.appendAsLeader(values(4), 1, 0); // only in the page cache
    powerCycle();
    const again = openLog(envOf());
    expect(again.logEndOffset).toBe(5);
    expect(again.recoveryPoint).toBe(0); // no recovery-point checkpoint was given
    expect(allRecords(again).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(again.appendAsLeader(values(1), 2, 0)).toMatchObject({ kind: 'appended', firstOffset: 5 });
  });

  it('drops a torn batch and everything after it, and says so', () => {
    const { w, envOf, powerCycle } = processEnv(1, { writebackDelayMs: null, tornWriteProbability: 1 });
    const log = openLog(envOf(), { 'segment.bytes': 300 });
    for (let i = 0; i < 3; i++) log.appendAsLeader(values(2), 1, 0);
    w.runUntil(log.flush());
    // Two segments' worth more, none of it durable: the power loss tears the first lost write of each file.
    for (let i = 0; i < 6; i++) log.appendAsLeader(values(2), 1, 0);
    const files = log.logSegments().length;
    expect(files).toBeGreaterThan(2);
    powerCycle();
    const again = openLog(envOf(), { 'segment.bytes': 300 });
    expect(again.logEndOffset).toBe(6);
    expect(allRecords(again).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
    const ev = eventsOf(w, 'log.recovery').at(-1)!;
    expect(ev).toMatchObject({ stop: 'corrupt-batch', droppedFrom: 6, logEndOffset: 6 });
    expect(ev['droppedBatches']).toBeGreaterThanOrEqual(1);
    // Nothing is left on disk past the cut.
    expect(again.logSegments().every((s) => s.chunks().every((c) => c.torn !== true))).toBe(true);
  });

  it('truncates the leader-epoch cache to what survived', () => {
    const { w, envOf, powerCycle } = processEnv(1, NO_WRITEBACK);
    const log = openLog(envOf());
    log.appendAsLeader(values(3), 1, 0);
    w.runUntil(log.flush());
    log.appendAsLeader(values(2), 2, 0); // the epoch checkpoint becomes durable, the batch does not
    w.runUntil(w.now + ms(20));
    expect(log.leaderEpochCache.epochEntries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);
    powerCycle();
    const again = openLog(envOf());
    expect(again.logEndOffset).toBe(3);
    expect(again.leaderEpochCache.epochEntries()).toEqual([{ epoch: 1, startOffset: 0 }]);
  });

  it('accepts again an idempotent batch the power loss took away', () => {
    const { w, envOf, powerCycle } = processEnv(1, NO_WRITEBACK);
    const log = openLog(envOf());
    const p = (seq: number) => buildBatch([{ key: 'k', value: `v${seq}`, timestamp: 0 }], { producerId: 7, producerEpoch: 0, baseSequence: seq });
    log.appendAsLeader(p(0), 1, 0);
    w.runUntil(log.flush());
    log.appendAsLeader(p(1), 1, 0);
    powerCycle();
    const again = openLog(envOf());
    expect(again.appendAsLeader(p(1), 1, 0)).toMatchObject({ kind: 'appended', firstOffset: 1 });
    expect(again.appendAsLeader(p(1), 1, 0)).toMatchObject({ kind: 'duplicate', firstOffset: 1 });
  });

  it('starts from a checkpointed high watermark, clamped to what survived', () => {
    const { envOf, crashCycle } = processEnv(1, NO_WRITEBACK);
    const log = openLog(envOf());
    log.appendAsLeader(values(5), 1, 0);
    crashCycle();
    expect(openLog(envOf(), {}, { highWatermark: 3 }).highWatermark).toBe(3);
    crashCycle();
    expect(openLog(envOf(), {}, { highWatermark: 99 }).highWatermark).toBe(5);
  });

  it('honours a checkpointed log start offset', () => {
    const { envOf, crashCycle } = processEnv(1, NO_WRITEBACK);
    const log = openLog(envOf(), { 'segment.bytes': 300 });
    for (let i = 0; i < 6; i++) log.appendAsLeader(values(2), 1, 0);
    crashCycle();
    const again = openLog(envOf(), { 'segment.bytes': 300 }, { logStartOffset: 5 });
    expect(again.logStartOffset).toBe(5);
    expect(again.read(4, 100).error).toBe('OFFSET_OUT_OF_RANGE');
  });
});
