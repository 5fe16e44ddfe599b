import { startMetricsSampler } from '../kafka/metrics/sampler';
import { brokerExtensionsFor, hasTransactions, transactionTopics } from './transactions';
import { ms, type Micros } from '../core/time';
import { NumberedListBuilder, type NumberedTexts } from '../core/numberedText';
import type { TraceEvent, TraceSink } from '../core/trace';
import { World } from '../world/world';
import type { Fault } from '../world/nemesis';
import { ClusterBootError, KafkaCluster, type KafkaClusterOptions } from '../kafka/cluster';
import type { BrokerListeners } from '../kafka/broker/broker';
import { bootFailure } from './bootFailure';
import type { Producer } from '../kafka/client/producer/producer';
import type { PartitionLog } from '../kafka/broker/partitionLog';
import type { PayloadTable } from '../kafka/payloadTable';
import type { RecordBatch } from '../kafka/records';
import { Admin, type TopicToCreate } from '../kafka/admin';
import type { CheckReport } from '../check/checkers';
import { ExpectationCheckers } from './expectationCheckers';
import type { ExpectationSpec } from './spec';
import type { Scenario, ScenarioExpectation } from './validate';
import { OPERATOR_ID, describeAction, type ScenarioAction } from './actions';
import { ReassignPartitions } from './reassignPartitions';
import { RollingRestart } from './rollingRestart';
import { attachConsumers, consumerTopics } from './consumers';
import { CaptionAnchors, nameAnchor, nameNodes } from './captionAnchors';
import { attachShareConsumers } from './shareConsumers';

export { SCENARIO_KINDS } from './scenarioKinds';

export interface ExpectationResult {
  readonly description: string;
  readonly check: string;
  readonly op: string;
  readonly expected: number;
  readonly actual: number;
  readonly ok: boolean;
}

export interface RunResult {
  readonly scenario: string;
  readonly seed: number | string;
  readonly simulatedMs: number;
  /** Trace events recorded. */
  readonly events: number;
  /** Events the engine dispatched. */
  readonly engineEvents: number;
  readonly traceHash: string;
  readonly checks: CheckReport;
  readonly expectations: readonly ExpectationResult[];
  readonly ok: boolean;
  /** The trace, when kept in memory. */
  readonly trace: readonly TraceEvent[];
  /** Scenario time 0 on the simulated clock (the cluster finished booting). */
  readonly startUs: Micros;
  readonly cluster: KafkaCluster;
}

export interface RunOptions {
  /** Overrides the scenario's seed. */
  readonly seed?: number | string;
  readonly sinks?: readonly TraceSink[];
  /**
   * Keep the trace in memory as RunResult.trace (default true: the UI and the trace-reading properties want it).
   * The checkers never need it: they fold the events as the run emits them.
   */
  readonly keepEvents?: boolean;
  /** Compute the trace hash (default true). */
  readonly hash?: boolean;
  /** Stop after this much scenario time instead of the scenario's duration plus quiet period (the UI's incremental runs). */
  readonly untilUs?: Micros;
  /**
   * Gives up with a RunawayRunError once the engine has run this many events (boot included): a sweep's way to
   * bound a run whose faults set off a storm of messages instead of waiting on it.
   */
  readonly maxEvents?: number;
  /**
   * Run the checkers (default true). Off only to measure what they cost (the bench): the report is then empty
   * and no expectation is evaluated.
   */
  readonly checkers?: boolean;
  /** Per-partition figures to report besides those the expectations name (`kafkasim run --figure`). */
  readonly figures?: readonly string[];
}

/** A run stopped by RunOptions.maxEvents before reaching its end. */
export class RunawayRunError extends Error {
  constructor(
    readonly maxEvents: number,
    readonly simulatedMs: number,
  ) {
    super(`the run dispatched ${maxEvents} events by ${simulatedMs} ms of scenario time and was stopped (maxEvents)`);
    this.name = 'RunawayRunError';
  }
}

/** The resolved configuration written into the trace header (enough to rebuild the run). */
export function headerConfig(s: Scenario): unknown {
  return { spec: s.spec, seed: s.seed };
}

/** Plain words for an expectation. */
export function describeExpectation(e: ExpectationSpec): string {
  if (e.description !== undefined) return e.description;
  const during = e.during ? ` during ${e.during.map((t) => (typeof t === 'number' ? `${t}ms` : t)).join(' to ')}` : '';
  return `${e.check} ${e.op} ${e.value}${during}`;
}

