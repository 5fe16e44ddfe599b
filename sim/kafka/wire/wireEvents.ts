import { defineKinds, list, num, obj, str, bool, type KindsOf } from '../../core/traceSchema';

/** Trace kinds of the wire front end: the broker's side of real client connections. */
export const WIRE_KINDS = defineKinds({
  /** A client connection sent its first bytes to this broker. */
  'wire.connect': { peer: str },
  /** A request arrived (with detail on): API, version, correlation id and client id as its header says. */
  'wire.request': { peer: str, api: str, version: num, correlationId: num, clientId: str },
  /**
   * The broker closed a client connection: a frame that does not parse, one above socket.request.max.bytes, an
   * API or version it does not serve. `apiKey` and `version` are -1 when the header did not parse.
   */
  'wire.close': { peer: str, reason: str, apiKey: num, version: num },
  /** The active controller answered a CreateTopics this broker forwarded (`auto`: auto.create.topics.enable). */
  'wire.create-topics': { auto: bool, topics: list(obj({ name: str, error: str, message: str })) },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof WIRE_KINDS> {}
}
