import type { Micros } from '../core/time';
import type { KafkaCluster, KafkaClusterOptions } from '../kafka/cluster';
import type { TopicToCreate } from '../kafka/admin';
import { CONSUMER_OFFSETS_TOPIC, GroupCoordinatorService } from '../kafka/broker/groupCoordinatorService';
import { Consumer } from '../kafka/client/consumer/consumer';
import { Producer } from '../kafka/client/producer/producer';
import type { ProcessingModel } from '../kafka/client/consumer/processingModel';
import type { Scenario } from './validate';

/** Whether any consumer of the scenario uses a group (then brokers coordinate groups). */
function hasGroups(s: Scenario): boolean {
  // Share groups live in __consumer_offsets too, and the group coordinator answers their FindCoordinator.
  return s.consumers.some((c) => c.group !== null) || s.shareConsumers.length > 0;
}

/** Consumers, and the group coordinator their brokers embed. */
export const attachConsumers = {
  /** `force`: coordinate groups even when no simulated consumer needs it (real clients may). */
  brokerExtensions(s: Scenario, force = false): Partial<Pick<KafkaClusterOptions, 'brokerExtensions'>> {
    return force || hasGroups(s) ? { brokerExtensions: (b) => new GroupCoordinatorService(b) } : {};
  },

  /** Adds each consumer's host and process; scenario times shift onto the clock at `t0`. */
  start(s: Scenario, cluster: KafkaCluster, t0: Micros): void {
    const t0ms = t0 / 1000;
    for (const c of s.consumers) {
      const p = c.processing;
      const processing: ProcessingModel = {
        ...p,
        startMs: t0ms + c.startUs / 1000,
        ...(p.stopMs !== undefined && { stopMs: t0ms + p.stopMs }),
        ...(p.stalls && { stalls: p.stalls.map((x) => ({ ...x, atMs: t0ms + x.atMs })) }),
        // A seek to a time names a scenario time too: record timestamps are on the simulated clock.
        ...(p.seeks && { seeks: p.seeks.map((x) => ({ atMs: t0ms + x.atMs, to: typeof x.to === 'object' && 'timestampMs' in x.to ? { timestampMs: t0ms + x.to.timestampMs } : x.to })) }),
      };
      const world = cluster.world;
      const host = world.addHost({ id: c.id, zone: c.zone ?? cluster.opts.zones[0] ?? 'zone-a', tags: ['client', 'consumer'] });
      // A consume-transform-produce application's producer lives in the same process space: a crash takes both.
      const transform = c.transform;
      if (transform) {
        host.addProcess({
          id: transform.producerId,
          create: (ctx) => new Producer(ctx, { id: transform.producerId, config: transform.producerConfig, bootstrap: cluster.brokerIds, workloads: [], transactionVersion: s.cluster.transactionVersion }),
        });
      }
      const assign = c.group === null ? s.topics.filter((t) => c.topics.includes(t.name)).flatMap((t) => Array.from({ length: t.partitions }, (_, i) => ({ topic: t.name, partition: i }))) : undefined;
      host.addProcess({
        id: c.id,
        create: (ctx) =>
          new Consumer(ctx, {
            id: c.id,
            config: c.config,
            bootstrap: cluster.brokerIds,
            processing,
            ...(c.group === null ? { assign: assign! } : { topics: c.topics }),
            ...(transform && { transform: { topic: transform.topic, guarantee: transform.guarantee, producer: () => host.process(transform.producerId) as Producer | undefined } }),
          }),
      });
      host.start();
    }
  },
};

/**
 * __consumer_offsets, when groups are used: compacted, offsets.topic.replication.factor replicas (3). With fewer
 * brokers Kafka cannot create it, and every FindCoordinator answers COORDINATOR_NOT_AVAILABLE until the cluster is
 * big enough: set offsets.topic.replication.factor to the broker count, as single-broker setups do.
 * [group-coordinator/.../GroupCoordinatorConfig.java OFFSETS_TOPIC_REPLICATION_FACTOR_DOC; KIP-115]
 */
export function consumerTopics(s: Scenario, force = false): TopicToCreate[] {
  if (!force && !hasGroups(s)) return [];
  const c = s.cluster.brokerConfig;
  return [
    {
      name: CONSUMER_OFFSETS_TOPIC,
      numPartitions: c['offsets.topic.num.partitions'],
      replicationFactor: c['offsets.topic.replication.factor'],
      configs: { 'cleanup.policy': 'compact', 'segment.bytes': String(c['offsets.topic.segment.bytes']) },
      internal: true,
    },
  ];
}