function holds(actual: number, op: string, expected: number): boolean {
  switch (op) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '>':
      return actual > expected;
    case '>=':
      return actual >= expected;
    case '<':
      return actual < expected;
    case '<=':
      return actual <= expected;
    default:
      return false;
  }
}

/** Judges each expectation on what the checkers observed (over its window, when it has one). */
export function evaluateExpectations(expect: readonly ScenarioExpectation[], checkers: ExpectationCheckers): ExpectationResult[] {
  return expect.map((e) => {
    const actual = checkers.observed(e);
    return { description: describeExpectation(e), check: e.check, op: e.op, expected: e.value, actual, ok: holds(actual, e.op, e.value) };
  });
}

/** Extras for a run that real clients join (sim/kafka/wire, sim/embed, `kafkasim serve`). */
export interface WireRunOptions {
  /** What the brokers advertise to real clients, and the wall-clock time of simulated time 0. */
  readonly listeners?: BrokerListeners;
  /** Run the group coordinator (and create __consumer_offsets) even when no simulated consumer needs it. */
  readonly groupCoordinator?: boolean;
}

/** A scenario booted and scheduled, to be run to its end by whoever drives its clock. */
export interface ScenarioRun {
  readonly scenario: Scenario;
  readonly seed: number | string;
  readonly world: World;
  readonly cluster: KafkaCluster;
  /** Scenario time 0 on the simulated clock (the cluster finished booting). */
  readonly startUs: Micros;
  /** The end of the fault schedule, and of the quiet period after it. */
  readonly endOfFaultsUs: Micros;
  readonly endUs: Micros;
  /** Records the final state and `scenario.end` (when the run reached its end) and checks the trace. */
  finish(): RunResult;
}

/** Group coordination as before; with a transactional producer, the transaction coordinator beside it. */
function brokerExtensionsOf(s: Scenario, forceGroups: boolean): Partial<Pick<KafkaClusterOptions, 'brokerExtensions'>> {
  const txn = hasTransactions(s);
  const groups = forceGroups || s.consumers.some((c) => c.group !== null) || s.shareConsumers.length > 0;
  const inner = txn ? brokerExtensionsFor(groups, true, s.cluster.brokerConfig, s.cluster.transactionVersion) : attachConsumers.brokerExtensions(s, forceGroups).brokerExtensions;
  const ext = attachShareConsumers.brokerExtensions(s, inner);
  return ext ? { brokerExtensions: ext } : {};
}

/**
 * Builds the world and the cluster of a validated scenario, boots it, starts its clients and schedules its faults,
 * actions, captions and quiet period. Nothing of the scenario's own time has run yet.
 */
