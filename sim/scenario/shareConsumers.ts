/**
 * Share consumers in a run (KIP-932): the brokers' share-group service beside their other extensions, and each
 * share consumer's host and process. The scenario document's side is `shareConsumersSpec.ts`.
 */
import type { Micros } from '../core/time';
import type { BrokerExtension, Broker } from '../kafka/broker/broker';
import type { KafkaCluster } from '../kafka/cluster';
import { ShareConsumer } from '../kafka/client/share/shareConsumer';
import { composeExtensions } from '../kafka/broker/transactionCoordinatorService';
import { ShareGroupService } from '../kafka/share/shareGroupService';
import { ShareStateStore } from '../kafka/share/shareStateStore';
import type { ResolvedShareConsumer } from './shareConsumersSpec';
import type { ShareVersion } from '../kafka/share/shareVersion';

export const attachShareConsumers = {
  /** The brokers' extension with the share-group service beside what they already run (the group coordinator answers FindCoordinator). */
  brokerExtensions(s: { readonly shareConsumers: readonly ResolvedShareConsumer[]; readonly cluster: { readonly shareVersion: ShareVersion } }, inner: ((b: Broker) => BrokerExtension) | undefined): ((b: Broker) => BrokerExtension) | undefined {
    if (s.shareConsumers.length === 0) return inner;
    // One store for the whole cluster: it outlives any broker (the share coordinator's role, see sim/kafka/share/README.md).
    const store = new ShareStateStore();
    return (b) => {
      const share = new ShareGroupService(b, store, s.cluster.shareVersion);
      return inner ? composeExtensions(inner(b), share) : share;
    };
  },

  start(s: { readonly shareConsumers: readonly ResolvedShareConsumer[] }, cluster: KafkaCluster, t0: Micros): void {
    const t0ms = t0 / 1000;
    for (const c of s.shareConsumers) {
      const host = cluster.world.addHost({ id: c.id, zone: c.zone ?? cluster.opts.zones[0] ?? 'zone-a', tags: ['client', 'consumer', 'share-consumer'] });
      host.addProcess({
        id: c.id,
        create: (ctx) =>
          new ShareConsumer(ctx, {
            id: c.id,
            groupId: c.group,
            topics: c.topics,
            config: c.config,
            bootstrap: cluster.brokerIds,
            processing: {
              startMs: t0ms + c.startUs / 1000,
              ...(c.processing.stopMs !== undefined && { stopMs: t0ms + c.processing.stopMs }),
              pollTimeoutMs: c.processing.pollTimeoutMs,
              recordTime: c.processing.recordTime,
              commit: c.processing.commit,
              failures: c.processing.failures,
              ...(c.processing.renewIntervalMs !== undefined && { renewIntervalMs: c.processing.renewIntervalMs }),
            },
          }),
      });
      host.start();
    }
  },
};
