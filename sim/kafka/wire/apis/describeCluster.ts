import { array, bool, int16, int32, int8, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [DescribeClusterRequest.json, DescribeClusterResponse.json] (KIP-700)
export const DescribeClusterRequest = message('DescribeClusterRequest', '0-1', '0+', [
  bool('includeClusterAuthorizedOperations', '0+'),
  int8('endpointType', '1+', { default: 1 }),
]);

export const DescribeClusterResponse = message('DescribeClusterResponse', '0-1', '0+', [
  int32('throttleTimeMs', '0+'),
  int16('errorCode', '0+'),
  string('errorMessage', '0+', { nullable: '0+', default: null }),
  int8('endpointType', '1+', { default: 1 }),
  string('clusterId', '0+'),
  int32('controllerId', '0+', { default: -1 }),
  array('brokers', '0+', [int32('brokerId', '0+'), string('host', '0+'), int32('port', '0+'), string('rack', '0+', { nullable: '0+', default: null })]),
  int32('clusterAuthorizedOperations', '0+', { default: -2147483648 }),
]);

export type DescribeClusterRequestData = MessageOf<typeof DescribeClusterRequest>;
export type DescribeClusterResponseData = MessageOf<typeof DescribeClusterResponse>;

export const describeCluster = defineApi({ key: 60, name: 'DescribeCluster', request: DescribeClusterRequest, response: DescribeClusterResponse, minVersion: 0, maxVersion: 1 });
