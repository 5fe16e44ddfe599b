import type { CheckReport } from '../../../sim/check/checkers';
import type { TraceEvent, TraceHeader } from '../../../sim/core/trace';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { findBatch } from './replicaLog';
import { ValueTable } from './valueTable';
export type { ValueInfo } from './valueTable';
import { brokerOfNode, isIsrChange, num, nums, str, strOrNull, strs, values as valuesOf } from './fields';

export type LaneGroup = 'scenario' | 'controller' | 'broker' | 'client';

/** One node of the run: a row in the timeline, a card in the cluster view. */
export interface Lane {
  readonly id: string;
  readonly label: string;
  readonly group: LaneGroup;
  readonly zone: string;
  readonly rack: string;
  /** Broker id for brokers, else -1. */
  readonly broker: number;
}

export interface FaultInterval {
  readonly index: number;
  readonly fault: string;
  readonly hosts: readonly string[];
  readonly lanes: readonly number[];
  readonly detail: string;
  readonly start: number;
  /** When it ended (the quiet period or the end of the run when it never did). */
  readonly end: number;
  readonly startIndex: number;
}

/** A stretch when a host was not running normally. */
export interface HostInterval {
  readonly lane: number;
  readonly state: 'crashed' | 'powered off' | 'paused' | 'restarting' | 'stopping' | 'stopped';
  readonly start: number;
  readonly end: number;
}

export type MarkerKind =
  | 'fault'
  | 'host'
  | 'election'
  | 'controller'
  | 'isr'
  | 'truncate'
  | 'recovery'
  | 'power-loss'
  | 'caption'
  | 'lost-ack'
  | 'send-fail'
  | 'rejected'
  | 'fenced'
  | 'rebalance'
  | 'scenario';

/** A notable event: a stop for "next notable", a glyph on the timeline. */
export interface Marker {
  readonly i: number;
  readonly t: number;
  readonly lane: number;
  readonly kind: MarkerKind;
  readonly label: string;
}


export interface LeaderBatch {
  readonly base: number;
  readonly last: number;
  readonly epoch: number;
  readonly values: readonly (string | null)[];
}

export interface PartitionInfo {
  readonly key: string;
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
}

/** Network messages as columns (the sequence diagram draws thousands of them). */
export interface Messages {
  readonly n: number;
  readonly send: Float64Array;
  readonly arrive: Float64Array;
  readonly from: Int16Array;
  readonly to: Int16Array;
  readonly type: Uint16Array;
  readonly types: readonly string[];
  /** The event index of each message. */
  readonly index: Int32Array;
}

const SCENARIO_NODES = new Set(['scenario', 'nemesis', 'cluster']);

const CATEGORY_BY_PREFIX: [string, string][] = [
  ['fault.', 'fault'],
  ['host.', 'host'],
  ['process.', 'host'],
  ['net.', 'net'],
  ['disk.', 'disk'],
  ['log.', 'log'],
  ['replica.', 'replica'],
  ['controller.', 'controller'],
  ['raft.', 'raft'],
  ['broker.', 'broker'],
  ['send.', 'send'],
  ['producer.', 'producer'],
  ['consumer.', 'consumer'],
  ['group.', 'group'],
  ['scenario.', 'scenario'],
  ['final.', 'scenario'],
  ['caption', 'caption'],
];

export function categoryOf(kind: string): string {
  if (kind === 'shrink' || kind === 'expand') return 'replica';
  for (const [p, c] of CATEGORY_BY_PREFIX) if (kind.startsWith(p)) return c;
  return 'other';
}

/** Which category wins a pixel on the timeline when several share it. */
export const CATEGORY_PRIORITY: Record<string, number> = {
  fault: 9,
  host: 9,
  caption: 8,
  controller: 7,
  disk: 6,
  log: 6,
  group: 5,
  consumer: 4,
  replica: 3,
  send: 2,
  producer: 2,
  raft: 1,
  broker: 1,
  scenario: 1,
  net: 0,
  other: 0,
};

function naturalCompare(a: string, b: string): number {
  const ra = /^(.*?)(\d+)$/.exec(a);
  const rb = /^(.*?)(\d+)$/.exec(b);
  if (ra && rb && ra[1] === rb[1]) return Number(ra[2]) - Number(rb[2]);
  return a < b ? -1 : a > b ? 1 : 0;
}

