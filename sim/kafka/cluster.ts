import { ms, type Micros } from '../core/time';
import type { TransactionVersion } from './coordinator/transaction/transactionMetadata';
import type { TargetResolver } from '../world/nemesis';
import type { World } from '../world/world';
import { Admin, type TopicToCreate } from './admin';
import { CONSUMER_OFFSETS_TOPIC } from './broker/groupCoordinatorService';
import { Broker, type BrokerExtension, type BrokerListeners } from './broker/broker';
import { brokerActorId } from './client/metadataCache';
import { Producer } from './client/producer/producer';
import type { ProducerWorkload } from './client/producer/workload';
import type { BrokerConfig, ProducerConfig } from './config/configs';
import { Controller } from './controller/controller';
import { partitionForGroup } from './coordinator/groupCoordinatorPartition';
import type { MetadataImage } from './metadata/metadataImage';
import { defineKinds, num, type KindsOf } from '../core/traceSchema';

/** The cluster's own moments. */

/** The cluster did not come up (see KafkaCluster.boot): `phase` says what it was still waiting for. */
export class ClusterBootError extends Error {
  constructor(
    readonly limitMs: number,
    readonly phase: string,
  ) {
    super(`the cluster did not boot within ${limitMs} ms: ${phase}`);
    this.name = 'ClusterBootError';
  }
}
export const CLUSTER_KINDS = defineKinds({
  /** The cluster finished booting (controllers elected, brokers unfenced, topics created): scenario time 0. */
  'scenario.start': { bootMs: num },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof CLUSTER_KINDS> {}
}

export interface KafkaClusterOptions {
  readonly controllers: number;
  readonly brokers: number;
  /** Rack per broker (index id-1), or null. */
  readonly racks: readonly (string | null)[];
  readonly zones: readonly string[];
  readonly brokerConfig: BrokerConfig;
  /** Broker overrides as Kafka names -> strings (the static config; topic-default synonyms matter). */
  readonly staticConfig: Readonly<Record<string, string>>;
  readonly eligibleLeaderReplicas: boolean;
  readonly legacyHighWatermarkTruncation: boolean;
  /** Builds the broker's extra request handlers (the group coordinator). */
  readonly brokerExtensions?: (b: Broker) => BrokerExtension;
  /** What the brokers advertise to real clients (default: `broker-N:9092`). */
  readonly listeners?: BrokerListeners;
  /**
   * Whether anything samples the brokers' metrics (default true). Without a sampler nobody ever reads the
   * request-time histograms, so the brokers do not keep request times at all (a run of millions of requests
   * would otherwise hold every one of them until it ends).
   */
  readonly metricsSampled?: boolean;
  /** Group configs written at bootstrap (group id -> name -> value). */
  readonly groupConfigs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** Topic-default configs that the first controller writes as cluster-wide configs at bootstrap. */
const CLUSTER_DEFAULT_KEYS = ['min.insync.replicas', 'unclean.leader.election.enable'] as const;

/**
 * A Kafka cluster on a world: controller and broker hosts, an admin client, and the clients added later.
 * It also resolves Kafka-level fault targets (`leader:orders/0`, `controller:active`, `coordinator:billing`) from the active
 * controller's committed metadata — the omniscient view, never consulted by actors.
 */
export class KafkaCluster {
  readonly controllerIds: string[];
  readonly brokerIds: number[];

  constructor(
    readonly world: World,
    readonly opts: KafkaClusterOptions,
  ) {
    this.controllerIds = Array.from({ length: opts.controllers }, (_, i) => `controller-${i + 1}`);
    this.brokerIds = Array.from({ length: opts.brokers }, (_, i) => i + 1);
    const clusterConfigs: Record<string, string> = {};
    for (const k of CLUSTER_DEFAULT_KEYS) {
      if (opts.staticConfig[k] !== undefined) clusterConfigs[k] = opts.staticConfig[k];
    }
    // Controllers spread over the distinct zones, one per zone in turn, as a quorum is deployed to survive a zone.
    const zones = [...new Set(opts.zones)];
    this.controllerIds.forEach((id, i) => {
      const zone = zones[i % Math.max(1, zones.length)] ?? 'zone-a';
      const host = world.addHost({ id, zone, rack: `controller-rack-${zone}`, tags: ['controller'] });
      host.addProcess({
        id,
        create: (ctx) =>
          new Controller(ctx, {
            id,
            voters: this.controllerIds,
            config: opts.brokerConfig,
            eligibleLeaderReplicas: opts.eligibleLeaderReplicas,
            clusterConfigs,
            ...(opts.groupConfigs && Object.keys(opts.groupConfigs).length > 0 && { groupConfigs: opts.groupConfigs }),
          }),
      });
    });
    for (const b of this.brokerIds) {
      const id = brokerActorId(b);
      const rack = opts.racks[b - 1] ?? null;
      const host = world.addHost({ id, zone: opts.zones[b - 1] ?? 'zone-a', rack: rack ?? 'rack-0', tags: ['broker'] });
      host.addProcess({
        id,
        create: (ctx) =>
          new Broker(ctx, {
            brokerId: b,
            rack,
            voters: this.controllerIds,
            config: opts.brokerConfig,
            staticConfig: opts.staticConfig,
            legacyHighWatermarkTruncation: opts.legacyHighWatermarkTruncation,
            ...(opts.metricsSampled === false && { keepRequestTimes: false }),
            ...(opts.brokerExtensions ? { extensions: opts.brokerExtensions } : {}),
            ...(opts.listeners ? { listeners: opts.listeners } : {}),
          }),
      });
    }
    world.addResolver(this.resolver());
  }

  // ---- the omniscient view ----

  controller(id: string): Controller | undefined {
    return this.world.host(id).process(id) as Controller | undefined;
  }

  broker(id: number): Broker | undefined {
    const aid = brokerActorId(id);
    return this.world.host(aid).process(aid) as Broker | undefined;
  }

  /** The active controller now, if any. */
  activeController(): Controller | undefined {
    for (const id of this.controllerIds) {
      const c = this.controller(id);
      if (c?.alive && c.isActive) return c;
    }
    return undefined;
  }

  /** The most advanced committed metadata among live controllers (the active one's when there is one). */
  image(): MetadataImage | undefined {
    const active = this.activeController();
    if (active) return active.image;
    let best: MetadataImage | undefined;
    for (const id of this.controllerIds) {
      const c = this.controller(id);
      if (c?.alive && (!best || c.image.lastOffset > best.lastOffset)) best = c.image;
    }
    return best;
  }

  /** Fault targets that only make sense in Kafka terms, resolved when the fault fires. */
  resolver(): TargetResolver {
    return {
      prefixes: ['leader:', 'follower:', 'controller:', 'broker:', 'coordinator:'],
      hostIds: [],
      resolve: (sel: string) => {
        // `coordinator:billing`: the broker leading the group's partition of __consumer_offsets.
        if (sel.startsWith('coordinator:')) {
          const p = partitionForGroup(sel.slice('coordinator:'.length), this.opts.brokerConfig['offsets.topic.num.partitions']);
          const leader = this.image()?.partitionByName(CONSUMER_OFFSETS_TOPIC, p)?.leader ?? -1;
          return leader >= 0 ? [brokerActorId(leader)] : [];
        }
        if (sel === 'controller:active') {
          const c = this.activeController();
          return c ? [c.id] : [];
        }
        if (sel.startsWith('broker:')) {
          const n = Number(sel.slice(7));
          return Number.isInteger(n) && this.brokerIds.includes(n) ? [brokerActorId(n)] : [];
        }
        // `follower:orders/0` is every in-sync follower; `follower:orders/0#2` the second of them in replica order.
        const m = /^(leader|follower):(.+?)[/-](\d+)(?:#(\d+))?$/.exec(sel);
        if (!m) return null;
        const img = this.image();
        const p = img?.partitionByName(m[2]!, Number(m[3]));
        if (!p) return [];
        if (m[1] === 'leader') return m[4] === undefined && p.leader >= 0 ? [brokerActorId(p.leader)] : [];
        const followers = p.replicas.filter((r) => r !== p.leader && p.isr.includes(r));
        if (m[4] === undefined) return followers.map((r) => brokerActorId(r));
        const nth = followers[Number(m[4]) - 1];
        return nth === undefined ? [] : [brokerActorId(nth)];
      },
    };
  }

  // ---- boot ----

  /**
   * Starts the cluster and runs it until it is ready for a scenario: an active controller, every broker
   * registered and unfenced, the topics created with leaders, and every broker caught up on metadata.
   * Returns the boot time; throws if the cluster does not come up within `limitMs`.
   */
  boot(topics: readonly TopicToCreate[], limitMs = 120_000): Micros {
    const world = this.world;
    world.start();
    const deadline = world.now + ms(limitMs);
    const step = ms(50);
    const until = (cond: () => boolean, what: string) => {
      while (!cond()) {
        if (world.now >= deadline) throw new ClusterBootError(limitMs, what);
        world.runUntil(world.now + step);
      }
    };
    until(() => {
      const img = this.activeController()?.image;
      return !!img && this.brokerIds.every((b) => img.broker(b) !== undefined && !img.broker(b)!.fenced);
    }, 'brokers did not all register and unfence');
    const adminHost = world.addHost({ id: 'admin', zone: this.opts.zones[0] ?? 'zone-a', tags: ['client'] });
    let admin: Admin | undefined;
    adminHost.addProcess({ id: 'admin', create: (ctx) => (admin = new Admin(ctx, 'admin', this.controllerIds, topics)) });
    adminHost.start();
    until(() => admin?.done === true, 'topics were not created');
    const internal = new Set(topics.filter((t) => t.internal).map((t) => t.name));
    const failed = admin!.results.filter((r) => r.error !== 'NONE' && !internal.has(r.name));
    if (failed.length > 0) throw new Error(`topic creation failed: ${failed.map((f) => `${f.name}: ${f.error} ${f.message}`).join('; ')}`);
    const created = new Set(admin!.results.filter((r) => r.error === 'NONE').map((r) => r.name));
    topics = topics.filter((t) => created.has(t.name));
    // Caught up: within one record of the controller's log, or at least as far as where the topics first had
    // their leaders (a controller writing no-op records every millisecond, metadata.max.idle.interval.ms=1,
    // moves its log end faster than a broker can follow).
    let leadersAt = Number.POSITIVE_INFINITY;
    until(() => {
      const img = this.activeController()?.image;
      if (!img) return false;
      for (const t of topics) {
        const ti = img.topicByName(t.name);
        if (!ti || ti.partitions.some((p) => p.leader < 0)) return false;
      }
      if (leadersAt === Number.POSITIVE_INFINITY) leadersAt = img.lastOffset;
      const target = Math.min(img.lastOffset - 1, leadersAt);
      return this.brokerIds.every((b) => {
        const br = this.broker(b);
        return !!br && br.image.lastOffset >= target && topics.every((t) => br.image.topicByName(t.name) !== undefined);
      });
    }, 'partitions did not get leaders on every broker');
    world.trace.emit('scenario.start', 'cluster', { bootMs: world.now / 1000 });
    return world.now;
  }

  // ---- clients ----

  addProducer(id: string, config: ProducerConfig, workloads: readonly ProducerWorkload[], zone: string | null, startAtUs?: Micros, transactionVersion?: TransactionVersion): void {
    const host = this.world.addHost({ id, zone: zone ?? this.opts.zones[0] ?? 'zone-a', tags: ['client', 'producer'] });
    host.addProcess({ id, create: (ctx) => new Producer(ctx, { id, config, bootstrap: this.brokerIds, workloads, ...(transactionVersion !== undefined && { transactionVersion }) }) });
    if (startAtUs === undefined || startAtUs <= this.world.now) host.start();
    else this.world.scheduler.at(startAtUs, () => host.start(), undefined, `the start of ${id}`);
  }
}
