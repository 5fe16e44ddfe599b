import { array, bool, int16, int32, message, scalarArray, string, uuid, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

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

export const metadata = defineApi({ key: 3, name: 'Metadata', request: MetadataRequest, response: MetadataResponse, minVersion: 0, maxVersion: 12 });
