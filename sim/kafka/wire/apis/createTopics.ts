import { array, bool, int16, int32, int8, message, scalarArray, string, uuid, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

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
export const createTopics = defineApi({ key: 19, name: 'CreateTopics', request: CreateTopicsRequest, response: CreateTopicsResponse, minVersion: 2, maxVersion: 7 });
