import { createServer, type Server, type Socket } from 'node:net'; // determinism-ok: the real-time server's own sockets
import type { Micros } from '../core/time';
import type { TraceSink } from '../core/trace';
import type { BrokerListeners } from '../kafka/broker/broker';
import { brokerActorId } from '../kafka/client/metadataCache';
import { newUuid } from '../kafka/metadata/uuid';
import { Random } from '../core/random';
import { ClientSocket } from '../kafka/wire/clientSocket';
import { WireFrontEnd } from '../kafka/wire/frontEnd';
import { startScenario, type RunResult, type ScenarioRun } from '../scenario/runner';
import type { Scenario } from '../scenario/validate';
import { parseFaultLine } from './liveFaults';

/** The host real TCP clients' connections live on (`isolate tcp-clients` cuts them all off). */
export const TCP_CLIENTS_HOST = 'tcp-clients';

export interface LiveClusterOptions {
  readonly scenario: Scenario;
  readonly seed?: number | string;
  /** The address to listen on and advertise (loopback by default). */
  readonly host: string;
  /** The first broker's port; broker N listens on port + N - 1. 0: any free port for each. */
  readonly port: number;
  /** Simulated seconds per real second (1: real time). */
  readonly speed: number;
  readonly sinks?: readonly TraceSink[];
}

/**
 * A scenario's cluster served over TCP in real time [README: "kafkasim serve"]: one loopback listener per broker,
 * advertised in Metadata as such, so any Kafka client (kcat, the Java client, librdkafka) connects to it. The
 * simulation runs at `speed` times the wall clock; each accepted connection becomes a ClientSocket actor on the
 * `tcp-clients` host, so the scenario's faults and the faults typed live act on it like on any other connection.
 *
 * This is the one place that is not deterministic, by nature: what the clients send and when depends on them.
 */
export class LiveCluster {
  readonly run: ScenarioRun;
  readonly bootstrap: readonly string[];
  private readonly servers: Server[];
  private readonly listeners: BrokerListeners & { epochMs: number };
  private wall0 = 0;
  private sim0: Micros = 0;
  private timer: ReturnType<typeof setTimeout> | null = null; // determinism-ok: the real-time loop
  private readonly outbox: (() => void)[] = [];
  private readonly sockets = new Set<Socket>();
  private connections = 0;
  private faults = 0;
  private stopped = false;

  private constructor(
    private readonly opts: LiveClusterOptions,
    servers: Server[],
    ports: number[],
  ) {
    this.servers = servers;
    const seed = opts.seed ?? opts.scenario.seed;
    this.listeners = {
      clusterId: newUuid(Random.root(seed).fork('cluster-id')),
      epochMs: 0,
      endpoint: (id) => (id >= 1 && id <= ports.length ? { host: opts.host, port: ports[id - 1]! } : undefined),
      frontEnd: (b) => new WireFrontEnd(b),
    };
    this.bootstrap = ports.map((p) => `${opts.host}:${p}`);
    this.run = startScenario(opts.scenario, { seed, listeners: this.listeners, groupCoordinator: true, keepEvents: false, ...(opts.sinks ? { sinks: opts.sinks } : {}) });
    this.run.world.addHost({ id: TCP_CLIENTS_HOST, zone: opts.scenario.cluster.zones[0] ?? 'zone-a', tags: ['client'] }).start();
    servers.forEach((s, i) => s.on('connection', (sock) => this.accept(i + 1, sock)));
  }

  /** Binds one listener per broker, boots the cluster (in simulated time, at once) and starts the real-time clock. */
  static async start(opts: LiveClusterOptions): Promise<LiveCluster> { // determinism-ok: binds real sockets
    const servers: Server[] = [];
    const ports: number[] = [];
    try {
      for (let i = 0; i < opts.scenario.cluster.brokers; i++) {
        const s = createServer({ noDelay: true });
        await new Promise<void>((resolve, reject) => { // determinism-ok: waits for a real listen
          s.once('error', reject);
          s.listen(opts.port === 0 ? 0 : opts.port + i, opts.host, () => resolve());
        });
        servers.push(s);
        ports.push((s.address() as { port: number }).port);
      }
    } catch (e) {
      for (const s of servers) s.close();
      throw e;
    }
    const c = new LiveCluster(opts, servers, ports);
    c.startClock();
    return c;
  }

  get world() {
    return this.run.world;
  }

  /** Simulated milliseconds since the scenario started. */
  scenarioMs(): number {
    return (this.world.now - this.run.startUs) / 1000;
  }

  get reachedEnd(): boolean {
    return this.world.now >= this.run.endUs;
  }

  private startClock(): void {
    this.wall0 = performance.now(); // determinism-ok: the real-time clock of a live server
    this.sim0 = this.world.now;
    // Record timestamps on the wire read as the wall clock.
    this.listeners.epochMs = Date.now() - Math.floor(this.sim0 / 1000); // determinism-ok: wall-clock offset of a live server
    const tick = () => {
      if (this.stopped) return;
      this.catchUp();
      this.timer = setTimeout(tick, 2); // determinism-ok: the real-time loop
    };
    tick();
  }

  /** Runs the simulation up to the wall clock, then hands what it produced to the real sockets. */
  catchUp(): void {
    const target = this.sim0 + Math.floor((performance.now() - this.wall0) * 1000 * this.opts.speed); // determinism-ok: real time
    if (target > this.world.now) this.world.runUntil(target);
    for (const fn of this.outbox.splice(0)) fn();
  }

  private accept(brokerId: number, sock: Socket): void {
    this.catchUp();
    this.sockets.add(sock);
    const id = `${TCP_CLIENTS_HOST}/c${++this.connections}`;
    const early: Uint8Array[] = [];
    let actor: ClientSocket | undefined;
    this.world.host(TCP_CLIENTS_HOST).addProcess({
      id,
      create: (ctx) =>
        (actor = new ClientSocket(ctx, id, brokerActorId(brokerId), {
          connect: () =>
            this.outbox.push(() => {
              for (const b of early.splice(0)) actor!.write(b);
            }),
          data: (bytes) => this.outbox.push(() => sock.write(bytes)),
          close: () => this.outbox.push(() => sock.end()),
        })),
    });
    sock.on('data', (b: Buffer) => {
      this.catchUp();
      const bytes = new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
      if (actor?.isOpen) actor.write(bytes);
      else early.push(bytes);
    });
    const gone = () => {
      this.sockets.delete(sock);
      if (this.stopped) return;
      this.catchUp();
      actor?.end();
    };
    sock.on('close', gone);
    sock.on('error', gone);
  }

  /** A fault typed live: applied now, with the scenario's verbs and selectors. Returns what was done. */
  applyFault(line: string): string {
    this.catchUp();
    const f = parseFaultLine(line, this.world.resolver, 1000 + ++this.faults, this.world.now);
    this.world.applyFault(f);
    this.catchUp();
    return `${f.fault} applied at ${(this.scenarioMs() / 1000).toFixed(3)} s${f.durationUs !== undefined ? `, undone ${f.durationUs / 1e6} s later` : ''}`;
  }

  /** Stops serving; the result checks the trace (with the final state when the scenario reached its end). */
  async stop(): Promise<RunResult> { // determinism-ok: closes real sockets
    if (!this.stopped) {
      this.catchUp();
      this.stopped = true;
      if (this.timer) clearTimeout(this.timer); // determinism-ok: the real-time loop
      for (const s of this.sockets) s.destroy();
      await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))); // determinism-ok: real sockets
    }
    return this.run.finish();
  }
}
