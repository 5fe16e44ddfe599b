import { array, int16, int32, int64, int8, message, records, scalarArray, string, struct, uuid, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [FetchRequest.json, FetchResponse.json]
export const FetchRequest = message('FetchRequest', '0-17', '12+', [
  string('clusterId', '12+', { nullable: '12+', default: null, tag: 0 }),
  int32('replicaId', '0-14', { default: -1 }),
  struct('replicaState', '15+', [int32('replicaId', '15+', { default: -1 }), int64('replicaEpoch', '15+', { default: -1 })], { tag: 1 }),
  int32('maxWaitMs', '0+'),
  int32('minBytes', '0+'),
  int32('maxBytes', '3+', { default: 0x7fffffff }),
  int8('isolationLevel', '4+'),
  int32('sessionId', '7+'),
  int32('sessionEpoch', '7+', { default: -1 }),
  array('topics', '0+', [
    string('topic', '0-12'),
    uuid('topicId', '13+'),
    array('partitions', '0+', [
      int32('partition', '0+'),
      int32('currentLeaderEpoch', '9+', { default: -1 }),
      int64('fetchOffset', '0+'),
      int32('lastFetchedEpoch', '12+', { default: -1 }),
      int64('logStartOffset', '5+', { default: -1 }),
      int32('partitionMaxBytes', '0+'),
      uuid('replicaDirectoryId', '17+', { tag: 0 }),
    ]),
  ]),
  array('forgottenTopicsData', '7+', [string('topic', '7-12'), uuid('topicId', '13+'), scalarArray('partitions', '7+', 'int32')]),
  string('rackId', '11+'),
]);

export const FetchResponse = message('FetchResponse', '0-17', '12+', [
  int32('throttleTimeMs', '1+'),
  int16('errorCode', '7+'),
  int32('sessionId', '7+'),
  array('responses', '0+', [
    string('topic', '0-12'),
    uuid('topicId', '13+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int16('errorCode', '0+'),
      int64('highWatermark', '0+'),
      int64('lastStableOffset', '4+', { default: -1 }),
      int64('logStartOffset', '5+', { default: -1 }),
      struct('divergingEpoch', '12+', [int32('epoch', '12+', { default: -1 }), int64('endOffset', '12+', { default: -1 })], { tag: 0 }),
      // KIP-951: the leader as this broker knows it, with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH.
      struct('currentLeader', '12+', [int32('leaderId', '12+', { default: -1 }), int32('leaderEpoch', '12+', { default: -1 })], { tag: 1 }),
      struct('snapshotId', '12+', [int64('endOffset', '0+', { default: -1 }), int32('epoch', '0+', { default: -1 })], { tag: 2 }),
      array('abortedTransactions', '4+', [int64('producerId', '4+'), int64('firstOffset', '4+')], { nullable: '4+' }),
      int32('preferredReadReplica', '11+', { default: -1 }),
      records('records', '0+', { nullable: '0+' }),
    ]),
  ]),
  array('nodeEndpoints', '16+', [int32('nodeId', '16+'), string('host', '16+'), int32('port', '16+'), string('rack', '16+', { nullable: '16+', default: null })], { tag: 0 }),
]);

export type FetchRequestData = MessageOf<typeof FetchRequest>;
export type FetchResponseData = MessageOf<typeof FetchResponse>;

// KIP-896 removed versions 0-3.
export const fetch = defineApi({ key: 1, name: 'Fetch', request: FetchRequest, response: FetchResponse, minVersion: 4, maxVersion: 17 });
