import { array, bool, int16, int32, int8, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';
import { aliveBrokerIds, brokerNodes, code, randomAliveBrokerId } from './support';

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

/** EndpointType [DescribeClusterRequest.json]: 1 brokers, 2 controllers. */
const BROKERS = 1;

export const describeCluster = defineApi({
  key: 60,
  name: 'DescribeCluster',
  request: DescribeClusterRequest,
  response: DescribeClusterResponse,
  minVersion: 0,
  maxVersion: 1,
  // [KafkaApis.handleDescribeCluster]: a broker describes brokers only (KIP-919 lets controllers describe themselves).
  handle(ctx, req) {
    const b = ctx.broker;
    if (req.endpointType !== BROKERS) {
      return ctx.respond({ errorCode: code('UNSUPPORTED_ENDPOINT_TYPE'), errorMessage: `endpoint type ${req.endpointType} is not served by a broker`, endpointType: req.endpointType, clusterId: b.clusterId });
    }
    const brokers = brokerNodes(b, aliveBrokerIds(b)).map((n) => ({ brokerId: n.nodeId, host: n.host, port: n.port, rack: n.rack }));
    ctx.respond({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, endpointType: BROKERS, clusterId: b.clusterId, controllerId: randomAliveBrokerId(b), brokers, clusterAuthorizedOperations: -2147483648 });
  },
});
