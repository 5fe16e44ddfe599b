import { describe, expect, it } from 'vitest';
import {
  deletableSegmentCount,
  logStartOffsetBreach,
  retentionMsBreach,
  retentionSizeBreach,
  type SegmentSummary,
} from '../../../sim/kafka/log/retention';
import { buildBatch, type RecordBatch } from '../../../sim/kafka/records';
import { ms } from '../../../sim/core/time';
import { allRecords, directEnv, eventsOf, kv, openLog } from './logTestKit';

const seg = (baseOffset: number, size: number, largestTimestamp: number): SegmentSummary => ({ baseOffset, size, largestTimestamp });

describe('the retention rules (reference 2.4)', () => {
  const segs = [seg(0, 100, 10), seg(10, 100, 20), seg(20, 100, 30), seg(30, 50, 40)];

  it('deletes by time: segments whose newest record is older than retention.ms, oldest first', () => {
    // now 125, retention 100: the first two (10, 20 < 25) go; the third (30) stops it.
    expect(deletableSegmentCount(segs, 35, 35, retentionMsBreach(125, 100)!)).toBe(2);
    expect(retentionMsBreach(125, -1)).toBeNull();
  });

  it('stops at the first segment that fails, even if a later one would pass', () => {
    const mixed = [seg(0, 100, 10), seg(10, 100, 90), seg(20, 100, 5), seg(30, 0, 0)];
    expect(deletableSegmentCount(mixed, 30, 30, retentionMsBreach(125, 100)!)).toBe(1);
  });

  it('deletes by size while the log stays at or above retention.bytes without the segment', () => {
    // total 350, limit 150: diff 200 -> two 100-byte segments.
    expect(deletableSegmentCount(segs, 35, 35, retentionSizeBreach(350, 150)!)).toBe(2);
    expect(deletableSegmentCount(segs, 35, 35, retentionSizeBreach(350, 260)!)).toBe(0);
    expect(retentionSizeBreach(350, 351)).toBeNull();
    expect(retentionSizeBreach(350, -1)).toBeNull();
  });

  it('never deletes a segment reaching above the high watermark', () => {
    expect(deletableSegmentCount(segs, 35, 9, retentionMsBreach(1000, 1)!)).toBe(0);
    expect(deletableSegmentCount(segs, 35, 19, retentionMsBreach(1000, 1)!)).toBe(1);
    expect(deletableSegmentCount(segs, 35, 20, retentionMsBreach(1000, 1)!)).toBe(2);
    expect(deletableSegmentCount(segs, 35, 35, retentionMsBreach(1000, 1)!)).toBe(4);
  });

  it('never deletes an empty active segment', () => {
    const withEmpty = [seg(0, 100, 10), seg(10, 0, -1)];
    expect(deletableSegmentCount(withEmpty, 10, 10, retentionMsBreach(1000, 1)!)).toBe(1);
  });

  it('at the bounds: exactly retention.ms old stays, exactly retention.bytes is no breach, 0 limits mean 0', () => {
    // A segment whose newest record is exactly retention.ms old is not older than retention.ms.
    expect(deletableSegmentCount(segs, 35, 35, retentionMsBreach(110, 100)!)).toBe(0);
    expect(deletableSegmentCount(segs, 35, 35, retentionMsBreach(111, 100)!)).toBe(1);
    // retention.ms=0: everything older than now goes (the active segment too once it is under the HW).
    expect(deletableSegmentCount(segs, 35, 35, retentionMsBreach(41, 0)!)).toBe(4);
    // At exactly retention.bytes the log is at the limit: a breach of 0 bytes deletes nothing (but is not null).
    expect(retentionSizeBreach(350, 350)).not.toBeNull();
    expect(deletableSegmentCount(segs, 35, 35, retentionSizeBreach(350, 350)!)).toBe(0);
    // retention.bytes=0: every segment may go.
    expect(deletableSegmentCount(segs, 35, 35, retentionSizeBreach(350, 0)!)).toBe(4);
  });

  it('a non-empty active segment can be deleted (the caller rolls it first); an empty one cannot, however old', () => {
    expect(deletableSegmentCount([seg(0, 100, 10), seg(10, 5, 10)], 12, 12, retentionMsBreach(1000, 1)!)).toBe(2);
    expect(deletableSegmentCount([seg(0, 0, 10)], 0, 0, () => true)).toBe(0);
  });

  it('the log-start-offset rule needs a next segment at or below the log start: the active segment never goes by it', () => {
    expect(deletableSegmentCount(segs, 35, 35, logStartOffsetBreach(1000))).toBe(3);
    expect(deletableSegmentCount([seg(0, 100, 10)], 10, 10, logStartOffsetBreach(1000))).toBe(0);
  });

  it('deletes segments wholly below the log start offset', () => {
    expect(deletableSegmentCount(segs, 35, 35, logStartOffsetBreach(20))).toBe(2);
    expect(deletableSegmentCount(segs, 35, 35, logStartOffsetBreach(19))).toBe(1);
  });
});

