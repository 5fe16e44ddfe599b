import { int16, int32, int64, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [InitProducerIdRequest.json, InitProducerIdResponse.json]
export const InitProducerIdRequest = message('InitProducerIdRequest', '0-5', '2+', [
  string('transactionalId', '0+', { nullable: '0+' }),
  int32('transactionTimeoutMs', '0+'),
  int64('producerId', '3+', { default: -1 }),
  int16('producerEpoch', '3+', { default: -1 }),
]);

export const InitProducerIdResponse = message('InitProducerIdResponse', '0-5', '2+', [
  int32('throttleTimeMs', '0+'),
  int16('errorCode', '0+'),
  int64('producerId', '0+', { default: -1 }),
  int16('producerEpoch', '0+'),
]);

export type InitProducerIdRequestData = MessageOf<typeof InitProducerIdRequest>;
export type InitProducerIdResponseData = MessageOf<typeof InitProducerIdResponse>;

export const initProducerId = defineApi({ key: 22, name: 'InitProducerId', request: InitProducerIdRequest, response: InitProducerIdResponse, minVersion: 0, maxVersion: 5 });
