import { TOPIC_CONFIGS } from '../../config/configs';
import { configDef } from '../../config/def';
import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import type { ConfigRecord, ConfigResourceType, MetadataRecord } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';

/** One config to set (value) or delete (null) on a TOPIC, a BROKER (its id), or the cluster (BROKER ''). */
export interface ConfigChange {
  readonly resourceType: ConfigResourceType;
  readonly resourceName: string;
  readonly name: string;
  readonly value: string | null;
}

export interface AlterConfigsReply {
  readonly error: KafkaError;
  readonly message: string;
}

/**
 * With ELR on, every ConfigRecord of min.insync.replicas is followed by a ClearElrRecord for its topic, or for
 * all topics when it is a broker/cluster config: ELR membership was judged against the old min ISR.
 * [metadata/.../controller/ConfigurationControlManager.java `createClearElrRecordsAsNeeded`]
 */
export function clearElrRecordsFor(image: MetadataView, configRecords: readonly ConfigRecord[]): MetadataRecord[] {
  if (!image.elrEnabled()) return [];
  const out: MetadataRecord[] = [];
  for (const r of configRecords) {
    if (r.name !== 'min.insync.replicas') continue;
    out.push({ type: 'ClearElrRecord', topicName: r.resourceType === 'TOPIC' ? r.resourceName : '' });
  }
  return out;
}

/**
 * IncrementalAlterConfigs (SET / DELETE), all or nothing. Topic configs must be known and valid and the topic
 * must exist (UNKNOWN_TOPIC_OR_PARTITION). With ELR on, a broker-level min.insync.replicas may not be set and
 * the cluster-level one may not be removed (INVALID_CONFIG): ELR needs one min ISR for the whole cluster.
 * [ConfigurationControlManager.java `incrementalAlterConfigs`, `isDisallowedBrokerMinIsrTransition`,
 * `isDisallowedClusterMinIsrTransition`]
 */
export function alterConfigs(image: MetadataView, changes: readonly ConfigChange[]): ControllerResult<AlterConfigsReply> {
  const fail = (error: KafkaError, message: string): ControllerResult<AlterConfigsReply> => ({ records: [], response: { error, message }, elections: [] });
  const records: ConfigRecord[] = [];
  for (const c of changes) {
    if (c.resourceType === 'TOPIC') {
      if (!image.topicByName(c.resourceName)) return fail('UNKNOWN_TOPIC_OR_PARTITION', `no topic ${c.resourceName}`);
      const def = configDef(TOPIC_CONFIGS, c.name);
      if (!def) return fail('INVALID_CONFIG', `unknown topic config ${c.name}`);
      if (c.value !== null && def.read(c.value) === undefined) return fail('INVALID_CONFIG', `${c.name}=${c.value} is not ${def.allowed}`);
    } else if (c.name === 'min.insync.replicas' && image.elrEnabled()) {
      if (c.resourceName !== '') return fail('INVALID_CONFIG', 'A broker-level min.insync.replicas cannot be changed while ELR is on.');
      if (c.value === null) return fail('INVALID_CONFIG', 'The cluster-level min.insync.replicas cannot be removed while ELR is on.');
    }
    records.push({ type: 'ConfigRecord', resourceType: c.resourceType, resourceName: c.resourceName, name: c.name, value: c.value });
  }
  return { records: [...records, ...clearElrRecordsFor(image, records)], response: { error: 'NONE', message: '' }, elections: [] };
}
