import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LeaderEpochFileCache, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, type EpochEntry } from '../../../sim/kafka/log/leaderEpochFileCache';

// A model written the plain way: a list filtered and scanned linearly (the cache uses binary searches and
// tail loops). Semantics from reference 4.1-4.2.
type Entry = { epoch: number; startOffset: number };

function modelAssign(m: Entry[], epoch: number, start: number): Entry[] {
  const latest = m[m.length - 1];
  if (latest && latest.epoch === epoch && start >= latest.startOffset) return m;
  return [...m.filter((e) => e.epoch < epoch && e.startOffset < start), { epoch, startOffset: start }];
}

function modelEndOffsetFor(m: Entry[], req: number, leo: number): { epoch: number; endOffset: number } {
  if (req === UNDEFINED_EPOCH) return { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
  if (m.length > 0 && m[m.length - 1]!.epoch === req) return { epoch: req, endOffset: leo };
  const higher = m.find((e) => e.epoch > req);
  if (!higher) return { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
  const floors = m.filter((e) => e.epoch <= req);
  const floor = floors[floors.length - 1];
  return floor ? { epoch: floor.epoch, endOffset: higher.startOffset } : { epoch: req, endOffset: higher.startOffset };
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('assign' as const), epoch: fc.integer({ min: 0, max: 12 }), offset: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant('truncateFromEnd' as const), offset: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant('truncateFromStart' as const), offset: fc.integer({ min: 0, max: 60 }) }),
);

describe('the leader-epoch cache against a simple model', () => {
  it('agrees on entries and on endOffsetFor after any sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: -1, max: 13 }), fc.integer({ min: 0, max: 80 }), (ops, req, leo) => {
        const cache = new LeaderEpochFileCache(null);
        let model: Entry[] = [];
        for (const o of ops) {
          if (o.kind === 'assign') {
            cache.assign(o.epoch, o.offset);
            model = modelAssign(model, o.epoch, o.offset);
          } else if (o.kind === 'truncateFromEnd') {
            cache.truncateFromEnd(o.offset);
            model = model.filter((e) => e.startOffset < o.offset);
          } else {
            cache.truncateFromStart(o.offset);
            const below = model.filter((e) => e.startOffset <= o.offset);
            if (below.length > 0) model = [{ epoch: below[below.length - 1]!.epoch, startOffset: o.offset }, ...model.filter((e) => e.startOffset > o.offset)];
          }
          const entries: readonly EpochEntry[] = cache.epochEntries();
          expect(entries).toEqual(model);
          // Invariant: strictly increasing in both epoch and start offset.
          for (let i = 1; i < entries.length; i++) {
            expect(entries[i]!.epoch).toBeGreaterThan(entries[i - 1]!.epoch);
            expect(entries[i]!.startOffset).toBeGreaterThan(entries[i - 1]!.startOffset);
          }
        }
        expect(cache.endOffsetFor(req, leo)).toEqual(modelEndOffsetFor(model, req, leo));
      }),
      { numRuns: 500 },
    );
  });
});
