import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LONG_MAX } from '../../../sim/kafka/config/configs';
import { buildBatch, nextOffset, type RecordBatch } from '../../../sim/kafka/records';
import { ms } from '../../../sim/core/time';
import { openLog, processEnv } from '../../unit/log/logTestKit';

const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('append' as const), n: fc.integer({ min: 1, max: 4 }), size: fc.integer({ min: 0, max: 120 }), bump: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flush' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('roll' as const) }) },
);

const diskArb = fc.record({
  writebackDelayMs: fc.constantFrom(null, 20, 300),
  writebackIntervalMs: fc.constantFrom(10, 100),
  tornWriteProbability: fc.constantFrom(0, 0.5, 1),
  fsyncLatencyMs: fc.integer({ min: 1, max: 5 }),
});

describe('recovery after a power loss', () => {
  it('yields exactly the durable prefix of whole batches', () => {
    let runs = 0;
    let lostSomething = 0;
    fc.assert(
      fc.property(
        diskArb,
        fc.integer({ min: 600, max: 1500 }), // a batch is at most ~570 bytes
        fc.constantFrom(LONG_MAX, 1, 3),
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 1000 }),
        (disk, segmentBytes, flushMessages, ops, seed) => {
          const { w, h, envOf, powerCycle } = processEnv(seed, disk);
          const config = { 'segment.bytes': segmentBytes, 'flush.messages': flushMessages };
          const log = openLog(envOf(), config);
          let epoch = 0;
          for (const op of ops) {
            if (op.kind === 'append') {
              if (op.bump) epoch++;
              const b = buildBatch(Array.from({ length: op.n }, () => ({ key: null, value: 'v', valueSize: op.size, timestamp: Math.floor(w.now / 1000) })));
              const r = log.appendAsLeader(b, epoch);
              if (r.kind !== 'appended') throw new Error(r.kind);
            } else if (op.kind === 'flush') {
              log.flush();
            } else if (op.kind === 'wait') {
              w.runUntil(w.now + ms(op.ms));
            } else {
              log.roll();
            }
          }
          // What the disk will keep, file by file, at the instant of the power loss.
          const expected: RecordBatch[] = [];
          let cut = false;
          let written = 0;
          for (const seg of log.logSegments()) {
            const chunks = h.disk.read<RecordBatch>(seg.file);
            const durable = h.disk.durableChunks(seg.file);
            written += chunks.length;
            if (cut) {
              // Flushes and write-back go oldest first: nothing after a lost write is durable.
              expect(durable).toBe(0);
              continue;
            }
            for (let i = 0; i < durable; i++) expected.push(chunks[i]!.data);
            if (durable < chunks.length) cut = true;
          }
          runs++;
          if (expected.length < written) lostSomething++;

          powerCycle();
          const again = openLog(envOf(), config);
          const recovered = again.logSegments().flatMap((s) => s.batches);
          expect(recovered.length).toBe(expected.length);
          recovered.forEach((b, i) => expect(b).toBe(expected[i]));
          const lastEnd = expected.length === 0 ? 0 : nextOffset(expected[expected.length - 1]!);
          expect(again.logEndOffset).toBe(Math.max(lastEnd, again.activeSegment.baseOffset));
          for (const e of again.leaderEpochCache.epochEntries()) expect(e.startOffset).toBeLessThan(again.logEndOffset);
          // Nothing torn is left behind, and appends continue at the LEO.
          for (const s of again.logSegments()) expect(s.chunks().some((c) => c.torn === true)).toBe(false);
          const r = again.appendAsLeader(buildBatch([{ key: null, value: 'after', timestamp: 0 }]), epoch + 1);
          expect(r.kind === 'appended' && r.firstOffset).toBe(again.logEndOffset - 1);
        },
      ),
      { numRuns: 200 },
    );
    expect(lostSomething / runs).toBeGreaterThan(0.3);
  });
});
