import { inRange, type TypedMessage } from '../codec/schema';
import type { WireRequestContext } from '../context';

/**
 * One Kafka API as the broker serves it: its key and name [clients/.../common/protocol/ApiKeys.java], the request
 * and response schemas, and the versions this broker accepts. Kafka 4.0 dropped the versions older than its 2.1
 * baseline (KIP-896); `minVersion` is that new floor, `maxVersion` the newest version we implement.
 */
// `any` defaults: a registry of APIs holds definitions of every request and response type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ApiDefinition<Req = any, Resp = any> {
  readonly key: number;
  readonly name: string;
  readonly request: TypedMessage<Req>;
  readonly response: TypedMessage<Resp>;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** The minimum the ApiVersions answer lists when it is lower than what is accepted (Produce: 0, KAFKA-18659). */
  readonly advertisedMinVersion?: number;
  /**
   * Serves one request: translates it into the simulator's requests (or reads the broker's state), then answers
   * through the context. The one place an API's wire form meets the simulator.
   */
  readonly handle?: (ctx: WireRequestContext<Resp>, request: Req) => void;
}

export function defineApi<Req, Resp>(def: ApiDefinition<Req, Resp>): ApiDefinition<Req, Resp> {
  for (const v of [def.minVersion, def.maxVersion]) {
    if (!inRange(def.request.validVersions, v) || !inRange(def.response.validVersions, v)) {
      throw new RangeError(`${def.name}: version ${v} is outside the schemas' valid versions`);
    }
  }
  return def;
}

/** Whether a version of an API is flexible (compact types, tagged fields, header v2). */
export function isFlexible(api: ApiDefinition, version: number): boolean {
  return inRange(api.request.flexibleVersions, version);
}

export function supports(api: ApiDefinition, version: number): boolean {
  return version >= api.minVersion && version <= api.maxVersion;
}
