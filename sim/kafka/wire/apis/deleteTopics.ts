import { array, int16, int32, message, scalarArray, string, uuid, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [DeleteTopicsRequest.json, DeleteTopicsResponse.json]; v6+ names topics by name or id.
export const DeleteTopicsRequest = message('DeleteTopicsRequest', '0-6', '4+', [
  array('topics', '6+', [string('name', '6+', { nullable: '6+', default: null }), uuid('topicId', '6+')]),
  scalarArray('topicNames', '0-5', 'string'),
  int32('timeoutMs', '0+'),
]);

export const DeleteTopicsResponse = message('DeleteTopicsResponse', '0-6', '4+', [
  int32('throttleTimeMs', '1+'),
  array('responses', '0+', [
    string('name', '0+', { nullable: '6+' }),
    uuid('topicId', '6+'),
    int16('errorCode', '0+'),
    string('errorMessage', '5+', { nullable: '5+', default: null }),
  ]),
]);

export type DeleteTopicsRequestData = MessageOf<typeof DeleteTopicsRequest>;
export type DeleteTopicsResponseData = MessageOf<typeof DeleteTopicsResponse>;

// KIP-896 removed version 0.
export const deleteTopics = defineApi({ key: 20, name: 'DeleteTopics', request: DeleteTopicsRequest, response: DeleteTopicsResponse, minVersion: 1, maxVersion: 6 });
