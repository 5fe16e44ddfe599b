import { lookup } from '../../core/validate';
import { TOPIC_CONFIGS } from '../config/configs';
import { configDef } from '../config/def';

/**
 * The broker config that supplies a topic config's default when the topic does not set it
 * [server-common/.../config/ServerTopicConfigSynonyms.java]. Names not listed are their own synonym
 * (min.insync.replicas, unclean.leader.election.enable, compression.type).
 */
export const TOPIC_CONFIG_BROKER_SYNONYMS: Readonly<Record<string, string>> = {
  'segment.bytes': 'log.segment.bytes',
  'segment.ms': 'log.roll.ms',
  'segment.jitter.ms': 'log.roll.jitter.ms',
  'segment.index.bytes': 'log.index.size.max.bytes',
  'flush.messages': 'log.flush.interval.messages',
  'flush.ms': 'log.flush.interval.ms',
  'retention.bytes': 'log.retention.bytes',
  'retention.ms': 'log.retention.ms',
  'max.message.bytes': 'message.max.bytes',
  'index.interval.bytes': 'log.index.interval.bytes',
  'delete.retention.ms': 'log.cleaner.delete.retention.ms',
  'min.compaction.lag.ms': 'log.cleaner.min.compaction.lag.ms',
  'max.compaction.lag.ms': 'log.cleaner.max.compaction.lag.ms',
  'file.delete.delay.ms': 'log.segment.delete.delay.ms',
  'min.cleanable.dirty.ratio': 'log.cleaner.min.cleanable.ratio',
  'cleanup.policy': 'log.cleanup.policy',
  'message.timestamp.type': 'log.message.timestamp.type',
};

export function brokerSynonym(topicConfig: string): string {
  return lookup(TOPIC_CONFIG_BROKER_SYNONYMS, topicConfig) ?? topicConfig;
}

/** Kafka's default of a topic config, as the string a ConfigRecord would hold; undefined for unknown names. */
export function topicConfigDefault(name: string): string | undefined {
  const def = configDef(TOPIC_CONFIGS, name);
  if (def === undefined) return undefined;
  const v = def.default;
  return Array.isArray(v) ? v.join(',') : String(v);
}

/** Where each layer of a topic's effective config comes from, highest precedence first. */
export interface TopicConfigSources {
  /** ConfigRecords of the TOPIC resource. */
  readonly topic: ReadonlyMap<string, string> | undefined;
  /** ConfigRecords of this node's own BROKER resource (its id), if any. */
  readonly node: ReadonlyMap<string, string> | undefined;
  /** ConfigRecords of the BROKER resource '' (the cluster-wide default). */
  readonly cluster: ReadonlyMap<string, string> | undefined;
  /** The node's static configuration (server.properties). */
  readonly staticConfig: Readonly<Record<string, string>>;
}

/**
 * A topic config's effective value: the topic's own value, else this node's dynamic broker config, else the
 * cluster default, else the static config, else Kafka's default (each broker layer under the broker synonym).
 * [server-common/.../config/ConfigSynonym; metadata/.../controller/ConfigurationControlManager.java `getTopicConfig`;
 * KafkaConfigSchema.java `resolveEffectiveTopicConfig`]
 */
export function resolveTopicConfig(name: string, s: TopicConfigSources): string | undefined {
  const own = s.topic?.get(name);
  if (own !== undefined) return own;
  const synonym = brokerSynonym(name);
  return s.node?.get(synonym) ?? s.cluster?.get(synonym) ?? s.staticConfig[synonym] ?? topicConfigDefault(name);
}
