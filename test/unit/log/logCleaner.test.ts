import { describe, expect, it } from 'vitest';
import { LogCleaner } from '../../../sim/kafka/log/logCleaner';
import { directTaskScheduler } from '../../../sim/kafka/log/taskScheduler';
import { logManagerConfig, type LogConfig, type LogManagerConfig } from '../../../sim/kafka/log/logConfig';
import { buildBatch, lastOffset } from '../../../sim/kafka/records';
import { ms, seconds } from '../../../sim/core/time';
import { allRecords, directEnv, eventsOf, kv, openLog, readAll } from './logTestKit';

function compacted(config: Partial<LogConfig> = {}, broker: Partial<LogManagerConfig> = {}) {
  const { w, h, env } = directEnv();
  const log = openLog(env, { 'cleanup.policy': 'compact', 'segment.bytes': 1024, ...config });
  const cleaner = new LogCleaner(env, logManagerConfig({ 'log.cleaner.backoff.ms': 1000, ...broker }), () => [log]);
  // As the log manager wires it.
  log.setTruncationHook((toOffset) => cleaner.onTruncated(log, toOffset));
  /** One record per batch; returns the offset it got. */
  const put = (key: string | null, value: string | null) => {
    const r = log.appendAsLeader(kv([[key, value]], Math.floor(w.now / 1000)), 0);
    if (r.kind !== 'appended') throw new Error(r.kind);
    return r.firstOffset;
  };
  return { w, h, env, log, cleaner, put };
}

/** key -> (offset, value) of the latest record per key among records below `end`. */
function latestBelow(records: { offset: number; key: string | null; value: string | null }[], end: number) {
  const m = new Map<string, { offset: number; value: string | null }>();
  for (const r of records) if (r.key !== null && r.offset < end) m.set(r.key, { offset: r.offset, value: r.value });
  return m;
}

