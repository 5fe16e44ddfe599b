import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildBatch, lastOffset, nextOffset, type RecordBatch } from '../../../sim/kafka/records';
import { allRecords, directEnv, openLog } from '../../unit/log/logTestKit';

const appendArb = fc.record({
  records: fc.integer({ min: 1, max: 6 }),
  valueSize: fc.integer({ min: 0, max: 300 }),
  dt: fc.integer({ min: 0, max: 400 }),
  epochBump: fc.boolean(),
  roll: fc.boolean(),
});

const configArb = fc.record({
  'segment.bytes': fc.integer({ min: 2000, max: 6000 }),
  'index.interval.bytes': fc.integer({ min: 0, max: 1500 }),
  'segment.ms': fc.integer({ min: 300, max: 5000 }),
});

describe('appending and reading', () => {
  it('gives dense offsets, finds the batch holding any offset, and a follower copying batch by batch ends identical', () => {
    fc.assert(
      fc.property(configArb, fc.array(appendArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 3000 }), (config, appends, maxBytes) => {
        const { env } = directEnv();
        const leader = openLog(env, config);
        let epoch = 0;
        let ts = 0;
        const stored: RecordBatch[] = [];
        for (const a of appends) {
          ts += a.dt;
          if (a.epochBump) epoch++;
          const b = buildBatch(Array.from({ length: a.records }, (_, i) => ({ key: null, value: 'x', valueSize: a.valueSize, timestamp: ts + i })));
          const r = leader.appendAsLeader(b, epoch, ts);
          if (r.kind !== 'appended') throw new Error(`append failed: ${r.kind}`);
          expect(r.firstOffset).toBe(stored.length === 0 ? 0 : nextOffset(stored[stored.length - 1]!));
          stored.push(r.batch);
          if (a.roll && a.epochBump) leader.roll();
        }
        const leo = nextOffset(stored[stored.length - 1]!);
        expect(leader.logEndOffset).toBe(leo);
        expect(allRecords(leader).map((r) => r.offset)).toEqual(Array.from({ length: leo }, (_, i) => i));
        // Segments are contiguous and ordered.
        const segs = leader.logSegments();
        for (let i = 1; i < segs.length; i++) expect(segs[i]!.baseOffset).toBe(segs[i - 1]!.nextOffset);

        for (const b of stored) {
          for (let o = b.baseOffset; o <= lastOffset(b); o++) {
            const r = leader.read(o, maxBytes, leo, true);
            if (r.error !== null) throw new Error(r.message);
            expect(r.batches[0]).toBe(b);
            // Whole batches, consecutive, within maxBytes unless it is the single first batch.
            for (let i = 1; i < r.batches.length; i++) expect(r.batches[i]!.baseOffset).toBe(nextOffset(r.batches[i - 1]!));
            if (r.batches.length > 1) expect(r.sizeInBytes).toBeLessThanOrEqual(maxBytes);
            const strict = leader.read(o, maxBytes, leo, false);
            expect(strict.error === null && strict.batches.length === 0).toBe(b.sizeInBytes > maxBytes);
          }
        }

        // A follower fetching from the leader and appending what it gets.
        const { env: fenv } = directEnv(2);
        const follower = openLog(fenv, config);
        for (let guard = 0; follower.logEndOffset < leo && guard < 10_000; guard++) {
          const r = leader.read(follower.logEndOffset, maxBytes, leo, true);
          if (r.error !== null) throw new Error(r.message);
          follower.appendAsFollower(r.batches);
        }
        expect(allRecords(follower)).toEqual(allRecords(leader));
        expect(follower.leaderEpochCache.epochEntries()).toEqual(leader.leaderEpochCache.epochEntries());
        // Rolls depend only on the batches (sizes and timestamps), except the leader's explicit rolls.
        if (!appends.some((a) => a.roll && a.epochBump)) {
          expect(follower.logSegments().map((s) => s.baseOffset)).toEqual(leader.logSegments().map((s) => s.baseOffset));
        }
      }),
      { numRuns: 150 },
    );
  });
});