function laneGroupOf(node: string): LaneGroup {
  if (SCENARIO_NODES.has(node)) return 'scenario';
  if (node.startsWith('controller-')) return 'controller';
  if (brokerOfNode(node) >= 0) return 'broker';
  return 'client';
}

const GROUP_ORDER: Record<LaneGroup, number> = { scenario: 0, controller: 1, broker: 2, client: 3 };

interface Placement {
  zoneOf(node: string): string;
  rackOf(node: string): string;
  writebackUs: number | null;
  spec: ScenarioSpec | null;
}

/** Where each host sits (zone, rack), from the scenario in the trace header, as sim/kafka/cluster.ts places them. */
function placement(header: TraceHeader): Placement {
  const spec = (header.config as { spec?: ScenarioSpec } | null)?.spec ?? null;
  let zones: readonly string[] = [];
  let racks: readonly (string | null)[] = [];
  let writebackUs: number | null = 30_000_000;
  const clientZones = new Map<string, string>();
  if (spec) {
    try {
      const s = validateScenario(spec);
      zones = s.cluster.zones;
      racks = s.cluster.racks;
      const wb = s.cluster.disk?.writebackDelayMs;
      writebackUs = wb === null ? null : wb === undefined ? 30_000_000 : wb * 1000;
      for (const p of s.producers) if (p.zone) clientZones.set(p.id, p.zone);
      for (const c of s.consumers) if (c.zone) clientZones.set(c.id, c.zone);
    } catch {
      // A trace from elsewhere: one zone.
    }
  }
  const first = zones[0] ?? 'zone-a';
  return {
    spec,
    writebackUs,
    zoneOf(node) {
      const c = /^controller-(\d+)$/.exec(node);
      if (c) return zones.length > 0 ? zones[(Number(c[1]) - 1) % zones.length]! : first;
      const b = brokerOfNode(node);
      if (b >= 0) return zones[b - 1] ?? first;
      return clientZones.get(node) ?? first;
    },
    rackOf(node) {
      const b = brokerOfNode(node);
      if (b >= 0) return racks[b - 1] ?? '';
      return '';
    },
  };
}

/**
 * The trace, indexed once (one pass, linear in its size): columns of times and lanes for drawing,
 * the notable events, fault and downtime intervals, what happened to every produced value, and the
 * leaders' batches so any replica's record can be named.
 */
export class TraceModel {
  readonly n: number;
  readonly t: Float64Array;
  readonly lane: Int16Array;
  readonly kindOf: Uint16Array;
  readonly kinds: string[] = [];
  readonly kindCategory: string[] = [];
  readonly lanes: Lane[] = [];
  readonly laneIndex = new Map<string, number>();
  /** Event indices of each lane, ascending. */
  readonly laneEvents: Int32Array[] = [];
  readonly markers: Marker[] = [];
  /** Indices of notable events, ascending (the markers' indices). */
  readonly notable: Int32Array;
  readonly faults: FaultInterval[] = [];
  readonly hostIntervals: HostInterval[] = [];
  readonly values = new ValueTable();
  /** Per partition key ("orders-0"), per leader epoch, the leader's batches in offset order. */
  readonly leaderBatches = new Map<string, Map<number, LeaderBatch[]>>();
  readonly partitions: PartitionInfo[] = [];
  readonly brokers: number[] = [];
  readonly messages: Messages | null;
  readonly captions: { readonly t: number; readonly i: number; readonly text: string }[] = [];
  readonly lost: ReadonlySet<string>;
  /** Lost values per partition key, by offset of the leader's append. */
  readonly lostByPartition = new Map<string, { offset: number; value: string }[]>();
  /** Scenario time 0 (scenario.start), the quiet period, the end. */
  readonly t0: number;
  readonly tFirst: number;
  readonly tLast: number;
  readonly tQuiet: number;
  readonly writebackUs: number | null;
  readonly spec: ScenarioSpec | null;
  readonly hasGroups: boolean;
  readonly hasFlush: boolean;