export function startScenario(s: Scenario, opts: RunOptions & WireRunOptions = {}): ScenarioRun {
  const seed = opts.seed ?? s.seed;
  const net = s.cluster.network;
  const checkers = opts.checkers === false ? undefined : new ExpectationCheckers(s.expect, opts.figures);
  // Anchored captions watch the trace for their events (times are made absolute once t0 is known).
  const anchored = s.captions.some((c) => c.on !== null) ? new CaptionAnchors() : undefined;
  const world = new World({
    seed,
    scenario: s.id,
    config: headerConfig({ ...s, seed }),
    sinks: [...(checkers ? [checkers.sink] : []), ...(anchored ? [anchored] : []), ...(opts.sinks ?? [])],
    keepEvents: opts.keepEvents !== false,
    hash: opts.hash !== false,
    traceDetail: s.trace !== 'minimal',
    network: {
      ...(net?.sameZoneLatencyMs !== undefined && { sameZone: { baseMs: net.sameZoneLatencyMs, jitterMs: net.jitterMs ?? 0.05 } }),
      ...(net?.crossZoneLatencyMs !== undefined && { crossZone: { baseMs: net.crossZoneLatencyMs, jitterMs: net.jitterMs ?? 0.2 } }),
      ...(net?.bandwidthBytesPerSec !== undefined && { bandwidthBytesPerSec: net.bandwidthBytesPerSec }),
      traceMessages: s.trace === 'full',
    },
    disk: {
      ...(s.cluster.disk?.fsyncLatencyMs !== undefined && { fsyncLatencyMs: s.cluster.disk.fsyncLatencyMs }),
      ...(s.cluster.disk?.writebackDelayMs !== undefined && { writebackDelayMs: s.cluster.disk.writebackDelayMs }),
      ...(s.cluster.disk?.tornWriteProbability !== undefined && { tornWriteProbability: s.cluster.disk.tornWriteProbability }),
    },
  });
  const staticConfig: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.cluster.brokerOverrides)) staticConfig[k] = Array.isArray(v) ? v.join(',') : String(v);
  const groups = opts.groupCoordinator === true;
  const cluster = new KafkaCluster(world, {
    controllers: s.cluster.controllers,
    brokers: s.cluster.brokers,
    racks: s.cluster.racks,
    zones: s.cluster.zones,
    brokerConfig: s.cluster.brokerConfig,
    staticConfig,
    eligibleLeaderReplicas: s.cluster.eligibleLeaderReplicas,
    legacyHighWatermarkTruncation: s.cluster.legacyHighWatermarkTruncation,
    groupConfigs: s.groupConfigs,
    metricsSampled: s.metricsIntervalUs !== null,
    ...brokerExtensionsOf(s, groups),
    ...(opts.listeners && { listeners: opts.listeners }),
  });
  // A manual assignment goes to the controller as Kafka's CreateTopics carries it: with -1 for the counts.
  const topics: TopicToCreate[] = s.topics.map((t) =>
    t.assignment
      ? { name: t.name, numPartitions: -1, replicationFactor: -1, configs: t.configs, assignments: t.assignment }
      : { name: t.name, numPartitions: t.partitions, replicationFactor: t.replicationFactor, configs: t.configs },
  );
  topics.push(...consumerTopics(s, groups));
  if (hasTransactions(s)) topics.push(...transactionTopics(s.cluster.brokerConfig));
  topics.push(...attachShareConsumers.topics(s));
  let t0: Micros;
  try {
    t0 = cluster.boot(topics);
  } catch (e) {
    throw e instanceof ClusterBootError ? bootFailure(e, s.cluster) : e;
  }
  const t0ms = t0 / 1000;

  for (const p of s.producers) {
    const workloads = p.workloads.map((w) => ({
      ...w,
      startMs: t0ms + (w.startMs ?? 0),
      ...(w.stopMs !== undefined && { stopMs: t0ms + w.stopMs }),
      ...(w.at && { at: w.at.map((x) => t0ms + x) }),
    }));
    cluster.addProducer(p.id, p.config, workloads, p.zone, p.startUs > 0 ? t0 + p.startUs : undefined, s.cluster.transactionVersion);
  }
  attachConsumers.start(s, cluster, t0);
  attachShareConsumers.start(s, cluster, t0);

  if (s.metricsIntervalUs !== null) startMetricsSampler(world, t0, s.metricsIntervalUs, s.alerts);
  world.schedule(s.faults.map((f): Fault => ({ ...f, atUs: f.atUs + t0 })));
  scheduleActions(world, cluster, s.actions, t0);
  // A caption names nodes by the brokers its selectors mean as the scenario starts (the roles the story begins with).
  const resolve = (sel: string) => world.resolver.resolve(sel);
  for (const c of s.captions) {
    const text = nameNodes(c.text, resolve, s.cluster.brokerNames);
    if (c.on) anchored!.add({ atUs: t0 + c.atUs, text, on: nameAnchor(c.on, resolve) });
    else world.scheduler.at(t0 + c.atUs, () => world.trace.emit('caption', 'scenario', { text }), undefined, 'a caption');
  }
  anchored?.attach(world.trace, (atUs, f) => world.scheduler.at(atUs, f, undefined, 'a caption at its event'));

  const endOfFaults = t0 + s.durationUs;
  const end = endOfFaults + s.quietUs;
  if (s.quietUs > 0) world.scheduler.at(endOfFaults, () => beginQuiet(world), undefined, 'the quiet period');
  return {
    scenario: s,
    seed,
    world,
    cluster,
    startUs: t0,
    endOfFaultsUs: endOfFaults,
    endUs: end,
    finish(): RunResult {
      if (world.now >= end) {
        anchored?.flush();
        recordFinalState(world, cluster);
        world.trace.emit('scenario.end', 'scenario', { durationMs: s.durationUs / 1000, quietMs: s.quietUs / 1000 });
      }
      const trace = world.memory?.events ?? [];
      const checks = checkers ? checkers.report() : {};
      const expectations = checkers ? evaluateExpectations(s.expect, checkers) : [];
      return {
        scenario: s.id,
        seed,
        simulatedMs: (world.now - t0) / 1000,
        events: world.trace.count,
        engineEvents: world.scheduler.eventsRun,
        traceHash: world.trace.hash(),
        checks,
        expectations,
        ok: expectations.every((e) => e.ok),
        trace,
        startUs: t0,
        cluster,
      };
    },
  };
}

/**
 * Runs a validated scenario: builds the world and the cluster, boots it, starts the clients, applies the
 * fault schedule, runs the duration and the quiet period, records the final state, and checks the trace.
 */
