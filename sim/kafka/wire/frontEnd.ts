import './wireEvents';
import { API_VERSIONS_KEY } from './codec/headers';
import { FrameReader, frame } from './codec/frames';
import { decodeRequest, encodeResponse, type DecodedRequest } from './codec/requests';
import { apiVersions } from './apis/apiVersions';
import type { ApiDefinition } from './apis/api';
import { errorCode } from '../errors';
import type { TopicCreation, TopicCreationResult, WireBroker, WireRequestContext, WireState } from './context';
import type { CreateTopicsResponse } from '../protocol';
import { ms } from '../../core/time';
import { APIS } from './apis';
import { FetchSessionCache } from './fetchSessions';
import { GroupBytes } from './groupBytes';

/**
 * The broker's side of real client connections [core/.../network/SocketServer.scala: Processor; KafkaApis]:
 * bytes from a client are cut into frames, each frame decoded and served by its API's translation into the
 * simulator's own requests, and the answer encoded back. As Kafka's processor does, it serves one request per
 * connection at a time (the channel is muted until the response is sent), so responses leave in request order.
 *
 * A frame that does not parse, one above socket.request.max.bytes, an unknown API or a version not served
 * closes the connection, with a `wire.close` line in the trace; nothing a client sends can stop the broker.
 */
export class WireFrontEnd implements WireState {
  readonly apis = [...APIS].sort((a, b) => a.key - b.key);
  readonly sessions: FetchSessionCache;
  /** Topics whose auto-creation is in flight [AutoTopicCreationManager.inflightTopics]. */
  private readonly creating = new Set<string>();
  readonly groups = new GroupBytes();
  private readonly connections = new Map<string, WireConnection>();
  /** Every peer that ever spoke the wire protocol here (a late answer to one that left is dropped). */
  private readonly wirePeers = new Set<string>();
  /** Simulated requests in flight: our correlation id -> whom it serves. */
  private readonly pending = new Map<number, { peer: string; done: (response: unknown) => void }>();
  private nextCorrelationId = 1;

  constructor(readonly broker: WireBroker) {
    this.sessions = new FetchSessionCache(
      broker.config['max.incremental.fetch.session.cache.slots'],
      broker.config['min.incremental.fetch.session.eviction.ms'],
      broker.random.fork('fetch-sessions'),
    );
  }

  /** Whether `peer` is a client that speaks the wire protocol to this broker. */
  isWirePeer(peer: string): boolean {
    return this.wirePeers.has(peer);
  }

  /** Bytes from a client. */
  onData(peer: string, data: Uint8Array): void {
    let c = this.connections.get(peer);
    if (!c) {
      c = new WireConnection(this, peer, this.broker.config['socket.request.max.bytes']);
      this.connections.set(peer, c);
      this.wirePeers.add(peer);
      this.broker.trace.emit('wire.connect', this.broker.node, { peer });
      // The connection is accepted: an empty chunk back stands for the SYN-ACK.
      this.broker.sendData(peer, new Uint8Array(0));
    }
    if (data.length > 0) c.receive(data);
  }

  /** The connection to `peer` is gone: what it was waiting for is dropped. */
  onDisconnect(peer: string): void {
    const c = this.connections.get(peer);
    if (!c) return;
    c.closed = true;
    this.connections.delete(peer);
  }

  /**
   * The broker calls this for every message it sends: an answer to a request the front end made on a client's
   * behalf goes to that request's continuation instead of the network. True when the message was taken.
   */
  claim(to: string, msg: unknown): boolean {
    if (this.wirePeers.size === 0 || !this.wirePeers.has(to)) return false;
    const cid = (msg as { correlationId?: unknown }).correlationId;
    const p = typeof cid === 'number' ? this.pending.get(cid) : undefined;
    if (p && p.peer === to) {
      this.pending.delete(cid as number);
      p.done(msg);
    }
    // Anything else for a wire client (a late answer to a closed connection) has no one to go to.
    return true;
  }

  /** Sends a simulated request on behalf of `peer`; its answer comes back through `claim`. */
  call(peer: string, request: { readonly type: string; readonly [field: string]: unknown }, done?: (response: unknown) => void): void {
    const correlationId = this.nextCorrelationId++;
    if (done) this.pending.set(correlationId, { peer, done });
    this.broker.dispatch(peer, { ...request, correlationId });
  }

  /**
   * Sends a request to the active controller, trying again every 100 ms while there is none or the one asked is
   * not active, until `timeoutMs` [ForwardingManager; NodeToControllerChannelManager]. `done` gets the answer, or
   * null when none came in time.
   */
  forwardToController(request: { readonly type: string; readonly [field: string]: unknown }, timeoutMs: number, done: (response: unknown | null) => void): void {
    const b = this.broker;
    const deadline = b.nowUs() + ms(timeoutMs);
    const attempt = (): void => {
      const left = Math.max(1, Math.floor((deadline - b.nowUs()) / 1000));
      b.toController(request, left, (r) => {
        // A controller that is not the active one answers NOT_CONTROLLER in a top-level error.
        if (r !== null && (r as { error?: unknown }).error === undefined) return done(r);
        if (b.nowUs() + ms(100) < deadline) b.setTimer(ms(100), attempt);
        else done(null);
      });
    };
    attempt();
  }

