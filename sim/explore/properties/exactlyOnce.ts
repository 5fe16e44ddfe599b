import type { ConsumerSpec, ScenarioSpec, TopicSpec } from '../../scenario/spec';
import { checkProperty } from './property';

/**
 * A consume-transform-produce application with exactly_once_v2 reading the first topic into a derived topic
 * `<topic>-derived` (same partitions and replication), unless the scenario already has one; with fewer than 3
 * brokers __transaction_state is made to fit them.
 */
function withExactlyOnceApp(spec: ScenarioSpec): ScenarioSpec {
  const consumers = spec.consumers ?? [];
  if (consumers.some((c) => c.transform !== undefined)) return spec;
  const first = (spec.topics ?? [])[0];
  if (!first) return spec;
  const derived: TopicSpec = { ...first, name: `${first.name}-derived` };
  const app: ConsumerSpec = { id: 'explore-eos-app', group: 'explore-eos-app', topics: [first.name], config: { 'auto.offset.reset': 'earliest' }, transform: { topic: derived.name, guarantee: 'exactly_once_v2' } };
  const brokers = spec.cluster?.brokers ?? 3;
  const small = brokers < 3 ? { 'transaction.state.log.replication.factor': brokers, 'transaction.state.log.min.isr': Math.min(2, brokers) } : {};
  return {
    ...spec,
    ...(brokers < 3 && { cluster: { ...spec.cluster, broker: { ...spec.cluster?.broker, ...small } } }),
    topics: [...(spec.topics ?? []), derived],
    consumers: [...consumers, app],
  };
}

/**
 * Every input of a consume-transform-produce application has its output exactly once in the committed output: no
 * duplicate effect (output-duplicates) and none lost (output-lost: an input the group committed past without its
 * output), both counted by output-not-once. The promise of exactly_once_v2: outputs and input offsets in one
 * transaction [KIP-98, KIP-447]. `--set` cannot change the guarantee; a scenario with its own application is
 * judged as it is.
 */
export const exactlyOnce = checkProperty(
  'exactly-once',
  'output-not-once',
  'each input of a consume-transform-produce application has its output exactly once in the committed output (none twice, none lost)',
  withExactlyOnceApp,
);
