import { ms, type Micros } from '../../sim/core/time';
import type { BrokerListeners } from '../../sim/kafka/broker/broker';
import { brokerActorId } from '../../sim/kafka/client/metadataCache';
import type { ApiDefinition } from '../../sim/kafka/wire/apis/api';
import type { Body } from '../../sim/kafka/wire/context';
import { FrameReader, frame } from '../../sim/kafka/wire/codec/frames';
import { decodeResponse, encodeRequest } from '../../sim/kafka/wire/codec/requests';
import { ClientSocket } from '../../sim/kafka/wire/clientSocket';
import { WireFrontEnd } from '../../sim/kafka/wire/frontEnd';
import { startScenario, type ScenarioRun } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';

/**
 * A simulated cluster and hand-made wire connections to its brokers, driven synchronously: a test writes a
 * request's bytes and runs the simulated clock until the answer's bytes arrive.
 */

export const TEST_LISTENERS: BrokerListeners = {
  clusterId: 'kafkasim-test-cluster0',
  epochMs: 1_767_225_600_000,
  endpoint: (id) => ({ host: `broker-${id}.test`, port: 9092 }),
  frontEnd: (b) => new WireFrontEnd(b),
};

export interface Connection {
  readonly socket: ClientSocket;
  readonly received: Uint8Array[];
  /** Frames not yet taken by `request`. */
  readonly frames: Uint8Array[];
  closed: string | null;
  connected: boolean;
}

export class WireHarness {
  readonly run: ScenarioRun;
  private sockets = 0;
  private cid = 100;

  constructor(spec: ScenarioSpec, seed: number | string = 1) {
    this.run = startScenario(validateScenario(spec), { seed, listeners: TEST_LISTENERS, groupCoordinator: true });
    this.run.world.addHost({ id: 'app', zone: this.run.cluster.opts.zones[0] ?? 'zone-a', tags: ['client', 'app'] }).start();
  }

  get world() {
    return this.run.world;
  }

  runFor(d: Micros): void {
    this.world.runUntil(this.world.now + d);
  }

  connect(brokerId: number): Connection {
    const id = `app/s${++this.sockets}`;
    const reader = new FrameReader();
    const c: Connection = { socket: undefined as unknown as ClientSocket, received: [], frames: [], closed: null, connected: false };
    this.world.host('app').addProcess({
      id,
      create: (ctx) =>
        ((c as { socket: ClientSocket }).socket = new ClientSocket(ctx, id, brokerActorId(brokerId), {
          connect: () => (c.connected = true),
          data: (b) => {
            c.received.push(b);
            const r = reader.push(b);
            c.frames.push(...r.frames);
          },
          close: (cause) => (c.closed = cause),
        })),
    });
    this.until(() => c.connected || c.closed !== null, ms(15_000));
    return c;
  }

  /** Runs the clock until `cond` holds or `limit` passes; returns whether it held. */
  until(cond: () => boolean, limit: Micros): boolean {
    const end = this.world.now + limit;
    while (!cond()) {
      if (this.world.now >= end) return false;
      this.world.runUntil(Math.min(end, this.world.now + ms(1)));
    }
    return true;
  }

  /** Writes raw bytes on a connection. */
  write(c: Connection, bytes: Uint8Array): void {
    c.socket.write(bytes);
  }

  send<Req>(c: Connection, api: ApiDefinition<Req>, version: number, body: Body<Req>, clientId: string | null = 'test'): number {
    const cid = ++this.cid;
    c.socket.write(frame(encodeRequest(api, version, cid, clientId, body as object)));
    return cid;
  }

  /** Sends a request and runs until its answer arrives (throws if none within `limit`). */
  request<Req, Resp>(c: Connection, api: ApiDefinition<Req, Resp>, version: number, body: Body<Req>, limit: Micros = ms(10_000)): Resp {
    const cid = this.send(c, api, version, body);
    if (!this.until(() => c.frames.length > 0 || c.closed !== null, limit)) throw new Error(`no answer to ${api.name} v${version} within ${limit / 1000} ms`);
    if (c.frames.length === 0) throw new Error(`the connection closed instead of answering ${api.name} v${version}: ${c.closed}`);
    const r = decodeResponse<Resp>(api, version, c.frames.shift()!);
    if (r.correlationId !== cid) throw new Error(`answer with correlation id ${r.correlationId}, expected ${cid}`);
    return r.body;
  }

  /** The trace lines of a kind so far. */
  events(kind: string): Record<string, unknown>[] {
    return (this.world.memory?.events ?? []).filter((e) => e.kind === kind) as unknown as Record<string, unknown>[];
  }
}