  createTopics(topics: readonly TopicCreation[], timeoutMs: number, done: (results: readonly TopicCreationResult[]) => void, auto = false): void {
    const b = this.broker;
    this.forwardToController({ type: 'CreateTopics', topics }, timeoutMs, (r) => {
      const resp = r as CreateTopicsResponse | null;
      if (!resp) return done(topics.map((t) => ({ name: t.name, error: 'REQUEST_TIMED_OUT', message: `no active controller answered within ${timeoutMs} ms` })));
      const results = resp.topics.map((t) => ({ name: t.name, error: t.error, message: t.message }));
      b.trace.emit('wire.create-topics', b.node, { auto, topics: results.map((t) => ({ ...t, error: t.error as string })) });
      done(results);
    });
  }

  autoCreate(names: readonly string[]): readonly string[] {
    const c = this.broker.config;
    const fresh = names.filter((n) => !this.creating.has(n));
    if (fresh.length === 0) return [];
    for (const n of fresh) this.creating.add(n);
    const topics = fresh.map((name) => ({ name, numPartitions: c['num.partitions'], replicationFactor: c['default.replication.factor'], configs: {} }));
    // request.timeout.ms of the broker's controller channel (30 s) bounds an auto-creation.
    this.createTopics(topics, 30_000, () => {
      for (const n of fresh) this.creating.delete(n);
    }, true);
    return fresh;
  }

  /** The broker closes a connection, with the reason in the trace. */
  closeConnection(peer: string, reason: string, apiKey: number, version: number): void {
    this.broker.trace.emit('wire.close', this.broker.node, { peer, reason, apiKey, version });
    this.onDisconnect(peer);
    this.broker.close(peer);
  }
}

/** One client connection: its frame reader and the requests waiting to be served, one at a time. */
class WireConnection {
  closed = false;
  private readonly reader: FrameReader;
  private readonly queue: Uint8Array[] = [];
  /** A request is being served (the channel is muted). */
  private busy = false;
  private pumping = false;

  constructor(
    private readonly front: WireFrontEnd,
    readonly peer: string,
    maxFrameBytes: number,
  ) {
    this.reader = new FrameReader(maxFrameBytes);
  }

  receive(data: Uint8Array): void {
    if (this.closed) return;
    const r = this.reader.push(data);
    this.queue.push(...r.frames);
    this.pump();
    if (r.error !== null && !this.closed) {
      // What came before the bad size is still served, as Kafka's selector completes those receives first.
      this.front.closeConnection(this.peer, r.error, -1, -1);
    }
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.busy && !this.closed && this.queue.length > 0) this.serve(decodeRequest(this.queue.shift()!));
    } finally {
      this.pumping = false;
    }
  }

  private serve(d: DecodedRequest): void {
    const b = this.front.broker;
    if (d.kind === 'close') {
      this.front.closeConnection(this.peer, d.reason, d.header?.requestApiKey ?? -1, d.header?.requestApiVersion ?? -1);
      return;
    }
    if (d.kind === 'unsupported-api-versions') {
      // Answered as version 0, listing the ApiVersions range, so the client retries with a version both know
      // [ApiVersionsRequest.getErrorResponse].
      const body = { errorCode: errorCode('UNSUPPORTED_VERSION'), apiKeys: [{ apiKey: API_VERSIONS_KEY, minVersion: apiVersions.minVersion, maxVersion: apiVersions.maxVersion }] };
      b.sendData(this.peer, frame(encodeResponse(apiVersions, 0, d.header.correlationId, body)));
      return;
    }
    const { api, header } = d;
    if (b.trace.detail) {
      b.trace.emit('wire.request', b.node, { peer: this.peer, api: api.name, version: header.requestApiVersion, correlationId: header.correlationId, clientId: header.clientId ?? '' });
    }
    const handle = api.handle;
    if (!handle) {
      this.front.closeConnection(this.peer, `${api.name} is not served by this broker`, api.key, header.requestApiVersion);
      return;
    }
    this.busy = true;
    const ctx = this.context(api, header.requestApiVersion, header);
    try {
      handle(ctx, d.body);
    } catch (e) {
      // A translation bug must not take the simulated broker down: the client loses its connection, and the
      // trace says why (tests assert that no such line appears).
      this.front.closeConnection(this.peer, `internal error serving ${api.name} v${header.requestApiVersion}: ${e instanceof Error ? e.message : String(e)}`, api.key, header.requestApiVersion);
    }
  }

  private context(api: ApiDefinition, version: number, header: WireRequestContext['header']): WireRequestContext<unknown> {
    let answered = false;
    const finish = () => {
      if (answered) throw new Error(`${api.name} v${version} answered twice`);
      answered = true;
      this.busy = false;
      this.pump();
    };
    return {
      broker: this.front.broker,
      state: this.front,
      peer: this.peer,
      version,
      header,
      call: <T>(request: { readonly type: string; readonly [field: string]: unknown }, done?: (response: T) => void) => {
        this.front.call(
          this.peer,
          request,
          done &&
            ((r) => {
              if (!this.closed) done(r as T);
            }),
        );
      },
      respond: (body: unknown) => {
        if (this.closed) return;
        const bytes = frame(encodeResponse(api, version, header.correlationId, body as object));
        this.front.broker.sendData(this.peer, bytes);
        finish();
      },
      noResponse: () => {
        if (this.closed) return;
        finish();
      },
      close: (reason: string) => {
        if (this.closed) return;
        answered = true;
        this.front.closeConnection(this.peer, reason, api.key, version);
      },
    };
  }
}
