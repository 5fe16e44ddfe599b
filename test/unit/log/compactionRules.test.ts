import { describe, expect, it } from 'vitest';
import { cleanableOffsets, evaluateLog, filthiest, isCleanable, logToClean, maxCompactionDelay, segmentRange, type CleanableLogView, type SegmentView } from '../../../sim/kafka/log/cleanerSelection';
import { buildOffsetMap, cleanBatch, emptyCleanerStats, groupSegmentsBySize, type BatchFilter, type CleanerSegment } from '../../../sim/kafka/log/logCleaning';
import { assignOffsets, type RecordBatch } from '../../../sim/kafka/records';
import { kv } from './logTestKit';
import { CleanedTransactionMetadata } from '../../../sim/kafka/log/cleanedTransactionMetadata';

/** A batch at `base` with these (key, value) records. */
function at(base: number, pairs: [string | null, string | null][], producer = {}): RecordBatch {
  return assignOffsets(kv(pairs, 0, producer), base, 0);
}

function cseg(baseOffset: number, batches: RecordBatch[], size?: number): CleanerSegment {
  return {
    baseOffset,
    batches,
    size: size ?? batches.reduce((n, b) => n + b.sizeInBytes, 0),
    offsetIndexBytes: 0,
    timeIndexBytes: 0,
    lastModifiedMs: 0,
  };
}

function filter(map: Map<string, number>, latestOffset: number, over: Partial<BatchFilter> = {}): BatchFilter {
  return { offsetMap: { map, latestOffset }, nowMs: 1000, deleteRetentionMs: 500, lastDataOffsets: new Map(), upperBoundOffsetOfCleaningRound: 1_000_000, txn: new CleanedTransactionMetadata([]), ...over };
}

describe('the offset map', () => {
  it('maps each key to its latest offset in [start, end) and covers up to end - 1', () => {
    const segs = [cseg(0, [at(0, [['a', '1'], ['b', '1']]), at(2, [['a', '2'], [null, 'x']])]), cseg(4, [at(4, [['b', '2']])])];
    const m = buildOffsetMap(segs, 1, 8, 1000);
    expect([...m.map.entries()]).toEqual([
      ['b', 4],
      ['a', 2],
    ]);
    expect(m.latestOffset).toBe(7);
  });

  it('stops when the dedupe buffer is full', () => {
    const segs = [cseg(0, [at(0, [['a', '1']]), at(1, [['b', '1']]), at(2, [['c', '1']])])];
    const m = buildOffsetMap(segs, 0, 3, 2);
    expect([...m.map.keys()]).toEqual(['a', 'b']);
    // The batch holding the record that did not fit is not covered: it stays as it is.
    expect(m.latestOffset).toBe(1);
  });
});

describe('cleaning a batch', () => {
  it('keeps the latest record of each key at its offset and drops superseded and keyless ones', () => {
    const b = at(10, [['a', '1'], ['b', '1'], [null, 'x'], ['a', '2']]);
    const stats = emptyCleanerStats();
    const out = cleanBatch(b, filter(new Map([['a', 13], ['b', 11]]), 20), stats)!;
    expect(out.recordList().map((r) => [b.baseOffset + r.offsetDelta, r.key, r.value])).toEqual([
      [11, 'b', '1'],
      [13, 'a', '2'],
    ]);
    expect([out.baseOffset, out.lastOffsetDelta]).toEqual([10, 3]);
    expect(out.sizeInBytes).toBeLessThan(b.sizeInBytes);
    expect(stats).toMatchObject({ recordsRead: 4, recordsRetained: 2, invalidRecords: 1 });
  });

  it('returns the batch itself when nothing changes', () => {
    const b = at(0, [['a', '1']]);
    expect(cleanBatch(b, filter(new Map([['a', 0]]), 5), emptyCleanerStats())).toBe(b);
  });

  it('keeps records past the end of the map as they are', () => {
    const b = at(30, [['a', 'old']]);
    expect(cleanBatch(b, filter(new Map([['a', 40]]), 20), emptyCleanerStats())).toBe(b);
  });

  it('stamps a delete horizon on the first cleaning that keeps a tombstone, and removes it once the horizon passed', () => {
    const b = at(5, [['gone', null]]);
    const first = cleanBatch(b, filter(new Map([['gone', 5]]), 10, { nowMs: 1000, deleteRetentionMs: 500 }), emptyCleanerStats())!;
    expect(first.recordCount).toBe(1);
    expect(first.deleteHorizonMs).toBe(1500);
    const before = cleanBatch(first, filter(new Map([['gone', 5]]), 10, { nowMs: 1499 }), emptyCleanerStats());
    expect(before).toBe(first);
    const stats = emptyCleanerStats();
    expect(cleanBatch(first, filter(new Map([['gone', 5]]), 10, { nowMs: 1500 }), stats)).toBeNull();
    expect(stats.tombstonesRemoved).toBe(1);
  });

  it('keeps the last batch of the cleaning round, empty, so its offsets survive', () => {
    const b = at(7, [['a', 'old'], ['a', 'older']]);
    const out = cleanBatch(b, filter(new Map([['a', 50]]), 60, { upperBoundOffsetOfCleaningRound: 9 }), emptyCleanerStats())!;
    expect(out.recordList()).toEqual([]);
    expect([out.baseOffset, out.baseOffset + out.lastOffsetDelta]).toEqual([7, 8]);
    expect(out.sizeInBytes).toBe(61);
    expect(cleanBatch(b, filter(new Map([['a', 50]]), 60), emptyCleanerStats())).toBeNull();
  });

  it("keeps a producer's last batch, empty, so its sequence survives", () => {
    const b = at(3, [['a', 'old']], { producerId: 9, producerEpoch: 0, baseSequence: 4 });
    const out = cleanBatch(b, filter(new Map([['a', 50]]), 60, { lastDataOffsets: new Map([[9, 3]]) }), emptyCleanerStats())!;
    expect(out.recordList()).toEqual([]);
    expect([out.producerId, out.baseSequence]).toEqual([9, 4]);
  });
});

