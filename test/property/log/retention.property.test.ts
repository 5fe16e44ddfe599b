import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildBatch } from '../../../sim/kafka/records';
import { allRecords, directEnv, openLog } from '../../unit/log/logTestKit';

describe('retention', () => {
  it('never deletes above the new log start offset, never past the HW, and stops at the first segment to keep', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.integer({ min: 1, max: 4 }), dt: fc.integer({ min: 0, max: 3000 }) }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 300, max: 1200 }),
        fc.option(fc.integer({ min: 0, max: 40_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 6000 }), { nil: undefined }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 60_000 }),
        (appends, segmentBytes, retentionMs, retentionBytes, hwFraction, extraTime) => {
          const { env } = directEnv();
          const log = openLog(env, {
            'segment.bytes': segmentBytes,
            'retention.ms': retentionMs ?? -1,
            'retention.bytes': retentionBytes ?? -1,
          });
          let ts = 0;
          for (const a of appends) {
            ts += a.dt;
            log.appendAsLeader(buildBatch(Array.from({ length: a.n }, () => ({ key: null, value: 'v', valueSize: 40, timestamp: ts }))), 0, ts);
          }
          const hw = Math.floor(hwFraction * log.logEndOffset);
          log.updateHighWatermark(hw);
          const before = allRecords(log);
          const leo = log.logEndOffset;
          const now = ts + extraTime;
          log.deleteOldSegments(now);
          const start = log.logStartOffset;
          expect(start).toBeLessThanOrEqual(hw);
          expect(log.logEndOffset).toBe(leo);
          // Nothing at or above the new log start is lost; nothing below it remains.
          expect(allRecords(log)).toEqual(before.filter((r) => r.offset >= start));
          if (start > 0) expect(log.read(start - 1, 100).error).toBe('OFFSET_OUT_OF_RANGE');
          // A read at any retained offset returns the batch holding it.
          for (const r of allRecords(log)) {
            const got = log.read(r.offset, 1, log.logEndOffset, true);
            if (got.error !== null) throw new Error(got.message);
            const b = got.batches[0]!;
            expect(b.baseOffset <= r.offset && r.offset <= b.baseOffset + b.lastOffsetDelta).toBe(true);
          }
          // Time retention only: the first remaining segment is one the rule keeps.
          if (retentionMs !== undefined && retentionBytes === undefined) {
            const segs = log.logSegments();
            const first = segs[0]!;
            const upper = segs[1]?.baseOffset ?? log.logEndOffset;
            const kept = now - first.largestTimestamp <= retentionMs || upper > hw || (segs.length === 1 && first.isEmpty);
            expect(kept).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
