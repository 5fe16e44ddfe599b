import { array, int16, int32, int64, bool, message, string, type MessageOf } from '../codec/schema';
import { ELIGIBLE_LEADER_REPLICAS_VERSION } from '../../metadata/features';
import { defineApi } from './api';
import { code } from './support';

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

/** KIP-511: client software names and versions must look like this [ApiVersionsRequest.isValid]. */
const SOFTWARE = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export const apiVersions = defineApi({
  key: 18,
  name: 'ApiVersions',
  request: ApiVersionsRequest,
  response: ApiVersionsResponse,
  minVersion: 0,
  maxVersion: 4,
  // [KafkaApis.handleApiVersionsRequest; ApiVersionsResponse.createApiVersionsResponse]
  handle(ctx, req) {
    if (ctx.version >= 3 && (!SOFTWARE.test(req.clientSoftwareName) || !SOFTWARE.test(req.clientSoftwareVersion))) {
      return ctx.respond({ errorCode: code('INVALID_REQUEST') });
    }
    const image = ctx.broker.image;
    const elr = image.featureLevel(ELIGIBLE_LEADER_REPLICAS_VERSION);
    ctx.respond({
      errorCode: 0,
      apiKeys: ctx.state.apis.map((a) => ({ apiKey: a.key, minVersion: a.advertisedMinVersion ?? a.minVersion, maxVersion: a.maxVersion })),
      // The features this simulator models; the metadata offset stands for the finalized features' epoch.
      supportedFeatures: [{ name: ELIGIBLE_LEADER_REPLICAS_VERSION, minVersion: 0, maxVersion: 1 }],
      finalizedFeaturesEpoch: Math.max(0, image.lastOffset),
      finalizedFeatures: elr > 0 ? [{ name: ELIGIBLE_LEADER_REPLICAS_VERSION, maxVersionLevel: elr, minVersionLevel: elr }] : [],
    });
  },
});
