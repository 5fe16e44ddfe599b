import { ByteReader, ByteWriter } from './bytes';
import { decodeMessage, encodeMessage } from './message';
import { int16, int32, message, string, type MessageOf } from './schema';

/**
 * Request and response headers [clients/src/main/resources/common/message/RequestHeader.json, ResponseHeader.json].
 * Request header v1 carries the client id; v2 (every flexible request version) adds a tagged-field section but keeps
 * the client id a classic int16-length string. Response header v1 (flexible versions) adds tagged fields, except
 * for ApiVersions, whose response always has header v0 so that a client of any version can read it
 * [ApiKeys.API_VERSIONS: responseHeaderVersion is 0 for every version].
 */

export const RequestHeaderSchema = message('RequestHeader', '0-2', '2+', [
  int16('requestApiKey', '0+'),
  int16('requestApiVersion', '0+'),
  int32('correlationId', '0+'),
  string('clientId', '1+', { nullable: '1+', flexible: 'none' }),
]);
export type RequestHeader = MessageOf<typeof RequestHeaderSchema>;

export const ResponseHeaderSchema = message('ResponseHeader', '0-1', '1+', [int32('correlationId', '0+')]);

/** API key of ApiVersions, whose response header is always v0. */
export const API_VERSIONS_KEY = 18;

export function requestHeaderVersion(flexible: boolean): number {
  return flexible ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, flexible: boolean): number {
  if (apiKey === API_VERSIONS_KEY) return 0;
  return flexible ? 1 : 0;
}

export function readRequestHeader(r: ByteReader, headerVersion: number): RequestHeader {
  return decodeMessage<RequestHeader>(RequestHeaderSchema, headerVersion, r);
}

export function writeRequestHeader(w: ByteWriter, h: RequestHeader, headerVersion: number): void {
  encodeMessage(RequestHeaderSchema, headerVersion, h, w);
}

export function writeResponseHeader(w: ByteWriter, correlationId: number, headerVersion: number): void {
  encodeMessage(ResponseHeaderSchema, headerVersion, { correlationId }, w);
}

export function readResponseHeader(r: ByteReader, headerVersion: number): { correlationId: number } {
  return decodeMessage<{ correlationId: number }>(ResponseHeaderSchema, headerVersion, r);
}
