import fc from 'fast-check';
import type { TopicSpec } from '../../scenario/spec';

/**
 * A topic: partitions, replication factor and the topic configs that decide durability, with Kafka's
 * names. Each shrinks toward the durable setting (replication factor 3, min.insync.replicas=2, no unclean
 * election, delete policy), so a shrunk counterexample keeps only the deviations it needs.
 */
export function topicConfig(name: string): fc.Arbitrary<TopicSpec> {
  return fc
    .record({
      partitions: fc.integer({ min: 1, max: 6 }),
      replicationFactor: fc.constantFrom(3, 2, 1),
      minIsr: fc.constantFrom(2, 1, 3),
      unclean: fc.constantFrom(false, true),
      cleanup: fc.constantFrom('delete', 'compact', 'compact,delete'),
    })
    .map(
      (t): TopicSpec => ({
        name,
        partitions: t.partitions,
        replicationFactor: t.replicationFactor,
        config: {
          'min.insync.replicas': t.minIsr,
          'unclean.leader.election.enable': t.unclean,
          'cleanup.policy': t.cleanup,
        },
      }),
    );
}
