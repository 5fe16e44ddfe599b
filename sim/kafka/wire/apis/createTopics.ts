import { array, bool, int16, int32, int8, message, scalarArray, string, uuid, type MessageOf } from '../codec/schema';
import type { KafkaError } from '../../errors';
import type { TopicCreation } from '../context';
import { defineApi } from './api';
import { aliveBrokerIds, code, invalidTopicReason } from './support';

// [CreateTopicsRequest.json, CreateTopicsResponse.json]
export const CreateTopicsRequest = message('CreateTopicsRequest', '0-7', '5+', [
  array('topics', '0+', [
    string('name', '0+'),
    int32('numPartitions', '0+'),
    int16('replicationFactor', '0+'),
    array('assignments', '0+', [int32('partitionIndex', '0+'), scalarArray('brokerIds', '0+', 'int32')]),
    array('configs', '0+', [string('name', '0+'), string('value', '0+', { nullable: '0+' })]),
  ]),
  int32('timeoutMs', '0+', { default: 60000 }),
  bool('validateOnly', '1+'),
]);

export const CreateTopicsResponse = message('CreateTopicsResponse', '0-7', '5+', [
  int32('throttleTimeMs', '2+'),
  array('topics', '0+', [
    string('name', '0+'),
    uuid('topicId', '7+'),
    int16('errorCode', '0+'),
    string('errorMessage', '1+', { nullable: '0+' }),
    int16('topicConfigErrorCode', '5+', { tag: 0 }),
    int32('numPartitions', '5+', { default: -1 }),
    int16('replicationFactor', '5+', { default: -1 }),
    array(
      'configs',
      '5+',
      [string('name', '5+'), string('value', '5+', { nullable: '5+' }), bool('readOnly', '5+'), int8('configSource', '5+', { default: -1 }), bool('isSensitive', '5+')],
      { nullable: '5+' },
    ),
  ]),
]);

export type CreateTopicsRequestData = MessageOf<typeof CreateTopicsRequest>;
export type CreateTopicsResponseData = MessageOf<typeof CreateTopicsResponse>;

// KIP-896 removed versions 0-1.
interface Outcome {
  error: KafkaError;
  message: string | null;
  creation: TopicCreation | null;
}

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
/** ConfigSource.DYNAMIC_TOPIC_CONFIG */
const TOPIC_CONFIG_SOURCE = 1;

export const createTopics = defineApi({
  key: 19,
  name: 'CreateTopics',
  request: CreateTopicsRequest,
  response: CreateTopicsResponse,
  minVersion: 2,
  maxVersion: 7,
  // [KafkaApis.handleCreateTopicsRequest, forwarded to the active controller; ControllerApis.createTopics].
  // -1 partitions or replication factor take the broker defaults (KIP-464).
  handle(ctx, req) {
    const b = ctx.broker;
    const c = b.config;
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const outcomes: Outcome[] = req.topics.map((t) => {
      const fail = (error: KafkaError, message: string): Outcome => ({ error, message, creation: null });
      if (counts.get(t.name)! > 1) return fail('INVALID_REQUEST', `Create topics request from client \`${ctx.header.clientId}\` contains multiple entries for the topic ${t.name}`);
      const invalid = invalidTopicReason(t.name);
      if (invalid !== null) return fail('INVALID_TOPIC_EXCEPTION', `Topic name is invalid: ${invalid}`);
      if (t.assignments.length > 0) return fail('INVALID_REQUEST', 'manual replica assignments are not simulated: give numPartitions and replicationFactor');
      const numPartitions = t.numPartitions === -1 ? c['num.partitions'] : t.numPartitions;
      const replicationFactor = t.replicationFactor === -1 ? c['default.replication.factor'] : t.replicationFactor;
      const configs: Record<string, string> = {};
      for (const cfg of t.configs) if (cfg.value !== null) configs[cfg.name] = cfg.value;
      if (req.validateOnly) {
        if (b.image.topicByName(t.name)) return fail('TOPIC_ALREADY_EXISTS', `Topic '${t.name}' already exists.`);
        if (numPartitions < 1) return fail('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.');
        const alive = aliveBrokerIds(b).length;
        if (replicationFactor < 1 || replicationFactor > alive) return fail('INVALID_REPLICATION_FACTOR', `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only ${alive} broker(s) are registered.`);
      }
      return { error: 'NONE', message: null, creation: { name: t.name, numPartitions, replicationFactor, configs } };
    });
    const answer = () =>
      ctx.respond({
        throttleTimeMs: 0,
        topics: req.topics.map((t, i) => {
          const o = outcomes[i]!;
          const ok = o.error === 'NONE' && o.creation !== null;
          return {
            name: t.name,
            topicId: b.image.topicByName(t.name)?.topicId ?? ZERO,
            errorCode: code(o.error),
            errorMessage: o.message,
            numPartitions: ok ? o.creation!.numPartitions : -1,
            replicationFactor: ok ? o.creation!.replicationFactor : -1,
            configs: ok ? Object.entries(o.creation!.configs).map(([name, value]) => ({ name, value, readOnly: false, configSource: TOPIC_CONFIG_SOURCE, isSensitive: false })) : null,
          };
        }),
      });
    const toCreate = outcomes.flatMap((o) => (o.creation && o.error === 'NONE' ? [o.creation] : []));
    if (req.validateOnly || toCreate.length === 0) return answer();
    ctx.state.createTopics(toCreate, Math.max(1000, req.timeoutMs), (results) => {
      for (const r of results) {
        const o = outcomes.find((x) => x.creation?.name === r.name);
        if (!o) continue;
        o.error = r.error;
        o.message = r.error === 'NONE' || r.message === '' ? null : r.message;
      }
      answer();
    });
  },
});
