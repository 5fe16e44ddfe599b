import { int16, int32, int64, message, string, type MessageOf } from '../codec/schema';
import type { InitProducerIdResponse as SimInitProducerIdResponse } from '../../protocol';
import { defineApi } from './api';
import { code } from './support';

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

export const initProducerId = defineApi({
  key: 22,
  name: 'InitProducerId',
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  minVersion: 0,
  maxVersion: 5,
  // [KafkaApis.handleInitProducerIdRequest]: an idempotent producer gets a fresh id from the broker's block, epoch 0.
  handle(ctx, req) {
    // A transactional producer needs a transaction coordinator, which this simulated cluster does not have yet.
    if (req.transactionalId !== null) return ctx.respond({ throttleTimeMs: 0, errorCode: code('COORDINATOR_NOT_AVAILABLE'), producerId: -1, producerEpoch: -1 });
    ctx.call<SimInitProducerIdResponse>({ type: 'InitProducerId', transactionalId: null }, (r) =>
      ctx.respond({ throttleTimeMs: 0, errorCode: code(r.error), producerId: r.producerId, producerEpoch: r.producerEpoch }),
    );
  },
});
