import { array, int16, int32, int64, message, records, string, struct, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [ProduceRequest.json, ProduceResponse.json]
export const ProduceRequest = message('ProduceRequest', '0-11', '9+', [
  string('transactionalId', '3+', { nullable: '3+', default: null }),
  int16('acks', '0+'),
  int32('timeoutMs', '0+'),
  array('topicData', '0+', [
    string('name', '0+'),
    array('partitionData', '0+', [int32('index', '0+'), records('records', '0+', { nullable: '0+' })]),
  ]),
]);

export const ProduceResponse = message('ProduceResponse', '0-11', '9+', [
  array('responses', '0+', [
    string('name', '0+'),
    array('partitionResponses', '0+', [
      int32('index', '0+'),
      int16('errorCode', '0+'),
      int64('baseOffset', '0+'),
      int64('logAppendTimeMs', '2+', { default: -1 }),
      int64('logStartOffset', '5+', { default: -1 }),
      array('recordErrors', '8+', [int32('batchIndex', '8+'), string('batchIndexErrorMessage', '8+', { nullable: '8+', default: null })]),
      string('errorMessage', '8+', { nullable: '8+', default: null }),
      // KIP-951: where the leader moved, so the client need not wait for a metadata refresh.
      struct('currentLeader', '10+', [int32('leaderId', '10+', { default: -1 }), int32('leaderEpoch', '10+', { default: -1 })], { tag: 0 }),
    ]),
  ]),
  int32('throttleTimeMs', '1+'),
  array('nodeEndpoints', '10+', [int32('nodeId', '10+'), string('host', '10+'), int32('port', '10+'), string('rack', '10+', { nullable: '10+', default: null })], { tag: 0 }),
]);

export type ProduceRequestData = MessageOf<typeof ProduceRequest>;
export type ProduceResponseData = MessageOf<typeof ProduceResponse>;

// KIP-896 removed versions 0-2; Kafka 4.0 still lists them in ApiVersions because librdkafka refuses to
// produce compressed batches to a broker whose Produce minimum is above 0 (KAFKA-18659).
export const produce = defineApi({ key: 0, name: 'Produce', request: ProduceRequest, response: ProduceResponse, minVersion: 3, maxVersion: 11, advertisedMinVersion: 0 });
