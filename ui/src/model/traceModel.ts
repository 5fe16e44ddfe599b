import type { CheckReport } from '../../../sim/check/checkers';
import type { TraceEvent, TraceHeader } from '../../../sim/core/trace';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { findBatch } from './replicaLog';
import { ValueTable } from './valueTable';
export type { ValueInfo } from './valueTable';
import { dispatcher } from '../../../sim/core/trace';
import type { IndexContext } from './fold/context';
import { electionsIndex } from './fold/elections';
import { faultsIndex } from './fold/faults';
import { groupsIndex } from './fold/groups';
import { hostsIndex } from './fold/hosts';
import { messagesIndex } from './fold/messages';
import { naturalCompare, replicasIndex } from './fold/replicas';
import { scenarioIndex } from './fold/scenario';
import { shareIndex } from './fold/share';
import { valuesIndex } from './fold/values';
import { SCENARIO_LANE_LABEL } from './labels';
import { HostNames } from './hostNames';
import { brokerOfNode } from './nodes';

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
  | 'lock-expired'
  | 'archived'
  | 'dead-letter'
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
  ['share.', 'share'],
  ['scenario.', 'scenario'],
  ['final.', 'scenario'],
  ['caption', 'caption'],
];

export function categoryOf(kind: string): string {
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
  share: 4,
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
  brokerNames: readonly string[] | null;
}

/** Where each host sits (zone, rack), from the scenario in the trace header, as sim/kafka/cluster.ts places them. */
function placement(header: TraceHeader): Placement {
  const spec = (header.config as { spec?: ScenarioSpec } | null)?.spec ?? null;
  let zones: readonly string[] = [];
  let racks: readonly (string | null)[] = [];
  let writebackUs: number | null = 30_000_000;
  let brokerNames: readonly string[] | null = null;
  const clientZones = new Map<string, string>();
  if (spec) {
    try {
      const s = validateScenario(spec);
      zones = s.cluster.zones;
      racks = s.cluster.racks;
      brokerNames = s.cluster.brokerNames;
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
    brokerNames,
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
/** A caption of a guided scenario as the UI shows it. */
export interface Caption {
  readonly t: number;
  readonly i: number;
  readonly text: string;
  /** The index of the event it tells of (the anchor), or -1. */
  readonly about: number;
}

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
  /** The captions of a guided scenario: at index i, telling of the event at `about` (its index; -1 for a caption at a fixed time). */
  readonly captions: Caption[] = [];
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
  /** What the views call each host (the scenario's broker names, or "broker N"). */
  readonly names: HostNames;
  readonly hasGroups: boolean;
  /** Set by the replicas' fold when the trace has fsyncs. */
  hasFlush = false;

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
    this.names = new HostNames(place.brokerNames);
    this.lost = new Set(checks['lost-write']?.values ?? []);

    const laneOf = (node: string): number => {
      const id = SCENARIO_NODES.has(node) ? 'scenario' : node;
      let l = this.laneIndex.get(id);
      if (l === undefined) {
        l = this.lanes.length;
        this.laneIndex.set(id, l);
        const group = laneGroupOf(id);
        this.lanes.push({ id, label: id === 'scenario' ? SCENARIO_LANE_LABEL : this.names.lane(id), group, zone: group === 'scenario' ? '' : place.zoneOf(id), rack: place.rackOf(id), broker: brokerOfNode(id) });
      }
      return l;
    };
    laneOf('scenario');

    // One pass: each subject's fold (fold/) takes the events of its kinds.
    const c: IndexContext = { model: this, i: 0, lane: 0, laneOf, mark: (e, lane, kind, label) => this.markers.push({ i: c.i, t: e.t, lane, kind, label: this.names.text(label) }) };
    const times = { t0: -1, tQuiet: -1 };
    let messages: Messages | null = null;
    const folds = [
      scenarioIndex(c, times),
      faultsIndex(c, () => (times.tQuiet >= 0 ? times.tQuiet : this.tLast)),
      hostsIndex(c),
      electionsIndex(c),
      replicasIndex(c),
      valuesIndex(c),
      messagesIndex(c, (m) => (messages = m)),
      groupsIndex(c),
      shareIndex(c),
    ];
    const dispatch = dispatcher(...folds.map((f) => f.handlers));
    const kindIds = new Map<string, number>();
    let hasGroups = false;
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
      const lane = laneOf(e.node);
      this.lane[i] = lane;
      const category = this.kindCategory[k];
      if (category === 'consumer' || category === 'group') hasGroups = true;
      c.i = i;
      c.lane = lane;
      dispatch(e);
    }

    this.tFirst = n > 0 ? this.t[0]! : 0;
    this.tLast = n > 0 ? this.t[n - 1]! : 1;
    this.t0 = times.t0 >= 0 ? times.t0 : this.tFirst;
    this.tQuiet = times.tQuiet;
    this.hasGroups = hasGroups;
    for (const f of folds) f.finish?.();
    this.messages = messages;
    this.renumberLanes();

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

    const brokers = new Set<number>();
    for (const l of this.lanes) if (l.broker >= 0) brokers.add(l.broker);
    this.brokers.push(...[...brokers].sort((a, b) => a - b));
  }

  /** Lanes in a fixed order (faults, controllers, brokers, clients); everything that names a lane follows. */
  private renumberLanes(): void {
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
    for (let i = 0; i < this.n; i++) this.lane[i] = remap[this.lane[i]!]!;
    const markers = this.markers.map((m) => ({ ...m, lane: remap[m.lane]! }));
    this.markers.length = 0;
    this.markers.push(...markers.sort((a, b) => a.i - b.i));
    const faults = this.faults.map((f) => ({ ...f, lanes: f.lanes.map((l) => remap[l]!) }));
    this.faults.length = 0;
    this.faults.push(...faults);
    const hi = this.hostIntervals.map((h) => ({ ...h, lane: remap[h.lane]! }));
    this.hostIntervals.length = 0;
    this.hostIntervals.push(...hi.sort((a, b) => a.start - b.start));
    const m = this.messages;
    if (m) {
      const from = m.from as Int16Array;
      const to = m.to as Int16Array;
      for (let j = 0; j < m.n; j++) {
        from[j] = remap[from[j]!]!;
        to[j] = remap[to[j]!]!;
      }
    }
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