describe('grouping segments for rewriting', () => {
  it('merges consecutive segments while their total fits segment.bytes', () => {
    const segs = [cseg(0, [], 400), cseg(10, [], 300), cseg(20, [], 400), cseg(30, [], 900), cseg(40, [], 50)];
    // 400 + 300 fit, + 400 would not; 400 alone (+ 900 would not); 900 + 50 fit.
    expect(groupSegmentsBySize(segs, 1000, 1 << 20, 50)).toEqual([
      [0, 2],
      [2, 3],
      [3, 5],
    ]);
    expect(groupSegmentsBySize(segs, 100, 1 << 20, 50)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
  });
});

describe('choosing what to clean (reference 11.2)', () => {
  const s = (baseOffset: number, size: number, largestTimestamp = 0, firstBatchTimestamp = 0): SegmentView => ({ baseOffset, size, largestTimestamp, firstBatchTimestamp });
  const view = (over: Partial<CleanableLogView> = {}): CleanableLogView => ({
    logStartOffset: 0,
    logEndOffset: 45,
    lastStableOffset: 45,
    segments: [s(0, 100), s(10, 100), s(20, 100), s(30, 100), s(40, 10)],
    minCompactionLagMs: 0,
    maxCompactionLagMs: 2 ** 63 - 1,
    minCleanableDirtyRatio: 0.5,
    ...over,
  });

  it('cleans from the checkpoint up to the active segment or the HW, whichever is lower', () => {
    expect(cleanableOffsets(view(), 10, 0)).toEqual({ firstDirtyOffset: 10, firstUncleanableDirtyOffset: 40, forceUpdateCheckpoint: false });
    expect(cleanableOffsets(view({ lastStableOffset: 25 }), 10, 0).firstUncleanableDirtyOffset).toBe(25);
    expect(cleanableOffsets(view(), undefined, 0).firstDirtyOffset).toBe(0);
  });

  it('resets an invalid checkpoint to the log start', () => {
    expect(cleanableOffsets(view({ logStartOffset: 20 }), 5, 0)).toMatchObject({ firstDirtyOffset: 20, forceUpdateCheckpoint: true });
    expect(cleanableOffsets(view(), 99, 0)).toMatchObject({ firstDirtyOffset: 0, forceUpdateCheckpoint: true });
  });

  it('stops at the first dirty segment with a record younger than min.compaction.lag.ms', () => {
    const v = view({ minCompactionLagMs: 100, segments: [s(0, 100, 10), s(10, 100, 950), s(20, 100, 20), s(30, 10, 0)] });
    expect(cleanableOffsets(v, 0, 1000).firstUncleanableDirtyOffset).toBe(10);
  });

  it('rounds the end down to a segment base and computes the dirty ratio', () => {
    const ltc = logToClean(view({ lastStableOffset: 25 }), 10, 25, false);
    expect(ltc).toMatchObject({ firstUncleanableOffset: 20, cleanBytes: 100, cleanableBytes: 100, totalBytes: 200, cleanableRatio: 0.5 });
    expect(isCleanable(ltc, 0.5)).toBe(false);
    expect(isCleanable(logToClean(view(), 10, 40, false), 0.5)).toBe(true); // 300 / 400
  });

  it('cleans a log past max.compaction.lag.ms even when it is not dirty enough', () => {
    // First-batch timestamps of 0 count as missing in Kafka, so the segments start at 1 ms.
    const v = view({ maxCompactionLagMs: 1000, segments: [s(0, 100, 1, 1), s(10, 100, 1, 1), s(20, 100, 1, 1), s(30, 10, 0, 5000)] });
    // The oldest dirty segment's first batch (1) is 3999 ms past now - max.compaction.lag.ms (4000).
    expect(maxCompactionDelay(v, 20, 5000)).toBe(3999);
    const { ltc } = evaluateLog(v, 20, 5000);
    expect(ltc.cleanableRatio).toBeCloseTo(1 / 3);
    expect(ltc.needCompactionNow).toBe(true);
    expect(isCleanable(ltc, 0.5)).toBe(true);
    expect(evaluateLog(v, 20, 500).ltc.needCompactionNow).toBe(false);
  });

  it('finds the segments overlapping an offset range, empty when the range is', () => {
    const segs = view().segments;
    expect(segmentRange(segs, 20, 20)).toEqual([0, 0]);
    expect(segmentRange(segs, 21, 20)).toEqual([0, 0]);
    expect(segmentRange(segs, 10, 30)).toEqual([1, 3]);
    expect(segmentRange(segs, 15, 31)).toEqual([1, 4]);
    expect(segmentRange(segs, 0, 1000)).toEqual([0, 5]);
  });

  it('a checkpoint exactly at the log start or the log end is valid', () => {
    expect(cleanableOffsets(view({ logStartOffset: 10 }), 10, 0)).toMatchObject({ firstDirtyOffset: 10, forceUpdateCheckpoint: false });
    expect(cleanableOffsets(view(), 45, 0)).toMatchObject({ firstDirtyOffset: 45, forceUpdateCheckpoint: false });
  });

  it('min.compaction.lag.ms: a record exactly that old is cleanable; with no lag even a future timestamp is', () => {
    const segs = [s(0, 100, 10), s(10, 100, 900), s(20, 100, 20), s(30, 10, 0)];
    // now - lag = 900: the segment whose newest record is at 900 is old enough.
    expect(cleanableOffsets(view({ minCompactionLagMs: 100, segments: segs }), 0, 1000).firstUncleanableDirtyOffset).toBe(30);
    expect(cleanableOffsets(view({ minCompactionLagMs: 100, segments: segs }), 0, 999).firstUncleanableDirtyOffset).toBe(10);
    // A producer clock ahead of the broker's: no lag configured, nothing holds the cleaner back.
    expect(cleanableOffsets(view({ minCompactionLagMs: 0, segments: [s(0, 100, 5000), s(10, 10, 0)] }), 0, 1000).firstUncleanableDirtyOffset).toBe(10);
  });

  it('max.compaction.lag.ms: the earliest known first-batch timestamp of the dirty, non-active segments counts', () => {
    const v = (segments: SegmentView[]) => view({ maxCompactionLagMs: 1000, segments });
    // Missing (0) timestamps are skipped; the earliest of the others wins, in any order.
    expect(maxCompactionDelay(v([s(0, 100, 1, 0), s(10, 100, 1, 300), s(20, 100, 1, 200), s(30, 10, 0, 1)]), 0, 5000)).toBe(3800);
    // The active segment's first batch does not count, however old.
    expect(maxCompactionDelay(v([s(0, 100, 1, 0), s(10, 10, 0, 1)]), 0, 5000)).toBe(0);
    // Exactly at now - max.compaction.lag.ms: not overdue yet.
    expect(maxCompactionDelay(v([s(0, 100, 1, 4000), s(10, 10, 0, 1)]), 0, 5000)).toBe(0);
    expect(maxCompactionDelay(v([s(0, 100, 1, 3999), s(10, 10, 0, 1)]), 0, 5000)).toBe(1);
  });

  it('an empty log has a dirty ratio of 0 and is never cleanable, even when overdue', () => {
    const ltc = logToClean(view({ segments: [s(0, 0), s(10, 0)] }), 0, 10, true);
    expect(ltc).toMatchObject({ totalBytes: 0, cleanableRatio: 0 });
    expect(isCleanable(ltc, 0)).toBe(false);
    // Overdue but nothing dirty to clean: only the ratio can make it cleanable.
    const clean = logToClean(view(), 40, 40, true);
    expect(clean.cleanableBytes).toBe(0);
    expect(isCleanable(clean, 0.5)).toBe(false);
  });

  it('picks the dirtiest cleanable log, the first on ties', () => {
    const mk0 = (ratio: number) => ({ ltc: { ...logToClean(view(), 0, 40, false), cleanableRatio: ratio }, minCleanableDirtyRatio: 0.5 });
    expect(filthiest([mk0(0.9), mk0(0.6)])).toBe(0);
    const mk = (ratio: number) => ({ ltc: { ...logToClean(view(), 0, 40, false), cleanableRatio: ratio }, minCleanableDirtyRatio: 0.5 });
    expect(filthiest([mk(0.6), mk(0.9), mk(0.9), mk(0.4)])).toBe(1);
    expect(filthiest([mk(0.4), mk(0.5)])).toBe(-1);
  });
});
