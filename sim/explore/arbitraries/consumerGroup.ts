import fc from 'fast-check';
import type { ConsumerSpec } from '../../scenario/spec';

/**
 * A consumer group on some topics: 0 to 3 members (none shrinks away), and how the application commits —
 * auto-commit, commitSync after processing, commitAsync, or commitSync before processing (at-most-once).
 */
export function consumerGroup(topics: readonly string[]): fc.Arbitrary<ConsumerSpec[]> {
  return fc
    .record({
      members: fc.integer({ min: 0, max: 3 }),
      commit: fc.constantFrom('auto', 'sync', 'async', 'before-processing'),
    })
    .map(({ members, commit }) =>
      Array.from({ length: members }, (_, i): ConsumerSpec => ({
        id: `consumer-${i + 1}`,
        group: 'group-1',
        topics: [...topics],
        config: { 'enable.auto.commit': commit === 'auto', 'auto.offset.reset': 'earliest' },
        processing: { commit },
      })),
    );
}
