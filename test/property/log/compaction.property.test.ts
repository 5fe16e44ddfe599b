import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LogCleaner } from '../../../sim/kafka/log/logCleaner';
import { logManagerConfig } from '../../../sim/kafka/log/logConfig';
import { buildBatch } from '../../../sim/kafka/records';
import { seconds } from '../../../sim/core/time';
import { allRecords, directEnv, openLog, readAll } from '../../unit/log/logTestKit';

const recordArb = fc.record({
  key: fc.option(fc.integer({ min: 0, max: 7 }), { nil: null, freq: 8 }),
  tombstone: fc.boolean(),
  size: fc.integer({ min: 0, max: 80 }),
});

describe('compaction', () => {
  it("keeps every key's latest record at its offset, touches nothing past the cleaned point, and reads back the latest values", () => {
    let runs = 0;
    let cleanedRuns = 0;
    fc.assert(
      fc.property(
        fc.array(fc.array(recordArb, { minLength: 1, maxLength: 3 }), { minLength: 10, maxLength: 80 }),
        fc.integer({ min: 400, max: 1000 }), // a batch is at most ~340 bytes
        fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
        (batches, segmentBytes, hwFraction) => {
          const { w, env } = directEnv();
          const log = openLog(env, { 'cleanup.policy': 'compact', 'segment.bytes': segmentBytes, 'min.cleanable.dirty.ratio': 0.01 });
          let n = 0;
          for (const recs of batches) {
            const b = buildBatch(
              recs.map((r) => ({ key: r.key === null ? null : `k${r.key}`, value: r.tombstone && r.key !== null ? null : `v${n++}`, valueSize: r.size, timestamp: 0 })),
            );
            const res = log.appendAsLeader(b, 0, 0);
            if (res.kind !== 'appended') throw new Error(res.kind);
          }
          log.updateHighWatermark(Math.floor(hwFraction * log.logEndOffset));
          const before = allRecords(log);
          const leo = log.logEndOffset;
          const cleaner = new LogCleaner(env, logManagerConfig({ 'log.cleaner.backoff.ms': 1000 }), () => [log]);
          cleaner.startup();
          w.runUntil(seconds(3));
          const after = allRecords(log);
          const cleanedTo = cleaner.checkpointOf(log) ?? 0;
          runs++;
          if (after.length < before.length) cleanedRuns++;
          expect(cleanedTo).toBeLessThanOrEqual(Math.max(log.highWatermark, 0));
          expect(cleanedTo).toBeLessThanOrEqual(log.activeSegment.baseOffset);
          expect(log.logEndOffset).toBe(leo);
          // Past the cleaned point (the dirty tail, the active segment, everything above the HW): untouched.
          expect(after.filter((r) => r.offset >= cleanedTo)).toEqual(before.filter((r) => r.offset >= cleanedTo));
          // Below it: only the latest record of each key, where it was.
          const latest = new Map<string, { offset: number; value: string | null }>();
          for (const r of before) if (r.key !== null && r.offset < cleanedTo) latest.set(r.key, { offset: r.offset, value: r.value });
          const cleaned = after.filter((r) => r.offset < cleanedTo);
          for (const r of cleaned) {
            expect(r.key).not.toBeNull();
            expect(latest.get(r.key!)).toEqual({ offset: r.offset, value: r.value });
          }
          // Every key's latest record survives (tombstones too: delete.retention.ms has not passed).
          expect(cleaned.map((r) => r.key).sort()).toEqual([...latest.keys()].sort());
          // A read at any surviving offset returns the batch holding it.
          for (const r of after) {
            const got = log.read(r.offset, 1, log.logEndOffset, true);
            if (got.error !== null) throw new Error(got.message);
            const b = got.batches[0]!;
            expect(b.baseOffset <= r.offset && r.offset <= b.baseOffset + b.lastOffsetDelta).toBe(true);
          }
          // A consumer from 0 ends with each key's latest value.
          const expected = new Map<string, string | null>();
          for (const r of before) if (r.key !== null) expected.set(r.key, r.value);
          const seen = new Map<string, string | null>();
          let prev = -1;
          for (const b of readAll(log, 0)) {
            for (const r of b.recordList()) {
              const o = b.baseOffset + r.offsetDelta;
              expect(o).toBeGreaterThan(prev);
              prev = o;
              if (r.key !== null) seen.set(r.key, r.value);
            }
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
    // The property is only worth something if cleaning usually happened.
    expect(cleanedRuns / runs).toBeGreaterThan(0.3);
  });
});
