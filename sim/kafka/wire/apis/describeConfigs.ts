import { array, bool, int16, int32, int8, message, scalarArray, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [DescribeConfigsRequest.json, DescribeConfigsResponse.json]
export const DescribeConfigsRequest = message('DescribeConfigsRequest', '0-4', '4+', [
  array('resources', '0+', [int8('resourceType', '0+'), string('resourceName', '0+'), scalarArray('configurationKeys', '0+', 'string', { nullable: '0+' })]),
  bool('includeSynonyms', '1+'),
  bool('includeDocumentation', '3+'),
]);

export const DescribeConfigsResponse = message('DescribeConfigsResponse', '0-4', '4+', [
  int32('throttleTimeMs', '0+'),
  array('results', '0+', [
    int16('errorCode', '0+'),
    string('errorMessage', '0+', { nullable: '0+' }),
    int8('resourceType', '0+'),
    string('resourceName', '0+'),
    array('configs', '0+', [
      string('name', '0+'),
      string('value', '0+', { nullable: '0+' }),
      bool('readOnly', '0+'),
      bool('isDefault', '0'),
      int8('configSource', '1+', { default: -1 }),
      bool('isSensitive', '0+'),
      array('synonyms', '1+', [string('name', '1+'), string('value', '1+', { nullable: '0+' }), int8('source', '1+')]),
      int8('configType', '3+'),
      string('documentation', '3+', { nullable: '0+' }),
    ]),
  ]),
]);

export type DescribeConfigsRequestData = MessageOf<typeof DescribeConfigsRequest>;
export type DescribeConfigsResponseData = MessageOf<typeof DescribeConfigsResponse>;

// KIP-896 removed version 0.
export const describeConfigs = defineApi({ key: 32, name: 'DescribeConfigs', request: DescribeConfigsRequest, response: DescribeConfigsResponse, minVersion: 1, maxVersion: 4 });
