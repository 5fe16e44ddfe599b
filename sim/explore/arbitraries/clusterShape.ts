import fc from 'fast-check';
import type { ClusterSpec } from '../../scenario/spec';

const RACKS = ['rack-a', 'rack-b', 'rack-c'];

/**
 * The cluster's shape: 3 to 5 brokers, a KRaft quorum of 1, 3 or 5 controllers, and brokers spread over
 * no racks, 2 or 3 racks. Shrinks toward the common shape: 3 controllers, 3 brokers, no racks.
 */
export function clusterShape(): fc.Arbitrary<ClusterSpec> {
  return fc
    .record({
      controllers: fc.constantFrom(3, 1, 5),
      brokers: fc.integer({ min: 3, max: 5 }),
      racks: fc.constantFrom(0, 3, 2),
    })
    .map(({ controllers, brokers, racks }): ClusterSpec => ({ controllers, brokers, ...(racks > 0 && { racks: RACKS.slice(0, racks) }) }));
}
