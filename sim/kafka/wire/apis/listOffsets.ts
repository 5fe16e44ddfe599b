import { array, int16, int32, int64, int8, message, scalarArray, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [ListOffsetsRequest.json, ListOffsetsResponse.json]
export const ListOffsetsRequest = message('ListOffsetsRequest', '0-10', '6+', [
  int32('replicaId', '0+'),
  int8('isolationLevel', '2+'),
  array('topics', '0+', [
    string('name', '0+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int32('currentLeaderEpoch', '4+', { default: -1 }),
      int64('timestamp', '0+'),
      int32('maxNumOffsets', '0', { default: 1 }),
    ]),
  ]),
  int32('timeoutMs', '10+'),
]);

export const ListOffsetsResponse = message('ListOffsetsResponse', '0-10', '6+', [
  int32('throttleTimeMs', '2+'),
  array('topics', '0+', [
    string('name', '0+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int16('errorCode', '0+'),
      scalarArray('oldStyleOffsets', '0', 'int64'),
      int64('timestamp', '1+', { default: -1 }),
      int64('offset', '1+', { default: -1 }),
      int32('leaderEpoch', '4+', { default: -1 }),
    ]),
  ]),
]);

export type ListOffsetsRequestData = MessageOf<typeof ListOffsetsRequest>;
export type ListOffsetsResponseData = MessageOf<typeof ListOffsetsResponse>;

// KIP-896 removed version 0.
export const listOffsets = defineApi({ key: 2, name: 'ListOffsets', request: ListOffsetsRequest, response: ListOffsetsResponse, minVersion: 1, maxVersion: 10 });