  constructor(
    readonly header: TraceHeader,
    readonly events: readonly TraceEvent[],
    readonly checks: CheckReport,
  ) {
    const n = events.length;
    this.n = n;
    this.t = new Float64Array(n);
    this.lane = new Int16Array(n);
    this.kindOf = new Uint16Array(n);
    const place = placement(header);
    this.writebackUs = place.writebackUs;
    this.spec = place.spec;
    this.lost = new Set(checks['lost-write']?.values ?? []);

    const kindIds = new Map<string, number>();
    const laneOf = (node: string): number => {
      const id = SCENARIO_NODES.has(node) ? 'scenario' : node;
      let l = this.laneIndex.get(id);
      if (l === undefined) {
        l = this.lanes.length;
        this.laneIndex.set(id, l);
        const group = laneGroupOf(id);
        this.lanes.push({ id, label: id === 'scenario' ? 'faults & captions' : id, group, zone: group === 'scenario' ? '' : place.zoneOf(id), rack: place.rackOf(id), broker: brokerOfNode(id) });
      }
      return l;
    };
    laneOf('scenario');

    let t0 = -1;
    let tQuiet = -1;
    const partitions = new Map<string, { topic: string; partition: number; replicas: Set<number> }>();
    const notePartition = (topic: string, partition: number, broker: number | readonly number[]) => {
      if (topic.startsWith('__') || partition < 0) return;
      const key = `${topic}-${partition}`;
      let p = partitions.get(key);
      if (!p) partitions.set(key, (p = { topic, partition, replicas: new Set() }));
      if (typeof broker === 'number') {
        if (broker >= 0) p.replicas.add(broker);
      } else for (const b of broker) p.replicas.add(b);
    };

    // Messages, collected as columns when the trace has them.
    const msgSend: number[] = [];
    const msgArrive: number[] = [];
    const msgFrom: number[] = [];
    const msgTo: number[] = [];
    const msgType: number[] = [];
    const msgIndex: number[] = [];
    const msgTypes = new Map<string, number>();

    const openFaults = new Map<number, { e: TraceEvent; i: number }>();
    const hostDown = new Map<number, { state: HostInterval['state']; start: number }>();
    const lastAckLost = new Map<string, boolean>();
    const lastReject = new Map<string, number>();
    let hasGroups = false;
    let hasFlush = false;

    const mark = (i: number, e: TraceEvent, lane: number, kind: MarkerKind, label: string) => {
      this.markers.push({ i, t: e.t, lane, kind, label });
    };
    const closeDown = (lane: number, t: number) => {
      const d = hostDown.get(lane);
      if (d) {
        this.hostIntervals.push({ lane, state: d.state, start: d.start, end: t });
        hostDown.delete(lane);
      }
    };

    for (let i = 0; i < n; i++) {
      const e = events[i]!;
      this.t[i] = e.t;
      let k = kindIds.get(e.kind);
      if (k === undefined) {
        k = this.kinds.length;
        kindIds.set(e.kind, k);
        this.kinds.push(e.kind);
        this.kindCategory.push(categoryOf(e.kind));
      }
      this.kindOf[i] = k;
      const lane = laneOf(typeof e.node === 'string' ? e.node : 'scenario');
      this.lane[i] = lane;

      switch (e.kind) {
        case 'scenario.start':
          t0 = e.t;
          mark(i, e, 0, 'scenario', 'scenario starts (cluster booted)');
          break;
        case 'scenario.quiet':
          tQuiet = e.t;
          mark(i, e, 0, 'scenario', 'quiet period: faults undone, producers stop');
          break;
        case 'scenario.end':
          mark(i, e, 0, 'scenario', 'end of the run');
          break;
        case 'operator.step': {
          const target = str(e, 'target');
          const step = str(e, 'step');
          // The operator's script: a mark on the node it acts on (the end of the roll on the scenario lane).
          if (step !== 'exited') mark(i, e, target ? laneOf(target) : 0, 'scenario', `operator: ${step} ${target}${str(e, 'detail') ? ` (${str(e, 'detail')})` : ''}`);
          break;
        }
        case 'caption':
          this.captions.push({ t: e.t, i, text: str(e, 'text') });
          mark(i, e, 0, 'caption', str(e, 'text'));
          break;
        case 'fault.start': {
          const fault = str(e, 'fault');
          openFaults.set(num(e, 'index'), { e, i });
          mark(i, e, 0, 'fault', `${fault} ${strs(e, 'hosts').join(', ')}${str(e, 'detail') ? ` ${str(e, 'detail')}` : ''}`);
          if (fault === 'heal') {
            for (const [idx, f] of openFaults) {
              const kind = str(f.e, 'fault');
              if (kind === 'partition' || kind === 'isolate' || kind === 'one-way' || kind === 'latency' || kind === 'lossy') {
                this.pushFault(f.e, f.i, e.t, laneOf);
                openFaults.delete(idx);
              }
            }
            openFaults.delete(num(e, 'index'));
          }
          break;
        }
        case 'fault.end': {
          const f = openFaults.get(num(e, 'index'));
          if (f) {
            this.pushFault(f.e, f.i, e.t, laneOf);
            openFaults.delete(num(e, 'index'));
          }
          mark(i, e, 0, 'fault', `end of ${str(e, 'fault')} ${strs(e, 'hosts').join(', ')}`);
          break;
        }
        case 'host.crash':
          closeDown(lane, e.t);
          hostDown.set(lane, { state: 'crashed', start: e.t });
          mark(i, e, lane, 'host', `${e.node} crashed`);
          break;
        case 'host.power-off':
          closeDown(lane, e.t);
          hostDown.set(lane, { state: 'powered off', start: e.t });
          mark(i, e, lane, 'host', `${e.node} lost power`);
          break;
        case 'host.stop':
          closeDown(lane, e.t);
          hostDown.set(lane, { state: 'stopping', start: e.t });
          mark(i, e, lane, 'host', `${e.node} is stopped (SIGTERM): a graceful shutdown`);
          break;
        case 'process.exit': {
          const pl = laneOf(str(e, 'process'));
          closeDown(pl, e.t);
          hostDown.set(pl, { state: 'stopped', start: e.t });
          mark(i, e, pl, 'host', `${str(e, 'process')} exited: ${str(e, 'reason')}`);
          break;
        }
        case 'host.pause':
          closeDown(lane, e.t);
          hostDown.set(lane, { state: 'paused', start: e.t });
          mark(i, e, lane, 'host', `${e.node} paused`);
          break;
        case 'host.resume':
          closeDown(lane, e.t);
          mark(i, e, lane, 'host', `${e.node} resumed`);
          break;
        case 'host.restart':
        case 'host.power-on':
          closeDown(lane, e.t);
          hostDown.set(lane, { state: 'restarting', start: e.t });
          mark(i, e, lane, 'host', `${e.node} ${e.kind === 'host.restart' ? 'restarts' : 'powers on'}`);
          break;
        case 'host.up':
          if (hostDown.has(lane)) {
            closeDown(lane, e.t);
            mark(i, e, lane, 'host', `${e.node} is up`);
          }
          break;
        case 'disk.power-loss': {
          const lostWrites = (Array.isArray(e['files']) ? (e['files'] as { lost?: unknown }[]) : []).reduce((a, f) => a + (typeof f.lost === 'number' ? f.lost : 0), 0);
          mark(i, e, lane, 'power-loss', `${e.node}'s disk lost ${lostWrites} unflushed write(s)`);
          break;
        }
        case 'controller.active':
          mark(i, e, lane, 'controller', `${e.node} becomes the active controller (epoch ${num(e, 'epoch')})`);
          break;
        case 'controller.election': {
          const leader = num(e, 'leader');
          const source = strOrNull(e, 'source');
          const where = `${str(e, 'topic')}-${num(e, 'partition')}`;
          notePartition(str(e, 'topic'), num(e, 'partition'), nums(e, 'isr'));
          const bl = leader >= 0 ? laneOf(`broker-${leader}`) : lane;
          mark(i, e, bl, 'election', leader >= 0 ? `broker ${leader} elected leader of ${where} (epoch ${num(e, 'leaderEpoch')}, from ${source ?? '?'})` : `${where} has no leader`);
          break;
        }
        case 'controller.partition':
          notePartition(str(e, 'topic'), num(e, 'partition'), nums(e, 'replicas'));
          break;
        case 'controller.broker': {
          const change = str(e, 'change');
          if (change === 'fenced' || change === 'unfenced') {
            mark(i, e, laneOf(`broker-${num(e, 'broker')}`), 'fenced', `broker ${num(e, 'broker')} ${change} (${str(e, 'reason')})`);
          }
          break;
        }
        case 'replica.append': {
          const topic = str(e, 'topic');
          const partition = num(e, 'partition');
          notePartition(topic, partition, num(e, 'broker'));
          if (e['role'] === 'leader' && Array.isArray(e['values'])) {
            const key = `${topic}-${partition}`;
            const epoch = num(e, 'epoch');
            const base = num(e, 'base');
            const vals = valuesOf(e, 'values');
            let byEpoch = this.leaderBatches.get(key);
            if (!byEpoch) this.leaderBatches.set(key, (byEpoch = new Map()));
            let list = byEpoch.get(epoch);
            if (!list) byEpoch.set(epoch, (list = []));
            // A leader re-appending at an offset it already used (after its own truncation) replaces the tail.
            while (list.length > 0 && list[list.length - 1]!.last >= base) list.pop();
            list.push({ base, last: num(e, 'last'), epoch, values: vals });
            const broker = num(e, 'broker');
            const vt = this.values;
            for (let j = 0; j < vals.length; j++) {
              const v = vals[j];
              if (v === null || v === undefined) continue;
              const id = vt.id(v);
              vt.topic[id] = topic;
              vt.partition[id] = partition;
              vt.offset[id] = base + j;
              vt.epoch[id] = epoch;
              vt.broker[id] = broker;
              vt.appendT[id] = e.t;
              vt.appendI[id] = i;
            }
          }
          break;
        }
        case 'replica.role':
        case 'replica.hw':
        case 'replica.truncate':
          notePartition(str(e, 'topic'), num(e, 'partition'), num(e, 'broker'));
          if (e.kind === 'replica.truncate') {
            mark(i, e, lane, 'truncate', `broker ${num(e, 'broker')} truncates ${str(e, 'topic')}-${num(e, 'partition')} from ${num(e, 'from')} to ${num(e, 'to')} (${str(e, 'reason')})`);
          }
          break;
        case 'replica.produce-rejected': {
          const key = `${e.node}`;
          const prev = lastReject.get(key);
          if (prev === undefined || e.t - prev > 1_000_000) {
            mark(i, e, lane, 'rejected', `${e.node} rejects produce to ${str(e, 'topic')}-${num(e, 'partition')}: ${str(e, 'error')} (ISR ${JSON.stringify(nums(e, 'isr'))}, min ${num(e, 'minIsr')})`);
          }
          lastReject.set(key, e.t);
          break;
        }
        case 'log.truncate': {
          const rf = e['removedFrom'];
          if (typeof rf === 'number' && str(e, 'method') === 'truncateFullyAndStartAt') {
            mark(i, e, lane, 'truncate', `${e.node} empties ${str(e, 'topic')}-${num(e, 'partition')} and restarts at ${num(e, 'toOffset')}`);
          }
          break;
        }
        case 'log.recovery':
          if (num(e, 'droppedRecords', 0) > 0) {
            mark(i, e, lane, 'recovery', `${e.node} recovers ${str(e, 'topic')}-${num(e, 'partition')}: ${num(e, 'droppedRecords')} record(s) did not survive on disk`);
          }
          break;
        case 'log.flush':
          hasFlush = true;
          break;
        case 'send.invoke': {
          const vt = this.values;
          const id = vt.id(str(e, 'value'));
          vt.key[id] = strOrNull(e, 'key');
          vt.producer[id] = e.node;
          vt.topic[id] = str(e, 'topic');
          vt.partition[id] = num(e, 'partition');
          vt.invokeT[id] = e.t;
          vt.invokeI[id] = i;
          break;
        }
        case 'send.ok': {
          const vals = strs(e, 'values');
          const offset = num(e, 'offset');
          let anyLost = false;
          const vt = this.values;
          const acks = str(e, 'acks');
          for (let j = 0; j < vals.length; j++) {
            const id = vt.id(vals[j]!);
            vt.ackT[id] = e.t;
            vt.ackI[id] = i;
            vt.acks[id] = acks;
            if (vt.offset[id]! < 0 && offset >= 0) vt.offset[id] = offset + j;
            if (this.lost.has(vals[j]!)) anyLost = true;
          }
          const before = lastAckLost.get(e.node) ?? false;
          if (anyLost && !before) {
            mark(i, e, lane, 'lost-ack', `${e.node} gets an acknowledgement for a write that will be lost (${vals.find((v) => this.lost.has(v)) ?? ''})`);
          }
          lastAckLost.set(e.node, anyLost);
          break;
        }
        case 'send.fail': {
          const vt = this.values;
          for (const v of strs(e, 'values')) {
            const id = vt.id(v);
            vt.failT[id] = e.t;
            vt.error[id] = str(e, 'error');
          }
          mark(i, e, lane, 'send-fail', `${e.node}: ${strs(e, 'values').length} record(s) failed with ${str(e, 'error')}`);
          break;
        }
        case 'net.send': {
          const to = str(e, 'to');
          const type = str(e, 'type');
          let ty = msgTypes.get(type);
          if (ty === undefined) msgTypes.set(type, (ty = msgTypes.size));
          msgSend.push(e.t);
          msgArrive.push(num(e, 'arrive', e.t));
          msgFrom.push(lane);
          msgTo.push(laneOf(to));
          msgType.push(ty);
          msgIndex.push(i);
          break;
        }
        case 'consumer.poll': {
          hasGroups = true;
          const vt = this.values;
          for (const rec of (Array.isArray(e['records']) ? e['records'] : []) as { values?: unknown }[]) {
            if (!Array.isArray(rec.values)) continue;
            for (const v of rec.values) {
              if (typeof v !== 'string') continue;
              const id = vt.id(v);
              if (vt.readT[id]! < 0) {
                vt.readT[id] = e.t;
                vt.readI[id] = i;
                vt.reader[id] = e.node;
              }
            }
          }
          break;
        }
        case 'group.rebalance':
          hasGroups = true;
          mark(i, e, lane, 'rebalance', `group ${str(e, 'group')} rebalances to generation ${num(e, 'generation')} (${str(e, 'reason')})`);
          break;
        case 'final.partition':
          notePartition(str(e, 'topic'), num(e, 'partition'), nums(e, 'replicas'));
          break;
        default:
          if (isIsrChange(e)) {
            const from = nums(e, 'from');
            const to = nums(e, 'to');
            notePartition(str(e, 'topic'), num(e, 'partition'), to);
            mark(i, e, lane, 'isr', `ISR of ${str(e, 'topic')}-${num(e, 'partition')} ${to.length < from.length ? 'shrinks' : 'expands'}: {${from.join(',')}} to {${to.join(',')}}`);
          } else if (e.kind.startsWith('consumer.') || e.kind.startsWith('group.')) {
            hasGroups = true;
          }
      }
    }

    this.tFirst = n > 0 ? this.t[0]! : 0;
    this.tLast = n > 0 ? this.t[n - 1]! : 1;
    this.t0 = t0 >= 0 ? t0 : this.tFirst;
    this.tQuiet = tQuiet;
    const endOpen = tQuiet >= 0 ? tQuiet : this.tLast;
    for (const f of openFaults.values()) this.pushFault(f.e, f.i, endOpen, laneOf);
    for (const [lane, d] of hostDown) this.hostIntervals.push({ lane, state: d.state, start: d.start, end: this.tLast });
    this.faults.sort((a, b) => a.start - b.start || a.index - b.index);
    this.hasGroups = hasGroups;
    this.hasFlush = hasFlush;

    // Lanes in a fixed order: faults, controllers, brokers, clients; the events' lane numbers follow.
    const order = this.lanes.map((_, i) => i).sort((a, b) => {
      const la = this.lanes[a]!;
      const lb = this.lanes[b]!;
      return GROUP_ORDER[la.group] - GROUP_ORDER[lb.group] || naturalCompare(la.id, lb.id);
    });
    const remap = new Int16Array(order.length);
    order.forEach((old, neu) => (remap[old] = neu));
    const sortedLanes = order.map((o) => this.lanes[o]!);
    this.lanes.length = 0;
    this.lanes.push(...sortedLanes);
    this.laneIndex.clear();
    this.lanes.forEach((l, i) => this.laneIndex.set(l.id, i));
    for (let i = 0; i < n; i++) this.lane[i] = remap[this.lane[i]!]!;
    const markers = this.markers.map((m) => ({ ...m, lane: remap[m.lane]! }));
    this.markers.length = 0;
    this.markers.push(...markers.sort((a, b) => a.i - b.i));
    const faults = this.faults.map((f) => ({ ...f, lanes: f.lanes.map((l) => remap[l]!) }));
    this.faults.length = 0;
    this.faults.push(...faults);
    const hi = this.hostIntervals.map((h) => ({ ...h, lane: remap[h.lane]! }));
    this.hostIntervals.length = 0;
    this.hostIntervals.push(...hi.sort((a, b) => a.start - b.start));
    for (let j = 0; j < msgFrom.length; j++) {
      msgFrom[j] = remap[msgFrom[j]!]!;
      msgTo[j] = remap[msgTo[j]!]!;
    }

    // Per-lane event lists (counting first, so each is one typed array).
    const counts = new Int32Array(this.lanes.length);
    for (let i = 0; i < n; i++) counts[this.lane[i]!]!++;
    for (let l = 0; l < this.lanes.length; l++) this.laneEvents.push(new Int32Array(counts[l]!));
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const l = this.lane[i]!;
      this.laneEvents[l]![counts[l]!++] = i;
    }