describe('the log cleaner', () => {
  it("keeps each key's latest record at its original offset and leaves the active segment alone", () => {
    const { w, log, cleaner, put } = compacted();
    for (let round = 0; round < 20; round++) for (let k = 0; k < 10; k++) put(`k${k}`, `r${round}`);
    log.updateHighWatermark(log.logEndOffset);
    const before = allRecords(log);
    const activeBase = log.activeSegment.baseOffset;
    const activeBatches = [...log.activeSegment.batches];
    const expectedLatest = latestBelow(before, activeBase);
    const segmentsBefore = log.numberOfSegments;
    cleaner.startup();
    w.runUntil(w.now + ms(100));
    const after = allRecords(log);
    const cleanedPart = after.filter((r) => r.offset < activeBase);
    // One record per key in the cleaned part, each the latest one there, at the offset it was written at.
    expect(cleanedPart).toHaveLength(10);
    for (const r of cleanedPart) expect(expectedLatest.get(r.key!)).toEqual({ offset: r.offset, value: r.value });
    // The active segment is the same segment with the same batches.
    expect(log.activeSegment.baseOffset).toBe(activeBase);
    expect(log.activeSegment.batches).toEqual(activeBatches);
    expect(log.activeSegment.batches.every((b, i) => b === activeBatches[i])).toBe(true);
    expect(cleaner.checkpointOf(log)).toBe(activeBase);
    const ev = eventsOf(w, 'log.clean');
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ firstDirtyOffset: 0, endOffset: activeBase, recordsRemoved: before.length - after.length });
    // Groups are formed from the sizes before cleaning (full segments here), so the first pass rewrites
    // them one by one; the next pass merges the now-small segments.
    expect(log.numberOfSegments).toBe(segmentsBefore);
    for (let round = 20; round < 40; round++) for (let k = 0; k < 10; k++) put(`k${k}`, `r${round}`);
    log.updateHighWatermark(log.logEndOffset);
    w.runUntil(w.now + seconds(2));
    expect(eventsOf(w, 'log.clean')).toHaveLength(2);
    // The segments the first pass rewrote (below its end) are merged into one.
    expect(log.logSegments().filter((s) => s.baseOffset < activeBase)).toHaveLength(1);
  });

  it('never touches anything at or above the high watermark', () => {
    const { w, log, cleaner, put } = compacted();
    for (let round = 0; round < 20; round++) for (let k = 0; k < 10; k++) put(`k${k}`, `r${round}`);
    const hw = 120;
    log.updateHighWatermark(hw);
    // The cleanable range ends at the base of the segment holding the HW.
    const segs = log.logSegments();
    const holding = segs.filter((s) => s.baseOffset <= hw).at(-1)!;
    const untouched = allRecords(log).filter((r) => r.offset >= holding.baseOffset);
    cleaner.startup();
    w.runUntil(w.now + ms(100));
    expect(allRecords(log).filter((r) => r.offset >= holding.baseOffset)).toEqual(untouched);
    expect(cleaner.checkpointOf(log)).toBe(holding.baseOffset);
  });

  it('drops records without a key', () => {
    const { w, log, cleaner, put } = compacted();
    for (let i = 0; i < 60; i++) put(i % 3 === 0 ? null : `k${i % 4}`, `v${i}`);
    log.updateHighWatermark(log.logEndOffset);
    const activeBase = log.activeSegment.baseOffset;
    cleaner.startup();
    w.runUntil(w.now + ms(100));
    expect(allRecords(log).filter((r) => r.offset < activeBase && r.key === null)).toEqual([]);
  });

  it('removes a tombstone only after delete.retention.ms counted from the cleaning that first kept it', () => {
    const { w, log, cleaner, put } = compacted({ 'delete.retention.ms': 10_000, 'min.cleanable.dirty.ratio': 0.01 });
    put('a', '1');
    const tombstone = put('a', null);
    for (let i = 0; i < 30; i++) put('filler', `f${i}`);
    log.updateHighWatermark(log.logEndOffset);
    cleaner.startup();
    w.runUntil(seconds(1));
    const tomb = () => allRecords(log).find((r) => r.key === 'a');
    const firstClean = eventsOf(w, 'log.clean')[0]!;
    expect(tomb()).toEqual({ offset: tombstone, key: 'a', value: null, epoch: 0 });
    // The horizon was stamped at the first cleaning.
    const batchOf = () => log.logSegments().flatMap((s) => s.batches).find((b) => b.recordList().some((r) => r.key === 'a'));
    // Stamped with the time the cleaning started (Kafka's doClean takes the time once, at the start).
    const startedMs = Math.floor((firstClean.t - (firstClean['durationMs'] as number) * 1000) / 1000);
    expect(batchOf()?.deleteHorizonMs).toBe(startedMs + 10_000);

    // More dirty data 5 s later: cleaned again, but the horizon has not passed.
    w.runUntil(seconds(5));
    for (let i = 0; i < 30; i++) put('filler', `g${i}`);
    log.updateHighWatermark(log.logEndOffset);
    w.runUntil(seconds(7));
    expect(eventsOf(w, 'log.clean').length).toBeGreaterThanOrEqual(2);
    expect(tomb()?.value).toBeNull();

    // After the horizon: the next cleaning removes it.
    w.runUntil(seconds(12));
    for (let i = 0; i < 30; i++) put('filler', `h${i}`);
    log.updateHighWatermark(log.logEndOffset);
    w.runUntil(seconds(14));
    expect(tomb()).toBeUndefined();
    expect(eventsOf(w, 'log.clean').at(-1)?.['tombstonesRemoved']).toBe(1);
  });

  it('lets a consumer reading from 0 see each key\'s latest value last', () => {
    const { w, log, cleaner, put } = compacted({ 'min.cleanable.dirty.ratio': 0.1 });
    const latest = new Map<string, string | null>();
    for (let i = 0; i < 400; i++) {
      const key = `k${(i * 7) % 23}`;
      const value = i % 11 === 0 ? null : `v${i}`;
      put(key, value);
      latest.set(key, value);
      if (i % 50 === 49) {
        log.updateHighWatermark(log.logEndOffset);
        w.runUntil(w.now + ms(1500));
      }
    }
    log.updateHighWatermark(log.logEndOffset);
    cleaner.startup();
    w.runUntil(w.now + seconds(3));
    expect(eventsOf(w, 'log.clean').length).toBeGreaterThan(0);
    const seen = new Map<string, string | null>();
    let lastOffsetSeen = -1;
    for (const b of readAll(log, 0)) {
      for (const r of b.recordList()) {
        const offset = b.baseOffset + r.offsetDelta;
        expect(offset).toBeGreaterThan(lastOffsetSeen);
        lastOffsetSeen = offset;
        seen.set(r.key!, r.value);
      }
    }
    expect(seen).toEqual(latest);
  });

  it('waits for the dirty ratio to pass min.cleanable.dirty.ratio, and for min.compaction.lag.ms', () => {
    const lazy = compacted();
    for (let i = 0; i < 60; i++) lazy.put(`k${i}`, `v${i}`);
    lazy.log.updateHighWatermark(lazy.log.logEndOffset);
    lazy.cleaner.startup();
    // A log never cleaned is all dirty (ratio 1).
    lazy.w.runUntil(seconds(1));
    expect(eventsOf(lazy.w, 'log.clean')).toHaveLength(1);
    // A little more: the dirty part is now well under half of the log.
    for (let i = 0; i < 15; i++) lazy.put(`k${i % 5}`, `w${i}`);
    lazy.log.roll();
    lazy.log.updateHighWatermark(lazy.log.logEndOffset);
    const segs = lazy.log.logSegments();
    const firstDirty = lazy.cleaner.checkpointOf(lazy.log)!;
    const dirtyBytes = segs.filter((s) => s.baseOffset >= firstDirty && s !== lazy.log.activeSegment).reduce((n, s) => n + s.size, 0);
    expect(dirtyBytes / lazy.log.size).toBeLessThan(0.5);
    lazy.w.runUntil(seconds(10));
    expect(eventsOf(lazy.w, 'log.clean')).toHaveLength(1);

    const lagged = compacted({ 'min.compaction.lag.ms': 60_000 });
    for (let i = 0; i < 40; i++) lagged.put(`k${i % 5}`, `v${i}`);
    lagged.log.updateHighWatermark(lagged.log.logEndOffset);
    lagged.cleaner.startup();
    lagged.w.runUntil(seconds(59));
    expect(eventsOf(lagged.w, 'log.clean')).toEqual([]);
    lagged.w.runUntil(seconds(62));
    expect(eventsOf(lagged.w, 'log.clean')).toHaveLength(1);
  });

  it('takes (bytes read + written) / log.cleaner.io.max.bytes.per.second of simulated time', () => {
    const { w, log, cleaner, put } = compacted({}, { 'log.cleaner.io.max.bytes.per.second': 10_000 });
    for (let i = 0; i < 200; i++) put(`k${i % 10}`, `v${i}`);
    log.updateHighWatermark(log.logEndOffset);
    const startedAt = w.now;
    cleaner.startup();
    w.runUntil(w.now + seconds(30));
    const ev = eventsOf(w, 'log.clean')[0]!;
    // A first cleaning's dirty range is everything it rewrites: the map pass reads bytesBefore, the rewrite
    // reads bytesBefore again and writes bytesAfter.
    const ioBytes = 2 * (ev['bytesBefore'] as number) + (ev['bytesAfter'] as number);
    expect(ev.t - startedAt).toBeGreaterThanOrEqual(Math.floor((ioBytes / 10_000) * 1e6));
    expect(ev['durationMs']).toBeGreaterThan(0);
  });

  it('abandons a cleaning when the log is truncated under it, then cleans again', () => {
    const { w, log, cleaner, put } = compacted({}, { 'log.cleaner.io.max.bytes.per.second': 10_000 });
    for (let i = 0; i < 200; i++) put(`k${i % 10}`, `v${i}`);
    log.updateHighWatermark(log.logEndOffset);
    cleaner.startup();
    w.runUntil(w.now + ms(1));
    expect(cleaner.inProgress).toBe(log);
    log.truncateTo(50);
    expect(cleaner.inProgress).toBeNull();
    w.runUntil(w.now + seconds(30));
    const records = allRecords(log);
    expect(records.every((r) => r.offset < 50)).toBe(true);
    expect(eventsOf(w, 'log.clean').every((e) => (e['endOffset'] as number) <= 50)).toBe(true);
  });

  it('does not swap in a cleaning planned before the log changed, even without being told', () => {
    const { w, log, put } = compacted({}, { 'log.cleaner.io.max.bytes.per.second': 10_000 });
    const blind = new LogCleaner(
      { disk: w.host('b1').disk, trace: w.trace, node: 'b1', tasks: directTaskScheduler(w.scheduler) },
      logManagerConfig({ 'log.cleaner.io.max.bytes.per.second': 10_000, 'log.cleaner.backoff.ms': 1000, 'log.dirs': '/other' }),
      () => [log],
    );
    log.setTruncationHook(null);
    for (let i = 0; i < 200; i++) put(`k${i % 10}`, `v${i}`);
    log.updateHighWatermark(log.logEndOffset);
    blind.startup();
    w.runUntil(w.now + ms(1));
    expect(blind.inProgress).toBe(log);
    const truncatedAt = w.now;
    log.truncateTo(50);
    w.runUntil(w.now + seconds(30));
    expect(allRecords(log).every((r) => r.offset < 50)).toBe(true);
    const late = eventsOf(w, 'log.clean').filter((e) => e.t > truncatedAt);
    expect(late.every((e) => (e['endOffset'] as number) <= 50)).toBe(true);
  });
});