export function runScenario(s: Scenario, opts: RunOptions = {}): RunResult {
  const run = startScenario(s, opts);
  const world = run.world;
  const stopAt = opts.untilUs !== undefined ? Math.min(run.endUs, run.startUs + opts.untilUs) : run.endUs;
  if (opts.maxEvents !== undefined) {
    world.runUntil(stopAt, Math.max(0, opts.maxEvents - world.scheduler.eventsRun));
    const next = world.scheduler.peekTime();
    if (next !== null && next <= stopAt) throw new RunawayRunError(opts.maxEvents, Math.max(0, world.now - run.startUs) / 1000);
  }
  world.runUntil(stopAt); // with a limit, nothing is left to run: this only moves the clock to the end
  return run.finish();
}

/**
 * Operator actions run through an admin client of their own (host "operator", outside every fault selector but
 * its own name), which sends the request to the controllers at the action's moment.
 */
function scheduleActions(world: World, cluster: KafkaCluster, actions: readonly ScenarioAction[], t0: Micros): void {
  if (actions.length === 0) return;
  const host = world.addHost({ id: OPERATOR_ID, zone: cluster.opts.zones[0] ?? 'zone-a', tags: ['operator'] });
  let admin: Admin | undefined;
  host.addProcess({ id: OPERATOR_ID, create: (ctx) => (admin = new Admin(ctx, OPERATOR_ID, cluster.controllerIds, [])) });
  host.start();
  for (const a of actions) {
    world.scheduler.at(
      t0 + a.atUs,
      () => {
        world.trace.emit('scenario.action', 'scenario', { index: a.index, action: a.action, detail: describeAction(a) });
        switch (a.action) {
          case 'create-partitions':
            if (admin?.alive) admin.createPartitions(a.topic, a.count);
            break;
          case 'rolling-restart':
            new RollingRestart(world, cluster, () => admin, a).start();
            break;
          case 'reassign-partitions':
            new ReassignPartitions(world, cluster, () => admin, a).start();
            break;
          case 'elect-leaders':
            if (admin?.alive) admin.electLeaders(a.election, a.partitions);
            break;
        }
      },
      undefined,
      `action ${a.index}`,
    );
  }
}

/** The quiet period: undo every fault, stop the producers' workloads, let the cluster heal. */
function beginQuiet(world: World): void {
  world.trace.emit('scenario.quiet', 'scenario', {});
  world.network.heal();
  world.network.clearLinkFaults();
  for (const h of world.hosts()) {
    h.resume();
    h.disk.slowFactor = 1;
    h.disk.full = false;
    // Only what a fault took down comes back; a client that closed on purpose stays closed.
    if (h.downByFault && (h.state === 'crashed' || h.state === 'powered-off' || h.state === 'stopped' || h.state === 'stopping')) h.restart();
  }
  for (const h of world.hosts()) {
    for (const p of h.processes()) {
      const producer = p as Partial<Producer>;
      if (typeof producer.stopWorkload === 'function') producer.stopWorkload();
    }
  }
}

/** Hands every record of `log` in [from, upTo) to `f` (its batch, its index there, its offset), in offset order; transaction markers are left out. */
function forEachRecord(log: PartitionLog, from: number, upTo: number, f: (b: RecordBatch, i: number, offset: number) => void): void {
  let pos = from;
  while (pos < upTo) {
    const r = log.read(pos, 1 << 30, upTo, true);
    if (r.error || r.batches.length === 0) break;
    for (const b of r.batches) {
      // Transaction markers are not records of the history.
      if (b.isControl) {
        pos = Math.max(pos, b.baseOffset + b.lastOffsetDelta + 1);
        continue;
      }
      for (let i = 0; i < b.recordCount; i++) {
        const o = b.offsetAt(i);
        if (o < pos || o >= upTo) continue;
        f(b, i, o);
      }
      pos = Math.max(pos, b.baseOffset + b.lastOffsetDelta + 1);
    }
  }
}

interface FinalRecords {
  readonly offsets: number[];
  readonly keys: (string | null)[];
  readonly values: (string | null)[];
  readonly numbers: NumberedTexts | undefined;
  /** Each record's payload table and value id: equal pairs are equal values, without making their text. */
  readonly tables: PayloadTable[];
  readonly valueIds: number[];
}

