import { array, bool, int16, int32, int64, message, scalarArray, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [OffsetFetchRequest.json, OffsetFetchResponse.json]; v8+ asks for many groups at once (KIP-709).
export const OffsetFetchRequest = message('OffsetFetchRequest', '0-9', '6+', [
  string('groupId', '0-7'),
  array('topics', '0-7', [string('name', '0-7'), scalarArray('partitionIndexes', '0-7', 'int32')], { nullable: '2-7' }),
  array('groups', '8+', [
    string('groupId', '8+'),
    string('memberId', '9+', { nullable: '9+', default: null }),
    int32('memberEpoch', '9+', { default: -1 }),
    array('topics', '8+', [string('name', '8+'), scalarArray('partitionIndexes', '8+', 'int32')], { nullable: '8+' }),
  ]),
  bool('requireStable', '7+'),
]);

export const OffsetFetchResponse = message('OffsetFetchResponse', '0-9', '6+', [
  int32('throttleTimeMs', '3+'),
  array('topics', '0-7', [
    string('name', '0-7'),
    array('partitions', '0-7', [
      int32('partitionIndex', '0-7'),
      int64('committedOffset', '0-7'),
      int32('committedLeaderEpoch', '5-7', { default: -1 }),
      string('metadata', '0-7', { nullable: '0-7' }),
      int16('errorCode', '0-7'),
    ]),
  ]),
  int16('errorCode', '2-7'),
  array('groups', '8+', [
    string('groupId', '8+'),
    array('topics', '8+', [
      string('name', '8+'),
      array('partitions', '8+', [
        int32('partitionIndex', '8+'),
        int64('committedOffset', '8+'),
        int32('committedLeaderEpoch', '8+', { default: -1 }),
        string('metadata', '8+', { nullable: '8+' }),
        int16('errorCode', '8+'),
      ]),
    ]),
    int16('errorCode', '8+'),
  ]),
]);

export type OffsetFetchRequestData = MessageOf<typeof OffsetFetchRequest>;
export type OffsetFetchResponseData = MessageOf<typeof OffsetFetchResponse>;

// KIP-896 removed version 0.
export const offsetFetch = defineApi({ key: 9, name: 'OffsetFetch', request: OffsetFetchRequest, response: OffsetFetchResponse, minVersion: 1, maxVersion: 9 });
