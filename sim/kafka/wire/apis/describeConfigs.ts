import { array, bool, int16, int32, int8, message, scalarArray, string, type MessageOf } from '../codec/schema';
import { BROKER_CONFIGS, TOPIC_CONFIGS } from '../../config/configs';
import { brokerSynonym, topicConfigDefault } from '../../metadata/topicConfigResolution';
import type { WireBroker } from '../context';
import { defineApi } from './api';
import { code } from './support';

// [DescribeConfigsRequest.json, DescribeConfigsResponse.json]
export const DescribeConfigsRequest = message('DescribeConfigsRequest', '0-4', '4+', [
  array('resources', '0+', [int8('resourceType', '0+'), string('resourceName', '0+'), scalarArray('configurationKeys', '0+', 'string', { nullable: '0+' })]),
  bool('includeSynonyms', '1+'),
  bool('includeDocumentation', '3+'),
]);

export const DescribeConfigsResponse = message('DescribeConfigsResponse', '0-4', '4+', [
  int32('throttleTimeMs', '0+'),
  array('results', '0+', [
    int16('errorCode', '0+'),
    string('errorMessage', '0+', { nullable: '0+' }),
    int8('resourceType', '0+'),
    string('resourceName', '0+'),
    array('configs', '0+', [
      string('name', '0+'),
      string('value', '0+', { nullable: '0+' }),
      bool('readOnly', '0+'),
      bool('isDefault', '0'),
      int8('configSource', '1+', { default: -1 }),
      bool('isSensitive', '0+'),
      array('synonyms', '1+', [string('name', '1+'), string('value', '1+', { nullable: '0+' }), int8('source', '1+')]),
      int8('configType', '3+'),
      string('documentation', '3+', { nullable: '0+' }),
    ]),
  ]),
]);

export type DescribeConfigsRequestData = MessageOf<typeof DescribeConfigsRequest>;
export type DescribeConfigsResponseData = MessageOf<typeof DescribeConfigsResponse>;

// KIP-896 removed version 0.
/** ConfigResource.Type [ConfigResource.java] */
const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;

/** DescribeConfigsResponse.ConfigSource */
const SOURCE = { topic: 1, node: 2, cluster: 3, static: 4, default: 5 } as const;

/** ConfigDef.Type as DescribeConfigs v3 numbers it: BOOLEAN 1, STRING 2, INT 3, SHORT 4, LONG 5, DOUBLE 6, LIST 7. */
function configType(name: string, def: unknown): number {
  if (typeof def === 'boolean') return 1;
  if (Array.isArray(def)) return 7;
  if (typeof def === 'string') return 2;
  if (name.endsWith('.ratio')) return 6;
  if (name.endsWith('.ms') || name === 'retention.bytes' || name === 'flush.messages' || name.endsWith('.per.second')) return 5;
  return 3;
}

type ConfigEntry = DescribeConfigsResponseData['results'][number]['configs'][number];

/** A topic's configs, each with where its value comes from [ConfigHelper.describeConfigs; KafkaConfigSchema]. */
function topicConfigs(b: WireBroker, topic: string, keys: readonly string[] | null, synonyms: boolean): ConfigEntry[] {
  const image = b.image;
  const layers: { source: number; configs: ReadonlyMap<string, string> | Readonly<Record<string, string>> | undefined; synonym: boolean }[] = [
    { source: SOURCE.topic, configs: image.resourceConfigs('TOPIC', topic), synonym: false },
    { source: SOURCE.node, configs: image.resourceConfigs('BROKER', String(b.brokerId)), synonym: true },
    { source: SOURCE.cluster, configs: image.resourceConfigs('BROKER', ''), synonym: true },
    { source: SOURCE.static, configs: b.staticConfig, synonym: true },
  ];
  const get = (c: ReadonlyMap<string, string> | Readonly<Record<string, string>> | undefined, k: string): string | undefined =>
    c === undefined ? undefined : c instanceof Map ? c.get(k) : (c as Readonly<Record<string, string>>)[k];
  return Object.entries(TOPIC_CONFIGS)
    .filter(([name]) => keys === null || keys.includes(name))
    .map(([name, def]) => {
      const found: { name: string; value: string; source: number }[] = [];
      for (const l of layers) {
        const key = l.synonym ? brokerSynonym(name) : name;
        const v = get(l.configs, key);
        if (v !== undefined) found.push({ name: key, value: v, source: l.source });
      }
      found.push({ name: brokerSynonym(name), value: topicConfigDefault(name) ?? '', source: SOURCE.default });
      const top = found[0]!;
      return {
        name,
        value: top.value,
        readOnly: false,
        isDefault: top.source === SOURCE.default,
        configSource: top.source,
        isSensitive: false,
        synonyms: synonyms ? found : [],
        configType: configType(name, def.default),
        documentation: null,
      };
    });
}

/** This broker's own static configs (dynamic broker configs are not modelled for brokers). */
function brokerConfigs(b: WireBroker, keys: readonly string[] | null, synonyms: boolean): ConfigEntry[] {
  return Object.entries(BROKER_CONFIGS)
    .filter(([name]) => keys === null || keys.includes(name))
    .map(([name, def]) => {
      const isStatic = b.staticConfig[name] !== undefined;
      const v = (b.config as Readonly<Record<string, unknown>>)[name];
      const value = Array.isArray(v) ? v.join(',') : String(v);
      const source = isStatic ? SOURCE.static : SOURCE.default;
      return { name, value, readOnly: true, isDefault: !isStatic, configSource: source, isSensitive: false, synonyms: synonyms ? [{ name, value, source }] : [], configType: configType(name, def.default), documentation: null };
    });
}

export const describeConfigs = defineApi({
  key: 32,
  name: 'DescribeConfigs',
  request: DescribeConfigsRequest,
  response: DescribeConfigsResponse,
  minVersion: 1,
  maxVersion: 4,
  // [KafkaApis.handleDescribeConfigsRequest; ConfigHelper.describeConfigs]
  handle(ctx, req) {
    const b = ctx.broker;
    const results = req.resources.map((r) => {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      const fail = (e: 'UNKNOWN_TOPIC_OR_PARTITION' | 'INVALID_REQUEST', message: string) => ({ ...base, errorCode: code(e), errorMessage: message, configs: [] });
      if (r.resourceType === TOPIC) {
        if (!b.image.topicByName(r.resourceName)) return fail('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${r.resourceName}' does not exist.`);
        return { ...base, errorCode: 0, errorMessage: null, configs: topicConfigs(b, r.resourceName, r.configurationKeys, req.includeSynonyms) };
      }
      if (r.resourceType === BROKER) {
        if (r.resourceName !== '' && r.resourceName !== String(b.brokerId)) return fail('INVALID_REQUEST', `broker ${r.resourceName}'s configs are described by broker ${r.resourceName} itself, not broker ${b.brokerId}`);
        return { ...base, errorCode: 0, errorMessage: null, configs: brokerConfigs(b, r.configurationKeys, req.includeSynonyms) };
      }
      if (r.resourceType === BROKER_LOGGER) return { ...base, errorCode: 0, errorMessage: null, configs: [] };
      return fail('INVALID_REQUEST', `resource type ${r.resourceType} is not described by this simulated broker`);
    });
    ctx.respond({ throttleTimeMs: 0, results });
  },
});
