import type { Micros } from '../core/time';
import type { KafkaCluster, KafkaClusterOptions } from '../kafka/cluster';
import type { TopicToCreate } from '../kafka/admin';
import type { Scenario } from './validate';

/** Consumers and the group coordinator are wired in here (filled in with the consumer client). */
export const attachConsumers = {
  brokerExtensions(_s: Scenario): Partial<Pick<KafkaClusterOptions, 'brokerExtensions'>> {
    return {};
  },
  start(_s: Scenario, _cluster: KafkaCluster, _t0: Micros): void {},
};

export function consumerTopics(_s: Scenario): TopicToCreate[] {
  return [];
}
