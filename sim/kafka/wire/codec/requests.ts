import { apiByKey } from '../apis';
import { isFlexible, supports, type ApiDefinition } from '../apis/api';
import { API_VERSIONS_KEY, readRequestHeader, readResponseHeader, requestHeaderVersion, responseHeaderVersion, writeRequestHeader, writeResponseHeader, type RequestHeader } from './headers';
import { ByteReader, ByteWriter, WireFormatError } from './bytes';
import { decodeMessage, encodeMessage } from './message';

/**
 * A whole request or response frame body (after the size) as the broker reads and writes it, with Kafka's answers
 * to what does not parse [SocketServer.parseRequestHeader; RequestHeader.parse; RequestContext.parseRequest]:
 * - an unknown API key, or a known one at a version the broker does not enable: the connection is closed;
 * - ApiVersions at a version the broker does not know: answered, as version 0, with UNSUPPORTED_VERSION and the
 *   ApiVersions range, so the client can retry with one it shares (the body is not read);
 * - a header or body that does not parse: the connection is closed.
 * Decoding never throws: every outcome is a value.
 */

export type DecodedRequest =
  | { readonly kind: 'request'; readonly api: ApiDefinition; readonly header: RequestHeader; readonly body: unknown }
  | { readonly kind: 'unsupported-api-versions'; readonly header: RequestHeader }
  | { readonly kind: 'close'; readonly reason: string; readonly header: RequestHeader | null };

export function decodeRequest(frameBody: Uint8Array): DecodedRequest {
  let header: RequestHeader | null = null;
  let api: ApiDefinition | undefined;
  try {
    if (frameBody.length < 4) return { kind: 'close', reason: `a request of ${frameBody.length} bytes is shorter than a header`, header: null };
    const probe = new ByteReader(frameBody);
    const apiKey = probe.int16();
    const apiVersion = probe.int16();
    api = apiByKey(apiKey);
    if (!api) return { kind: 'close', reason: `Unknown API key ${apiKey}`, header: null };
    const r = new ByteReader(frameBody);
    header = readRequestHeader(r, requestHeaderVersion(isFlexible(api, apiVersion)));
    if (header.clientId === null) header.clientId = '';
    if (!supports(api, apiVersion)) {
      if (api.key === API_VERSIONS_KEY) return { kind: 'unsupported-api-versions', header };
      return { kind: 'close', reason: `Received request api key ${api.name} with version ${apiVersion} which is not enabled`, header };
    }
    const body = decodeMessage(api.request, apiVersion, r);
    // Kafka's generated readers ignore bytes after the message; so do we (a newer client may append tagged data).
    return { kind: 'request', api, header, body };
  } catch (e) {
    const reason = e instanceof WireFormatError ? e.message : `unexpected ${e instanceof Error ? e.name : 'error'}: ${String(e)}`;
    return {
      kind: 'close',
      reason: header ? `Error getting request for apiKey: ${api?.name ?? header.requestApiKey}, apiVersion: ${header.requestApiVersion}: ${reason}` : `Error parsing request header: ${reason}`,
      header,
    };
  }
}

/** A response's frame body: the response header, then the body at the request's version. */
export function encodeResponse(api: ApiDefinition, version: number, correlationId: number, body: object): Uint8Array {
  const w = new ByteWriter(256);
  writeResponseHeader(w, correlationId, responseHeaderVersion(api.key, isFlexible(api, version)));
  encodeMessage(api.response, version, body, w);
  return w.toBytes();
}

/** A request's frame body (the client side: tests, and the in-process bridge reading its own traffic). */
export function encodeRequest(api: ApiDefinition, version: number, correlationId: number, clientId: string | null, body: object): Uint8Array {
  const w = new ByteWriter(256);
  writeRequestHeader(w, { requestApiKey: api.key, requestApiVersion: version, correlationId, clientId }, requestHeaderVersion(isFlexible(api, version)));
  encodeMessage(api.request, version, body, w);
  return w.toBytes();
}

/** Reads a response frame body for a request the caller made (it knows the API and version). Throws on bad bytes. */
export function decodeResponse<T = unknown>(api: ApiDefinition, version: number, frameBody: Uint8Array): { correlationId: number; body: T } {
  const r = new ByteReader(frameBody);
  const { correlationId } = readResponseHeader(r, responseHeaderVersion(api.key, isFlexible(api, version)));
  return { correlationId, body: decodeMessage<T>(api.response, version, r) };
}
