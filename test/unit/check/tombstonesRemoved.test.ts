import { describe, expect, it } from 'vitest';
import { runCheckers } from '../../../sim/check/checkers';
import type { TraceEvent } from '../../../sim/core/trace';

// tombstones.removed (issue 23: the cleaner's tombstone counts), summed over every cleaning of every replica.
const clean = (seq: number, node: string, recordsRemoved: number, tombstonesRemoved: number): TraceEvent =>
  ({
    t: seq * 1000,
    seq,
    kind: 'log.clean',
    node,
    topic: 'prices',
    partition: 0,
    firstDirtyOffset: 0,
    endOffset: 100,
    segmentsBefore: 3,
    segmentsAfter: 1,
    bytesBefore: 3000,
    bytesAfter: 1000,
    recordsBefore: 100,
    recordsRemoved,
    tombstonesRemoved,
    durationMs: 1,
  }) as unknown as TraceEvent;

describe('tombstones.removed', () => {
  it('adds the tombstones every cleaning removed, on every replica; they count among the records compacted away', () => {
    const r = runCheckers([clean(1, 'broker-1', 40, 2), clean(2, 'broker-2', 41, 2), clean(3, 'broker-1', 5, 0)]);
    expect(r['tombstones.removed']!.count).toBe(4);
    expect(r['records.compacted-away']!.count).toBe(86);
    expect(runCheckers([])['tombstones.removed']!.count).toBe(0);
  });
});
