import { array, int16, int32, int8, message, scalarArray, string, type MessageOf } from '../codec/schema';
import type { FindCoordinatorResponse as SimFindCoordinatorResponse } from '../../protocol';
import { defineApi } from './api';
import { code } from './support';

// [FindCoordinatorRequest.json, FindCoordinatorResponse.json]; v4+ batches keys (KIP-699).
export const FindCoordinatorRequest = message('FindCoordinatorRequest', '0-6', '3+', [
  string('key', '0-3'),
  int8('keyType', '1+'),
  scalarArray('coordinatorKeys', '4+', 'string'),
]);

export const FindCoordinatorResponse = message('FindCoordinatorResponse', '0-6', '3+', [
  int32('throttleTimeMs', '1+'),
  int16('errorCode', '0-3'),
  string('errorMessage', '1-3', { nullable: '1-3' }),
  int32('nodeId', '0-3'),
  string('host', '0-3'),
  int32('port', '0-3'),
  array('coordinators', '4+', [
    string('key', '4+'),
    int32('nodeId', '4+'),
    string('host', '4+'),
    int32('port', '4+'),
    int16('errorCode', '4+'),
    string('errorMessage', '4+', { nullable: '4+' }),
  ]),
]);

export type FindCoordinatorRequestData = MessageOf<typeof FindCoordinatorRequest>;
export type FindCoordinatorResponseData = MessageOf<typeof FindCoordinatorResponse>;

/** CoordinatorType: 0 GROUP, 1 TRANSACTION, 2 SHARE [FindCoordinatorRequest.CoordinatorType]. */
export const COORDINATOR_TYPES = ['GROUP', 'TRANSACTION', 'SHARE'] as const;

interface Found {
  key: string;
  nodeId: number;
  host: string;
  port: number;
  errorCode: number;
  errorMessage: string | null;
}

export const findCoordinator = defineApi({
  key: 10,
  name: 'FindCoordinator',
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  minVersion: 0,
  maxVersion: 6,
  // [KafkaApis.handleFindCoordinatorRequest]; v4+ answers many keys at once.
  handle(ctx, req) {
    const b = ctx.broker;
    const keys = ctx.version < 4 ? [req.key] : req.coordinatorKeys;
    const found: Found[] = [];
    const refuse = (key: string, error: 'COORDINATOR_NOT_AVAILABLE' | 'INVALID_REQUEST', message: string) =>
      found.push({ key, nodeId: -1, host: '', port: -1, errorCode: code(error), errorMessage: message });
    const answer = () => {
      if (ctx.version >= 4) return ctx.respond({ throttleTimeMs: 0, coordinators: found });
      const f = found[0]!;
      ctx.respond({ throttleTimeMs: 0, errorCode: f.errorCode, errorMessage: f.errorMessage, nodeId: f.nodeId, host: f.host, port: f.port });
    };
    const next = (i: number): void => {
      if (i >= keys.length) return answer();
      const key = keys[i]!;
      const type = COORDINATOR_TYPES[req.keyType];
      if (type === 'TRANSACTION') {
        refuse(key, 'COORDINATOR_NOT_AVAILABLE', 'this simulated cluster has no transaction coordinator yet');
        return next(i + 1);
      }
      if (type !== 'GROUP') {
        refuse(key, 'INVALID_REQUEST', `coordinator type ${req.keyType} (${type ?? 'unknown'}) is not served`);
        return next(i + 1);
      }
      ctx.call<SimFindCoordinatorResponse>({ type: 'FindCoordinator', key, keyType: 'GROUP' }, (r) => {
        const e = r.error === 'NONE' ? b.endpoint(r.nodeId) : undefined;
        if (r.error === 'NONE' && e) found.push({ key, nodeId: r.nodeId, host: e.host, port: e.port, errorCode: 0, errorMessage: null });
        else found.push({ key, nodeId: -1, host: '', port: -1, errorCode: code(r.error === 'NONE' ? 'COORDINATOR_NOT_AVAILABLE' : r.error), errorMessage: null });
        next(i + 1);
      });
    };
    next(0);
  },
});