describe('a compacted log of 1,000 keys each updated 100 times', () => {
  it('holds about 1,000 records plus the active segment after cleaning', () => {
    const { w, env } = directEnv();
    const log = openLog(env, { 'cleanup.policy': 'compact', 'segment.bytes': 64 * 1024 });
    for (let round = 0; round < 100; round++) {
      for (let start = 0; start < 1000; start += 100) {
        const batch = buildBatch(Array.from({ length: 100 }, (_, i) => ({ key: `key-${start + i}`, value: `round-${round}`, timestamp: 0 })));
        log.appendAsLeader(batch, 0, 0);
      }
    }
    expect(log.logEndOffset).toBe(100_000);
    log.updateHighWatermark(log.logEndOffset);
    const cleaner = new LogCleaner(env, logManagerConfig(), () => [log]);
    cleaner.startup();
    w.runUntil(seconds(1));
    const activeBase = log.activeSegment.baseOffset;
    const activeRecords = log.activeSegment.recordCount;
    const records = allRecords(log);
    // Every key appears in the cleaned part exactly once; the active segment is kept whole.
    expect(records.filter((r) => r.offset < activeBase)).toHaveLength(1000);
    expect(records).toHaveLength(1000 + activeRecords);
    expect(activeRecords).toBeLessThan(64 * 1024 / 10);
    // The cleaned part is the latest value of each key below the active segment.
    const byKey = new Map(records.filter((r) => r.offset < activeBase).map((r) => [r.key, r.value]));
    expect(byKey.size).toBe(1000);
    expect(lastOffset(log.activeSegment.batches.at(-1)!)).toBe(99_999);
  });
});
