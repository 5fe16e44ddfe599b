import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import {
  BuiltInPartitioner,
  computePartitionLoadStats,
  nextPartition,
  type PartitionQueueState,
} from '../../../sim/kafka/client/builtInPartitioner';

const queueArb = fc
  .array(fc.record({ queueSize: fc.integer({ min: 0, max: 20 }), leaderKnown: fc.boolean() }), {
    minLength: 1,
    maxLength: 8,
  })
  .map((qs) => qs.map((q, partition): PartitionQueueState => ({ partition, ...q })));

describe('BuiltInPartitioner properties', () => {
  it('gives each partition with a leader exactly (max + 1 - queueSize) of the weighted draws', () => {
    fc.assert(
      fc.property(queueArb, (qs) => {
        const stats = computePartitionLoadStats(qs, qs.length, true, 0);
        const eligible = qs.filter((q) => q.leaderKnown);
        const max = Math.max(...eligible.map((q) => q.queueSize));
        const allEqual = eligible.length === qs.length && eligible.every((q) => q.queueSize === max);
        const uniform = eligible.length === 0 || qs.length < 2 || allEqual;
        expect(stats === null).toBe(uniform);
        if (stats === null) return;
        // Every residue of the draw modulo the table's total, counted per partition.
        const total = eligible.reduce((s, q) => s + (max + 1 - q.queueSize), 0);
        const counts = new Map<number, number>();
        for (let r = 0; r < total; r++) {
          const p = nextPartition(r, stats, { numPartitions: qs.length, availablePartitions: [] });
          counts.set(p, (counts.get(p) ?? 0) + 1);
        }
        expect(counts).toEqual(new Map(eligible.map((q) => [q.partition, max + 1 - q.queueSize])));
      }),
      { numRuns: 500 },
    );
  });

  it('only ever sticks to a partition with a known leader when there is one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 6 }),
        fc.integer(),
        (n, avail, seed) => {
          const available = [...new Set(avail.filter((p) => p < n))].sort((a, b) => a - b);
          const view = { numPartitions: n, availablePartitions: available };
          const p = new BuiltInPartitioner({ topic: 't', stickyBatchSize: 10 }, Random.root(seed));
          for (let i = 0; i < 20; i++) {
            const sticky = p.currentPartition(view);
            expect(available.length > 0 ? available.includes(sticky) : sticky >= 0 && sticky < n).toBe(true);
            p.updatePartitionInfo(sticky, 10, true, view);
          }
        },
      ),
    );
  });

  it('switches exactly when the KIP-794 rule says so', () => {
    const B = 100;
    const step = fc.record({
      bytes: fc.integer({ min: 1, max: 120 }),
      fullBefore: fc.boolean(),
      fullAfter: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer(), (steps, seed) => {
        const view = { numPartitions: 4, availablePartitions: [0, 1, 2, 3] };
        const p = new BuiltInPartitioner({ topic: 't', stickyBatchSize: B }, Random.root(seed));
        // The model: bytes produced to the current sticky partition.
        let produced = 0;
        for (const s of steps) {
          // Before appending, a full last batch lets a held-back switch happen.
          const target = p.partitionForAppend(view, () => s.fullBefore);
          if (s.fullBefore && produced >= B) produced = 0;
          expect(p.producedBytes).toBe(produced);
          p.updatePartitionInfo(target, s.bytes, s.fullAfter, view);
          produced += s.bytes;
          if ((produced >= B && s.fullAfter) || produced >= 2 * B) produced = 0;
          expect(p.producedBytes).toBe(produced);
        }
      }),
      { numRuns: 500 },
    );
  });
});