/** The records of `log` in [from, upTo), in offset order. */
function readRecords(log: PartitionLog, from: number, upTo: number): FinalRecords {
  // At most one record per offset: the lists are made at that length and cut to the records there are (markers
  // and compacted offsets hold none). This reads every record of the run once, so it grows no list.
  const most = Math.max(0, upTo - from);
  const offsets = new Array<number>(most);
  const keys = new Array<string | null>(most);
  const values = new Array<string | null>(most);
  const tables = new Array<PayloadTable>(most);
  const valueIds = new Array<number>(most);
  const numbers = new NumberedListBuilder(most);
  let n = 0;
  forEachRecord(log, from, upTo, (b, i, o) => {
    const valueId = b.valueIdAt(i);
    offsets[n] = o;
    keys[n] = b.keyAt(i);
    values[n] = b.payloads.valueText(valueId);
    tables[n] = b.payloads;
    valueIds[n] = valueId;
    numbers.add(b.payloads.countedPrefix, valueId);
    n++;
  });
  if (n < most) {
    offsets.length = n;
    keys.length = n;
    values.length = n;
    tables.length = n;
    valueIds.length = n;
  }
  return { offsets, keys, values, numbers: numbers.finish(), tables, valueIds };
}

/**
 * The offsets of `log` in [from, upTo) where it holds another value than `source` (and which): at most
 * MAX_DIVERGED_OFFSETS. A record of the same batch as the source's (a follower appends the leader's batch) is
 * the same value; only others have their text compared.
 */
function divergedFrom(source: FinalRecords, log: PartitionLog, from: number, upTo: number): { offsets: number[]; values: (string | null)[] } {
  const d = { offsets: [] as number[], values: [] as (string | null)[] };
  let k = 0;
  forEachRecord(log, from, upTo, (b, i, o) => {
    while (k < source.offsets.length && source.offsets[k]! < o) k++;
    if (k >= source.offsets.length || source.offsets[k] !== o || d.offsets.length >= MAX_DIVERGED_OFFSETS) return;
    if (b.payloads === source.tables[k] && b.valueIdAt(i) === source.valueIds[k]) return;
    const v = b.valueAt(i);
    if (v !== (source.values[k] ?? null)) {
      d.offsets.push(o);
      d.values.push(v);
    }
  });
  return d;
}

/** At most this many differing offsets are recorded per replica. */
const MAX_DIVERGED_OFFSETS = 1000;

/**
 * The ground truth at the end: per partition, the committed log of its leader (or of the most complete
 * replica when it has none), as `final.partition` events, so a saved trace can be checked on its own.
 * Each other replica is compared with it below the high watermark: offsets where a replica holds a
 * different record (logs that diverged and never converged) are listed in `diverged`.
 */
function recordFinalState(world: World, cluster: KafkaCluster): void {
  const image = cluster.image();
  if (!image) return;
  for (const t of image.topics()) {
    if (t.name.startsWith('__')) continue;
    const compacted = (image.effectiveTopicConfig(t.name, 'cleanup.policy') ?? 'delete').includes('compact');
    t.partitions.forEach((p, partition) => {
      let source = p.leader >= 0 ? cluster.broker(p.leader)?.replicas.partition(t.name, partition) : undefined;
      const offline = !source;
      if (!source) {
        for (const r of p.replicas) {
          const cand = cluster.broker(r)?.replicas.partition(t.name, partition);
          if (cand && (!source || cand.log.logEndOffset > source.log.logEndOffset)) source = cand;
        }
      }
      let records: FinalRecords = { offsets: [], keys: [], values: [], numbers: undefined, tables: [], valueIds: [] };
      let hw = -1;
      let leo = -1;
      let start = -1;
      const diverged: { broker: number; offsets: number[]; values: (string | null)[] }[] = [];
      if (source) {
        const log = source.log;
        hw = offline ? log.logEndOffset : log.highWatermark;
        leo = log.logEndOffset;
        start = log.logStartOffset;
        records = readRecords(log, start, hw);
        for (const r of p.replicas) {
          const replica = cluster.broker(r)?.replicas.partition(t.name, partition);
          if (!replica || replica === source) continue;
          const d = divergedFrom(records, replica.log, replica.log.logStartOffset, Math.min(replica.log.logEndOffset, hw));
          if (d.offsets.length > 0) diverged.push({ broker: r, ...d });
        }
      }
      world.trace.emit('final.partition', 'scenario', {
        topic: t.name,
        partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: [...p.replicas],
        isr: [...p.isr],
        elr: [...p.elr],
        highWatermark: hw,
        logEndOffset: leo,
        logStartOffset: start,
        compacted,
        offline,
        offsets: records.offsets,
        keys: records.keys,
        values: records.values,
        diverged,
      }, records.numbers);
    });
  }
}