describe('retention on a log', () => {
  /** One small batch per second of timestamps, 4 per segment: segments 0, 4, 8, 12 and the active 16 (holding 16..19). */
  function timedLog(config = {}) {
    const { w, env } = directEnv();
    const log = openLog(env, config);
    const batches: RecordBatch[] = [];
    for (let i = 0; i < 20; i++) {
      const r = log.appendAsLeader(buildBatch([{ key: null, value: `v${i}`, timestamp: i * 1000 }]), 0, i * 1000);
      if (r.kind === 'appended') batches.push(r.batch);
      if (i % 4 === 3 && i < 19) log.roll();
    }
    return { w, log, batches };
  }

  it('removes old segments below the HW, moves the log start offset, and keeps everything above it', () => {
    const { w, log } = timedLog({ 'retention.ms': 10_000 });
    log.updateHighWatermark(20);
    // now 16000: segments whose newest record is older than 6000 go: [0..3] (3000) and [4..7] (7000)? 7000 is not.
    expect(log.deleteOldSegments(16_000)).toBe(1);
    expect(log.logStartOffset).toBe(4);
    expect(allRecords(log).map((r) => r.offset)).toEqual(Array.from({ length: 16 }, (_, i) => i + 4));
    expect(log.read(3, 100).error).toBe('OFFSET_OUT_OF_RANGE');
    expect(log.read(4, 100)).toMatchObject({ error: null });
    expect(eventsOf(w, 'log.retention')[0]).toMatchObject({ reason: 'retention.ms', segments: [0], fromOffset: 0, toOffset: 4, deletedRecords: 4, logStartOffset: 4 });
  });

  it('keeps data the HW has not reached', () => {
    const { log } = timedLog({ 'retention.ms': 1 });
    log.updateHighWatermark(6);
    expect(log.deleteOldSegments(100_000)).toBe(1);
    expect(log.logStartOffset).toBe(4);
    expect(log.logStartOffset).toBeLessThanOrEqual(log.highWatermark);
  });

  it('rolls an empty active segment first when everything would go', () => {
    const { w, log } = timedLog({ 'retention.ms': 1 });
    log.updateHighWatermark(20);
    expect(log.deleteOldSegments(100_000)).toBe(5);
    expect([log.logStartOffset, log.logEndOffset, log.numberOfSegments]).toEqual([20, 20, 1]);
    expect(log.activeSegment.isEmpty).toBe(true);
    expect(eventsOf(w, 'log.roll').at(-1)).toMatchObject({ reason: 'retention', baseOffset: 20 });
    expect(log.appendAsLeader(kv([['k', 'v']]), 0, 100_000)).toMatchObject({ kind: 'appended', firstOffset: 20 });
  });

  it('deletes by retention.bytes', () => {
    const { log } = timedLog({ 'retention.bytes': 1 });
    log.updateHighWatermark(20);
    const before = log.size;
    log.deleteOldSegments(0);
    // Only segments whose removal keeps the log at or above 1 byte: all but the last non-empty one.
    expect(log.size).toBeGreaterThanOrEqual(1);
    expect(log.size).toBeLessThan(before);
    expect(log.logSegments().filter((s) => !s.isEmpty)).toHaveLength(1);
  });

  it('applies only the log-start-offset rule to compact-only topics', () => {
    const { log } = timedLog({ 'retention.ms': 1, 'cleanup.policy': 'compact' });
    log.updateHighWatermark(20);
    expect(log.deleteOldSegments(100_000)).toBe(0);
    log.maybeIncrementLogStartOffset(9, 'ClientRecordDeletion');
    expect(log.deleteOldSegments(100_000)).toBe(2);
    expect(log.logStartOffset).toBe(9);
    expect(log.logSegments()[0]!.baseOffset).toBe(8);
  });

  it('removes deleted files after file.delete.delay.ms', () => {
    const { w, log } = timedLog({ 'retention.ms': 1, 'file.delete.delay.ms': 500 });
    log.updateHighWatermark(8);
    log.deleteOldSegments(100_000);
    const disk = w.host('b1').disk;
    expect(disk.list('/tmp/kafka-logs/orders-0/').filter((f) => f.endsWith('.deleted'))).toHaveLength(2);
    w.runUntil(w.now + ms(500));
    expect(disk.list('/tmp/kafka-logs/orders-0/').filter((f) => f.endsWith('.deleted'))).toHaveLength(0);
  });
});
