import type { Random } from '../../core/random';
import type { Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { BrokerConfig } from '../config/configs';
import type { MetadataImage } from '../metadata/metadataImage';
import type { RequestHeader } from './codec/headers';
import type { FetchSessionCache } from './fetchSessions';
import type { GroupBytes } from './groupBytes';
import type { ApiDefinition } from './apis/api';
import type { KafkaError } from '../errors';

/** Where a broker's listener is reached: what Metadata, FindCoordinator and DescribeCluster advertise. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/**
 * What the wire front end needs of the broker it serves: a plain view, so the API translations can be tested
 * without one. The broker's own request handlers, its applied metadata and its way to the controller.
 */
export interface WireBroker {
  readonly brokerId: number;
  /** The broker's actor id (the trace node). */
  readonly node: string;
  /** The KRaft cluster id (what `kafka-storage format` wrote). */
  readonly clusterId: string;
  readonly config: BrokerConfig;
  /** The static configuration as Kafka names and strings (server.properties). */
  readonly staticConfig: Readonly<Record<string, string>>;
  /** The metadata this broker has applied (its view, never the controller's). */
  readonly image: MetadataImage;
  readonly trace: Trace;
  readonly random: Random;
  /** Wall-clock milliseconds on the wire at simulated time 0 (clients see `epochMs + simulated ms`). */
  readonly epochMs: number;
  nowUs(): Micros;
  /** The advertised listener of a broker (any broker: KRaft registrations carry every broker's endpoints). */
  endpoint(brokerId: number): Endpoint | undefined;
  /** Serves a simulated request as if `peer` had sent it; the answer comes back through WireFrontEnd.claim. */
  dispatch(peer: string, request: { readonly type: string; readonly correlationId: number; readonly [field: string]: unknown }): void;
  /** Sends a request to the active controller; `done` gets its response, or null when none came in time. */
  toController(request: { readonly type: string; readonly [field: string]: unknown }, timeoutMs: number, done: (response: unknown | null) => void): void;
  /** Bytes to a client connection. */
  sendData(peer: string, data: Uint8Array): void;
  /** Closes a client connection. */
  close(peer: string): void;
  setTimer(delay: Micros, fn: () => void): void;
}

/** A topic to create as CreateTopics asks the controller. */
export interface TopicCreation {
  readonly name: string;
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly configs: Readonly<Record<string, string>>;
}

export interface TopicCreationResult {
  readonly name: string;
  readonly error: KafkaError;
  readonly message: string;
}

/** Broker-wide state the translations share. */
export interface WireState {
  /** Every API served, by key (what ApiVersions lists). */
  readonly apis: readonly ApiDefinition[];
  readonly sessions: FetchSessionCache;
  readonly groups: GroupBytes;
  /**
   * CreateTopics forwarded to the active controller, retried through controller changes until `timeoutMs`
   * [ForwardingManager]; `done` gets each topic's outcome (REQUEST_TIMED_OUT when no controller answered).
   */
  createTopics(topics: readonly TopicCreation[], timeoutMs: number, done: (results: readonly TopicCreationResult[]) => void): void;
  /** Any request to the active controller, retried through controller changes until `timeoutMs`; null if none answered. */
  forwardToController(request: { readonly type: string; readonly [field: string]: unknown }, timeoutMs: number, done: (response: unknown | null) => void): void;
  /**
   * auto.create.topics.enable: creates the topics a Metadata request named, with num.partitions and
   * default.replication.factor, unless a creation of the same name is already in flight
   * [AutoTopicCreationManager.createTopics]. Returns the names it sent.
   */
  autoCreate(names: readonly string[]): readonly string[];
}

/** A response body with every field optional at every depth: fields left out take their schema defaults. */
export type Body<T> = T extends Uint8Array ? T : T extends readonly (infer E)[] ? Body<E>[] : T extends object ? { [K in keyof T]?: Body<T[K]> } : T;

/** One request being served: where it came from, its version, and how to answer it. */
export interface WireRequestContext<Resp = unknown> {
  readonly broker: WireBroker;
  readonly state: WireState;
  readonly peer: string;
  readonly version: number;
  readonly header: RequestHeader;
  /** A simulated request into the broker's handlers; `done` gets its response (once, maybe much later). */
  call<T>(request: { readonly type: string; readonly [field: string]: unknown }, done?: (response: T) => void): void;
  /** Answers the request (once); the next request on the connection may then be read. */
  respond(body: Body<Resp>): void;
  /** A request that gets no answer (Produce with acks=0): the next request may be read. */
  noResponse(): void;
  /** Closes the connection instead of answering (Kafka's way with a request it refuses). */
  close(reason: string): void;
}
