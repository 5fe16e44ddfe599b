import { array, bool, int16, int32, message, scalarArray, string, uuid, type MessageOf } from '../codec/schema';
import type { TopicImage } from '../../metadata/metadataImage';
import type { WireBroker } from '../context';
import { defineApi } from './api';
import { brokerNodes, aliveBrokerIds, code, invalidTopicReason, isAlive, isInternalTopic, randomAliveBrokerId } from './support';

// [MetadataRequest.json, MetadataResponse.json]
export const MetadataRequest = message('MetadataRequest', '0-12', '9+', [
  array('topics', '0+', [uuid('topicId', '10+'), string('name', '0+', { nullable: '10+' })], { nullable: '1+' }),
  bool('allowAutoTopicCreation', '4+', { default: true }),
  bool('includeClusterAuthorizedOperations', '8-10'),
  bool('includeTopicAuthorizedOperations', '8+'),
]);

export const MetadataResponse = message('MetadataResponse', '0-12', '9+', [
  int32('throttleTimeMs', '3+'),
  array('brokers', '0+', [
    int32('nodeId', '0+'),
    string('host', '0+'),
    int32('port', '0+'),
    string('rack', '1+', { nullable: '1+', default: null }),
  ]),
  string('clusterId', '2+', { nullable: '2+', default: null }),
  int32('controllerId', '1+', { default: -1 }),
  array('topics', '0+', [
    int16('errorCode', '0+'),
    string('name', '0+', { nullable: '12+' }),
    uuid('topicId', '10+'),
    bool('isInternal', '1+'),
    array('partitions', '0+', [
      int16('errorCode', '0+'),
      int32('partitionIndex', '0+'),
      int32('leaderId', '0+'),
      int32('leaderEpoch', '7+', { default: -1 }),
      scalarArray('replicaNodes', '0+', 'int32'),
      scalarArray('isrNodes', '0+', 'int32'),
      scalarArray('offlineReplicas', '5+', 'int32'),
    ]),
    int32('topicAuthorizedOperations', '8+', { default: -2147483648 }),
  ]),
  int32('clusterAuthorizedOperations', '8-10', { default: -2147483648 }),
]);

export type MetadataRequestData = MessageOf<typeof MetadataRequest>;
export type MetadataResponseData = MessageOf<typeof MetadataResponse>;

type TopicMetadata = MetadataResponseData['topics'][number];

/** A topic as this broker's metadata has it [KRaftMetadataCache.getTopicMetadata, getPartitionMetadata]. */
function topicMetadata(b: WireBroker, t: TopicImage): TopicMetadata {
  return {
    errorCode: 0,
    name: t.name,
    topicId: t.topicId,
    isInternal: isInternalTopic(t.name),
    partitions: t.partitions.map((p, partitionIndex) => {
      // A leader that is not alive (fenced, or none) is LEADER_NOT_AVAILABLE with no leader id.
      const led = p.leader >= 0 && isAlive(b, p.leader);
      return {
        errorCode: led ? 0 : code('LEADER_NOT_AVAILABLE'),
        partitionIndex,
        leaderId: led ? p.leader : -1,
        leaderEpoch: p.leaderEpoch,
        replicaNodes: [...p.replicas],
        isrNodes: [...p.isr],
        offlineReplicas: p.replicas.filter((r) => !isAlive(b, r)),
      };
    }),
    topicAuthorizedOperations: -2147483648,
  };
}

function missing(errorName: 'UNKNOWN_TOPIC_OR_PARTITION' | 'INVALID_TOPIC_EXCEPTION' | 'UNKNOWN_TOPIC_ID', name: string | null, topicId: string): TopicMetadata {
  return { errorCode: code(errorName), name, topicId, isInternal: name !== null && isInternalTopic(name), partitions: [], topicAuthorizedOperations: -2147483648 };
}

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

export const metadata = defineApi({
  key: 3,
  name: 'Metadata',
  request: MetadataRequest,
  response: MetadataResponse,
  minVersion: 0,
  maxVersion: 12,
  // [KafkaApis.handleTopicMetadataRequest, getTopicMetadata]
  handle(ctx, req) {
    const b = ctx.broker;
    const v = ctx.version;
    // v0: an empty list means every topic; v1+: null does.
    const all = req.topics === null || (v === 0 && req.topics.length === 0);
    const topics: TopicMetadata[] = [];
    if (all) {
      for (const t of b.image.topics()) topics.push(topicMetadata(b, t));
    } else {
      const allowAutoCreate = b.config['auto.create.topics.enable'] && (v < 4 || req.allowAutoTopicCreation);
      const toCreate: string[] = [];
      const seen = new Set<string>();
      for (const rt of req.topics!) {
        if (rt.name === null) {
          const t = b.image.topicById(rt.topicId);
          topics.push(t ? topicMetadata(b, t) : missing('UNKNOWN_TOPIC_ID', null, rt.topicId));
          continue;
        }
        if (seen.has(rt.name)) continue;
        seen.add(rt.name);
        const t = b.image.topicByName(rt.name);
        if (t) topics.push(topicMetadata(b, t));
        else if (invalidTopicReason(rt.name) !== null) topics.push(missing('INVALID_TOPIC_EXCEPTION', rt.name, ZERO));
        else {
          // A created topic is UNKNOWN_TOPIC_OR_PARTITION until this broker applies it; the client asks again.
          if (allowAutoCreate && !isInternalTopic(rt.name)) toCreate.push(rt.name);
          topics.push(missing('UNKNOWN_TOPIC_OR_PARTITION', rt.name, ZERO));
        }
      }
      if (toCreate.length > 0) ctx.state.autoCreate(toCreate);
    }
    ctx.respond({
      throttleTimeMs: 0,
      brokers: brokerNodes(b, aliveBrokerIds(b)),
      clusterId: b.clusterId,
      controllerId: randomAliveBrokerId(b),
      topics,
      clusterAuthorizedOperations: -2147483648,
    });
  },
});
