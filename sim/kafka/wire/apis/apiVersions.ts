import { array, int16, int32, int64, bool, message, string, type MessageOf } from '../codec/schema';
import { defineApi } from './api';

// [ApiVersionsRequest.json, ApiVersionsResponse.json]
export const ApiVersionsRequest = message('ApiVersionsRequest', '0-4', '3+', [
  string('clientSoftwareName', '3+'),
  string('clientSoftwareVersion', '3+'),
]);

export const ApiVersionsResponse = message('ApiVersionsResponse', '0-4', '3+', [
  int16('errorCode', '0+'),
  array('apiKeys', '0+', [int16('apiKey', '0+'), int16('minVersion', '0+'), int16('maxVersion', '0+')]),
  int32('throttleTimeMs', '1+'),
  array('supportedFeatures', '3+', [string('name', '3+'), int16('minVersion', '3+'), int16('maxVersion', '3+')], { tag: 0 }),
  int64('finalizedFeaturesEpoch', '3+', { tag: 1, default: -1 }),
  array('finalizedFeatures', '3+', [string('name', '3+'), int16('maxVersionLevel', '3+'), int16('minVersionLevel', '3+')], { tag: 2 }),
  bool('zkMigrationReady', '3+', { tag: 3 }),
]);

export type ApiVersionsRequestData = MessageOf<typeof ApiVersionsRequest>;
export type ApiVersionsResponseData = MessageOf<typeof ApiVersionsResponse>;

export const apiVersions = defineApi({ key: 18, name: 'ApiVersions', request: ApiVersionsRequest, response: ApiVersionsResponse, minVersion: 0, maxVersion: 4 });
