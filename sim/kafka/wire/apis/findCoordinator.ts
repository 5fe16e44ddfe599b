import { array, int16, int32, int8, message, scalarArray, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

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

export const findCoordinator = defineApi({ key: 10, name: 'FindCoordinator', request: FindCoordinatorRequest, response: FindCoordinatorResponse, minVersion: 0, maxVersion: 6 });
