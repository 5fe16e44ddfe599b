import { Kafka, Partitioners, logLevel, type Consumer, type ConsumerConfig, type KafkaConfig, type Message, type Producer, type ProducerConfig, type Admin, type AdminConfig, type ISocketFactory } from 'kafkajs';
import { Random } from '../core/random';
import type { Micros } from '../core/time';
import type { TraceSink } from '../core/trace';
import type { World } from '../world/world';
import type { BrokerListeners } from '../kafka/broker/broker';
import { brokerActorId } from '../kafka/client/metadataCache';
import { newUuid } from '../kafka/metadata/uuid';
import { joinGroup, type JoinGroupResponseData } from '../kafka/wire/apis/joinGroup';
import { ClientSocket } from '../kafka/wire/clientSocket';
import { WireFrontEnd } from '../kafka/wire/frontEnd';
import { ClientTraffic } from '../kafka/wire/clientTraffic';
import { applyOverrides } from '../scenario/overrides';
import { startScenario, type RunResult, type ScenarioRun } from '../scenario/runner';
import type { ScenarioSpec } from '../scenario/spec';
import { validateScenario, type Scenario } from '../scenario/validate';
import { loadScenario } from '../cli/library';
import { recordConsumer, recordProducer, recordingPartitioner, type MemberState } from './appHistory';
import { SimSocket } from './simSocket';
import { VirtualTime } from './virtualTime';

/** 2026-01-01T00:00:00Z: what the application's clock reads at simulated time 0 unless told otherwise. */
export const DEFAULT_EPOCH_MS = 1_767_225_600_000;

/** The host the application's clients live on (a fault may name it: `isolate app`). */
export const APP_HOST = 'app';

export interface SimulatedClusterOptions {
  /** A scenario: a library id (`acks1-leader-crash`), a path to a scenario file, or a scenario spec. */
  readonly scenario: string | ScenarioSpec;
  readonly seed?: number | string;
  /** Config overrides as `kafkasim run --set` takes them (`topic.min.insync.replicas=2`). */
  readonly set?: readonly string[];
  /** kafkajs settings for every client (clientId, retry, logLevel, requestTimeout, ...); brokers and sockets are the simulator's. */
  readonly kafka?: Omit<KafkaConfig, 'brokers' | 'socketFactory'>;
  /** What the application's clock reads at simulated time 0 (ms since the epoch). */
  readonly epochMs?: number;
  /** Keep every trace event in memory (`result.trace`); the checkers never need it. Default true. */
  readonly keepEvents?: boolean;
  /** More trace sinks: `new JsonlSink(write)` saves the run for `kafkasim check` and the UI. */
  readonly sinks?: readonly TraceSink[];
}

/** What the application's code is given while it runs on simulated time. */
export interface RunContext {
  /** A kafkajs Kafka whose producers, consumers and admins connect to the simulated brokers. */
  readonly kafka: Kafka;
  /** Waits `ms` of simulated time. */
  sleep(ms: number): Promise<void>;
  /** Simulated milliseconds since the scenario started (the cluster finished booting). */
  scenarioMs(): number;
}

/**
 * A scenario's cluster for real kafkajs clients, in the same process and on simulated time
 * [README: "Your own application against the simulated cluster"]. The application's producers and consumers are
 * real kafkajs, with their own retries, timeouts and rebalance callbacks; their bytes cross the simulated network
 * to brokers that answer with their own state, through the scenario's faults. The same seed and code give the
 * same run, and their sends and deliveries are in the history every checker reads.
 */
export class SimulatedCluster {
  readonly scenario: Scenario;
  readonly kafka: Kafka;
  /** The bootstrap list the clients use (`broker-1:9092,...`). */
  readonly brokers: readonly string[];
  private readonly started: ScenarioRun;
  private readonly time: VirtualTime;
  private readonly config: KafkaConfig;
  private readonly endpoints = new Map<string, number>();
  private readonly counters = new Map<string, number>();
  private sockets = 0;
  private result: RunResult | null = null;

  constructor(opts: SimulatedClusterOptions) {
    this.scenario = typeof opts.scenario === 'string' ? loadScenario(opts.scenario, opts.set ?? []) : validateScenario(opts.set?.length ? applyOverrides(opts.scenario, opts.set) : opts.scenario);
    const seed = opts.seed ?? this.scenario.seed;
    const epochMs = opts.epochMs ?? DEFAULT_EPOCH_MS;
    const listeners: BrokerListeners = {
      clusterId: newUuid(Random.root(seed).fork('cluster-id')),
      epochMs,
      endpoint: (id) => ({ host: brokerActorId(id), port: 9092 }),
      frontEnd: (b) => new WireFrontEnd(b),
    };
    this.started = startScenario(this.scenario, { seed, listeners, groupCoordinator: true, keepEvents: opts.keepEvents !== false, ...(opts.sinks ? { sinks: opts.sinks } : {}) });
    const ids = Array.from({ length: this.scenario.cluster.brokers }, (_, i) => i + 1);
    for (const id of ids) {
      const e = listeners.endpoint(id)!;
      this.endpoints.set(`${e.host}:${e.port}`, id);
    }
    this.brokers = ids.map((id) => `${listeners.endpoint(id)!.host}:9092`);
    this.world.addHost({ id: APP_HOST, zone: this.scenario.cluster.zones[0] ?? 'zone-a', tags: ['client', 'app'] }).start();
    this.time = new VirtualTime(this.world, epochMs, this.world.random.fork('app'));
    this.config = { logLevel: logLevel.NOTHING, ...opts.kafka, clientId: opts.kafka?.clientId ?? 'kafkasim-app', brokers: [...this.brokers] };
    this.kafka = this.clientFactory();
  }

