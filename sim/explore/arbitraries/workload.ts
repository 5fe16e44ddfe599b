import fc from 'fast-check';
import type { WorkloadSpec } from '../../scenario/spec';

/**
 * What a producer sends to a topic: a rate (records per second) and how records are keyed. Shrinks toward
 * a steady 100 records/s over 10 uniform keys. Rates stay modest: a run's cost grows with them.
 */
export function workload(topic: string): fc.Arbitrary<WorkloadSpec> {
  return fc
    .record({
      rate: fc.constantFrom(100, 20, 200),
      keys: fc.constantFrom('uniform', 'none', 'hot'),
    })
    .map(({ rate, keys }): WorkloadSpec => ({
      topic,
      rate,
      keys: keys === 'uniform' ? { kind: 'uniform', count: 10 } : keys === 'hot' ? { kind: 'hot', count: 10, share: 0.5 } : { kind: 'none' },
    }));
}
