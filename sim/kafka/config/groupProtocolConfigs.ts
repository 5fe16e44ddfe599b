/**
 * Configs that only one group protocol accepts, and the bounds of the consumer protocol's group configs.
 * Kafka refuses the others when the consumer is built (ConfigException) or when the group config is altered
 * (InvalidConfigurationException); here they are scenario errors.
 * [clients/.../consumer/ConsumerConfig.java `checkUnsupportedConfigsPostProcess`;
 * group-coordinator/.../GroupConfig.java `validate`; GroupCoordinatorConfig.java (the `require`s)]
 */
import type { BrokerConfig } from './configs';

/** Set explicitly with group.protocol=consumer, these are a ConfigException. [`CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS`] */
export const CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS = ['partition.assignment.strategy', 'heartbeat.interval.ms', 'session.timeout.ms'] as const;

/** Set with group.protocol=classic, a ConfigException. [`CLASSIC_PROTOCOL_UNSUPPORTED_CONFIGS`] */
export const CLASSIC_PROTOCOL_UNSUPPORTED_CONFIGS = ['group.remote.assignor'] as const;

/**
 * The consumer configs the client refuses for its group protocol, given the ones set explicitly (non-null);
 * the message is Kafka's: "a, b cannot be set when group.protocol=CONSUMER".
 */
export function unsupportedConsumerConfigs(protocol: 'classic' | 'consumer', explicit: Readonly<Record<string, unknown>>): { names: string[]; message: string } | null {
  const list: readonly string[] = protocol === 'consumer' ? CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS : CLASSIC_PROTOCOL_UNSUPPORTED_CONFIGS;
  const names = list.filter((n) => explicit[n] !== undefined && explicit[n] !== null && String(explicit[n]).trim() !== '');
  if (names.length === 0) return null;
  return { names, message: `${names.join(', ')} cannot be set when group.protocol=${protocol.toUpperCase()}` };
}

/** The group configs of the consumer protocol (kafka-configs --entity-type groups), see GROUP_CONFIGS. */
export type GroupConfigName = 'consumer.session.timeout.ms' | 'consumer.heartbeat.interval.ms';

/** Why a group config value is refused by the broker's bounds, or null. [GroupConfig.java `validateValues`] */
export function groupConfigError(name: GroupConfigName, value: number, broker: BrokerConfig, other: Partial<Record<GroupConfigName, number>>): string | null {
  if (name === 'consumer.session.timeout.ms') {
    const min = broker['group.consumer.min.session.timeout.ms'];
    const max = broker['group.consumer.max.session.timeout.ms'];
    if (value < min) return `consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms (${min})`;
    if (value > max) return `consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms (${max})`;
  } else {
    const min = broker['group.consumer.min.heartbeat.interval.ms'];
    const max = broker['group.consumer.max.heartbeat.interval.ms'];
    if (value < min) return `consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms (${min})`;
    if (value > max) return `consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms (${max})`;
  }
  const session = name === 'consumer.session.timeout.ms' ? value : (other['consumer.session.timeout.ms'] ?? broker['group.consumer.session.timeout.ms']);
  const interval = name === 'consumer.heartbeat.interval.ms' ? value : (other['consumer.heartbeat.interval.ms'] ?? broker['group.consumer.heartbeat.interval.ms']);
  if (interval >= session) return 'consumer.heartbeat.interval.ms must be less than consumer.session.timeout.ms';
  return null;
}

/** The broker's own consistency rules for group.consumer.*; the first broken one, or null. [GroupCoordinatorConfig.java] */
export function brokerGroupConsumerConfigError(b: BrokerConfig): string | null {
  const hb = b['group.consumer.heartbeat.interval.ms'];
  const session = b['group.consumer.session.timeout.ms'];
  if (b['group.consumer.max.heartbeat.interval.ms'] < b['group.consumer.min.heartbeat.interval.ms']) return 'group.consumer.max.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms';
  if (hb < b['group.consumer.min.heartbeat.interval.ms']) return 'group.consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms';
  if (hb > b['group.consumer.max.heartbeat.interval.ms']) return 'group.consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms';
  if (b['group.consumer.max.session.timeout.ms'] < b['group.consumer.min.session.timeout.ms']) return 'group.consumer.max.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms';
  if (session < b['group.consumer.min.session.timeout.ms']) return 'group.consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms';
  if (session > b['group.consumer.max.session.timeout.ms']) return 'group.consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms';
  if (hb >= session) return 'group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms';
  return null;
}