  get world(): World {
    return this.started.world;
  }

  /** Scenario time 0 on the simulated clock, and the end of its quiet period. */
  get startUs(): Micros {
    return this.started.startUs;
  }

  /**
   * Runs the application's code on simulated time, then the scenario to its end (its duration and quiet period),
   * and checks the trace. Resolves with what the code returned and the run's result (checks, expectations, hash).
   */
  async run<T>(app: (ctx: RunContext) => Promise<T>): Promise<{ value: T; result: RunResult }> {
    if (this.result) throw new Error('this simulated cluster already ran; build a new one for another run');
    const ctx: RunContext = {
      kafka: this.kafka,
      sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)), // determinism-ok: virtual, installed by VirtualTime
      scenarioMs: () => (this.world.now - this.started.startUs) / 1000,
    };
    const value = await this.time.run(() => app(ctx), this.started.endUs); // determinism-ok: the edge: runs the application's code
    this.result = this.started.finish();
    return { value, result: this.result };
  }

  private nextIndex(role: string): number {
    const n = (this.counters.get(role) ?? 0) + 1;
    this.counters.set(role, n);
    return n;
  }

  /** The Kafka handed to the application: each producer, consumer and admin gets its own connections, named for it. */
  private clientFactory(): Kafka {
    const kafka = new Kafka({ ...this.config, socketFactory: this.socketFactory(`${APP_HOST}-client`) });
    const trace = this.world.trace;
    kafka.producer = (config?: ProducerConfig): Producer => {
      const node = `${APP_HOST}-producer-${this.nextIndex('producer')}`;
      const chosen = new WeakMap<Message, number>();
      const own = new Kafka({ ...this.config, socketFactory: this.socketFactory(node) });
      const createPartitioner = recordingPartitioner(config?.createPartitioner ?? Partitioners.DefaultPartitioner, chosen);
      return recordProducer(own.producer({ ...config, createPartitioner }), node, trace, chosen);
    };
    kafka.consumer = (config: ConsumerConfig): Consumer => {
      const node = `${APP_HOST}-consumer-${this.nextIndex('consumer')}`;
      const member: MemberState = { memberId: '', generation: -1 };
      const own = new Kafka({ ...this.config, socketFactory: this.socketFactory(node, member) });
      return recordConsumer(own.consumer(config), node, config.groupId, trace, member);
    };
    kafka.admin = (config?: AdminConfig): Admin => {
      const node = `${APP_HOST}-admin-${this.nextIndex('admin')}`;
      return new Kafka({ ...this.config, socketFactory: this.socketFactory(node) }).admin(config);
    };
    return kafka;
  }

  /** kafkajs's socketFactory: each socket is a simulated connection from the application host to a broker. */
  private socketFactory(node: string, member?: MemberState): ISocketFactory {
    return ({ host, port, onConnect }) => {
      const s = new SimSocket(host, port);
      const brokerId = this.endpoints.get(`${host}:${port}`);
      if (brokerId === undefined) {
        this.time.deliver(() => s.closed(false, `no simulated broker listens on ${host}:${port}`));
        return s as unknown as ReturnType<ISocketFactory>;
      }
      // A consumer's JoinGroup answers say its generation, which kafkajs keeps to itself.
      const traffic = member
        ? new ClientTraffic(new Set([joinGroup.key]), (_api, _version, body) => {
            const r = body as JoinGroupResponseData;
            if (r.errorCode === 0) {
              member.generation = r.generationId;
              member.memberId = r.memberId;
            }
          })
        : null;
      const id = `${node}/s${++this.sockets}`;
      let open = false;
      this.world.host(APP_HOST).addProcess({
        id,
        create: (ctx) => {
          const socket = new ClientSocket(ctx, id, brokerActorId(brokerId), {
            connect: () => {
              open = true;
              this.time.deliver(() => {
                s.opened();
                onConnect?.();
              });
            },
            data: (bytes) => {
              traffic?.received(bytes);
              this.time.deliver(() => s.received(bytes));
            },
            close: (cause) => this.time.deliver(() => s.closed(open, cause)),
          });
          s.attach(socket);
          return socket;
        },
      });
      if (traffic) {
        const write = s.write.bind(s);
        s.write = (data: Uint8Array | string, encoding?: BufferEncoding | (() => void), cb?: () => void) => {
          traffic.sent(typeof data === 'string' ? Buffer.from(data) : data);
          return write(data, encoding, cb);
        };
      }
      return s as unknown as ReturnType<ISocketFactory>;
    };
  }
}

/** Builds a scenario's cluster for real kafkajs clients (see SimulatedCluster). */
export function simulatedCluster(opts: SimulatedClusterOptions): SimulatedCluster {
  return new SimulatedCluster(opts);
}
