import { array, int16, int32, int64, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [OffsetCommitRequest.json, OffsetCommitResponse.json]
export const OffsetCommitRequest = message('OffsetCommitRequest', '0-9', '8+', [
  string('groupId', '0+'),
  int32('generationIdOrMemberEpoch', '1+', { default: -1 }),
  string('memberId', '1+'),
  string('groupInstanceId', '7+', { nullable: '7+', default: null }),
  int64('retentionTimeMs', '2-4', { default: -1 }),
  array('topics', '0+', [
    string('name', '0+'),
    array('partitions', '0+', [
      int32('partitionIndex', '0+'),
      int64('committedOffset', '0+'),
      int32('committedLeaderEpoch', '6+', { default: -1 }),
      int64('commitTimestamp', '1', { default: -1 }),
      string('committedMetadata', '0+', { nullable: '0+' }),
    ]),
  ]),
]);

export const OffsetCommitResponse = message('OffsetCommitResponse', '0-9', '8+', [
  int32('throttleTimeMs', '3+'),
  array('topics', '0+', [string('name', '0+'), array('partitions', '0+', [int32('partitionIndex', '0+'), int16('errorCode', '0+')])]),
]);

export type OffsetCommitRequestData = MessageOf<typeof OffsetCommitRequest>;
export type OffsetCommitResponseData = MessageOf<typeof OffsetCommitResponse>;

// KIP-896 removed versions 0-1.
export const offsetCommit = defineApi({ key: 8, name: 'OffsetCommit', request: OffsetCommitRequest, response: OffsetCommitResponse, minVersion: 2, maxVersion: 9 });