    // Notable stops: the markers, one per (time, lane).
    const stops: number[] = [];
    let prev: Marker | undefined;
    for (const m of this.markers) {
      if (prev && prev.t === m.t && prev.lane === m.lane && prev.kind === m.kind) continue;
      stops.push(m.i);
      prev = m;
    }
    this.notable = Int32Array.from(new Set(stops));

    this.messages =
      msgSend.length === 0
        ? null
        : {
            n: msgSend.length,
            send: Float64Array.from(msgSend),
            arrive: Float64Array.from(msgArrive),
            from: Int16Array.from(msgFrom),
            to: Int16Array.from(msgTo),
            type: Uint16Array.from(msgType),
            types: [...msgTypes.keys()],
            index: Int32Array.from(msgIndex),
          };

    for (const [key, p] of [...partitions].sort(([a], [b]) => naturalCompare(a, b))) {
      this.partitions.push({ key, topic: p.topic, partition: p.partition, replicas: [...p.replicas].sort((a, b) => a - b) });
    }
    const brokers = new Set<number>();
    for (const l of this.lanes) if (l.broker >= 0) brokers.add(l.broker);
    this.brokers.push(...[...brokers].sort((a, b) => a - b));

    for (const v of this.lost) {
      const info = this.values.get(v);
      if (!info || info.offset < 0) continue;
      const key = `${info.topic}-${info.partition}`;
      let list = this.lostByPartition.get(key);
      if (!list) this.lostByPartition.set(key, (list = []));
      list.push({ offset: info.offset, value: v });
    }
    for (const list of this.lostByPartition.values()) list.sort((a, b) => a.offset - b.offset);
  }

  private pushFault(e: TraceEvent, i: number, end: number, laneOf: (node: string) => number): void {
    const hosts = strs(e, 'hosts');
    this.faults.push({ index: num(e, 'index'), fault: str(e, 'fault'), hosts, lanes: hosts.map(laneOf), detail: str(e, 'detail'), start: e.t, end, startIndex: i });
  }


  /** The value at `offset` of a batch written in leader epoch `epoch` (any replica holds the leader's bytes). */
  valueAt(partitionKey: string, epoch: number, offset: number): string | null | undefined {
    const list = this.leaderBatches.get(partitionKey)?.get(epoch);
    if (!list) return undefined;
    const j = findBatch(list, offset);
    if (j < 0) return undefined;
    const b = list[j]!;
    return b.values[offset - b.base];
  }

  /** The index of the last event at or before time t (-1 before the first). */
  indexAtTime(t: number): number {
    let lo = 0;
    let hi = this.n - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.t[mid]! <= t) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }

  /** The first index with time >= t. */
  firstIndexFrom(t: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.t[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The next (dir 1) or previous (dir -1) notable event from index i. */
  nextNotable(i: number, dir: 1 | -1): number {
    const a = this.notable;
    if (dir > 0) {
      let lo = 0;
      let hi = a.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (a[mid]! <= i) lo = mid + 1;
        else hi = mid;
      }
      return lo < a.length ? a[lo]! : -1;
    }
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid]! < i) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? a[lo - 1]! : -1;
  }

  kind(i: number): string {
    return this.kinds[this.kindOf[i]!]!;
  }

  isLost(value: string | null | undefined): boolean {
    return typeof value === 'string' && this.lost.has(value);
  }
}
