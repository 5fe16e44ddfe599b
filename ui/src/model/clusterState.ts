import type { TraceEvent } from '../../../sim/core/trace';
import { appendBatch, truncateChain, type BatchNode, type Removal } from './replicaLog';
import { brokerOfNode, isIsrChange, num, nums, str, strs } from './fields';
import type { TraceModel } from './traceModel';

export type HostStatus = 'not started' | 'up' | 'crashed' | 'powered off' | 'restarting' | 'paused' | 'stopping' | 'stopped';

export interface ActiveFault {
  readonly index: number;
  readonly fault: string;
  readonly hosts: readonly string[];
  readonly detail: string;
  readonly start: number;
}

export interface PendingFlush {
  readonly upTo: number;
  readonly completesAt: number;
}

/** One replica of one partition, as its broker holds it. */
export interface ReplicaState {
  readonly broker: number;
  role: 'leader' | 'follower' | 'none';
  leaderEpoch: number;
  leo: number;
  logStart: number;
  /** The last high watermark the trace showed for this replica. */
  hw: number;
  tip: BatchNode | null;
  /** fsyncs completed up to here (exclusive). */
  flushedUpTo: number;
  /** fsyncs started, not yet complete (replaced, never mutated). */
  pending: readonly PendingFlush[];
  removed: Removal | null;
  /** When the replica last appended. */
  lastAppendT: number;
}

export interface PartitionState {
  readonly key: string;
  readonly topic: string;
  readonly partition: number;
  leader: number;
  leaderEpoch: number;
  isr: readonly number[];
  elr: readonly number[];
  /** The current leader's high watermark. */
  hw: number;
  lastElection: { readonly t: number; readonly source: string; readonly leader: number; readonly reason: string } | null;
  readonly replicas: Map<number, ReplicaState>;
}

export interface MemberState {
  readonly consumer: string;
  group: string | null;
  memberId: string;
  generation: number;
  owned: readonly string[];
}

export interface GroupState {
  readonly group: string;
  state: string;
  generation: number;
  members: readonly string[];
  leader: string;
  lastRebalance: { readonly t: number; readonly reason: string } | null;
}

/** The whole cluster at one moment, folded from the trace up to event `i`. */
export interface ClusterState {
  i: number;
  readonly hosts: HostStatus[];
  readonly hostSince: number[];
  faults: readonly ActiveFault[];
  activeController: string | null;
  controllerEpoch: number;
  /** Raft state of each controller (Leader, Follower, Candidate, ...). */
  readonly raft: Map<string, string>;
  /** Broker registration as the controller sees it: fenced or not. */
  readonly fenced: Map<number, boolean>;
  readonly brokerState: Map<number, string>;
  readonly partitions: Map<string, PartitionState>;
  readonly groups: Map<string, GroupState>;
  readonly members: Map<string, MemberState>;
  /** group \u0000 topic-partition -> committed offset */
  readonly committed: Map<string, number>;
  caption: { readonly t: number; readonly text: string } | null;
  acked: number;
  failed: number;
}

export function initialState(model: TraceModel): ClusterState {
  const partitions = new Map<string, PartitionState>();
  for (const p of model.partitions) {
    const replicas = new Map<number, ReplicaState>();
    for (const b of p.replicas) replicas.set(b, newReplica(b));
    partitions.set(p.key, { key: p.key, topic: p.topic, partition: p.partition, leader: -1, leaderEpoch: -1, isr: [], elr: [], hw: 0, lastElection: null, replicas });
  }
  return {
    i: -1,
    hosts: model.lanes.map(() => 'not started' as HostStatus),
    hostSince: model.lanes.map(() => 0),
    faults: [],
    activeController: null,
    controllerEpoch: -1,
    raft: new Map(),
    fenced: new Map(),
    brokerState: new Map(),
    partitions,
    groups: new Map(),
    members: new Map(),
    committed: new Map(),
    caption: null,
    acked: 0,
    failed: 0,
  };
}

function newReplica(broker: number): ReplicaState {
  return { broker, role: 'none', leaderEpoch: -1, leo: 0, logStart: 0, hw: 0, tip: null, flushedUpTo: 0, pending: [], removed: null, lastAppendT: -1 };
}

/** A copy that shares only immutable parts (batch chains, removal lists, arrays that are replaced). */
export function cloneState(s: ClusterState): ClusterState {
  const partitions = new Map<string, PartitionState>();
  for (const [k, p] of s.partitions) {
    const replicas = new Map<number, ReplicaState>();
    for (const [b, r] of p.replicas) replicas.set(b, { ...r });
    partitions.set(k, { ...p, replicas });
  }
  const groups = new Map<string, GroupState>();
  for (const [k, g] of s.groups) groups.set(k, { ...g });
  const members = new Map<string, MemberState>();
  for (const [k, m] of s.members) members.set(k, { ...m });
  return {
    ...s,
    hosts: s.hosts.slice(),
    hostSince: s.hostSince.slice(),
    raft: new Map(s.raft),
    fenced: new Map(s.fenced),
    brokerState: new Map(s.brokerState),
    partitions,
    groups,
    members,
    committed: new Map(s.committed),
  };
}

const NETWORK_FAULTS = new Set(['partition', 'isolate', 'one-way', 'latency', 'lossy']);

function partitionOf(s: ClusterState, e: TraceEvent): PartitionState | undefined {
  return s.partitions.get(`${str(e, 'topic')}-${num(e, 'partition')}`);
}

function replicaOf(s: ClusterState, e: TraceEvent, broker: number): ReplicaState | undefined {
  const p = partitionOf(s, e);
  if (!p || broker < 0) return undefined;
  let r = p.replicas.get(broker);
  if (!r) p.replicas.set(broker, (r = newReplica(broker)));
  return r;
}

function truncate(r: ReplicaState, to: number, t: number, i: number, reason: string): void {
  if (to >= r.leo && (r.tip === null || r.tip.last < to)) {
    r.leo = Math.max(r.leo, to);
    return;
  }
  const from = r.leo;
  const { tip, removed } = truncateChain(r.tip, to);
  r.tip = tip;
  r.leo = to;
  r.flushedUpTo = Math.min(r.flushedUpTo, to);
  if (r.pending.some((f) => f.upTo > to)) r.pending = r.pending.map((f) => (f.upTo > to ? { ...f, upTo: to } : f));
  if (removed.length > 0) r.removed = { t, i, from: to, to: from, reason, batches: removed, prev: r.removed };
}

/** Applies completed fsyncs (those done by time t) to the durable offset. */
function settleFlushes(r: ReplicaState, t: number): void {
  if (r.pending.length === 0) return;
  let done = false;
  for (const f of r.pending) {
    if (f.completesAt <= t) {
      done = true;
      if (f.upTo > r.flushedUpTo) r.flushedUpTo = f.upTo;
    }
  }
  if (done) r.pending = r.pending.filter((f) => f.completesAt > t);
}

/** Folds one event into the state (mutates it: callers clone keyframes first). */
export function applyEvent(s: ClusterState, model: TraceModel, e: TraceEvent, i: number): void {
  s.i = i;
  const lane = model.lane[i]!;
  switch (e.kind) {
    case 'host.up':
      s.hosts[lane] = 'up';
      s.hostSince[lane] = e.t;
      break;
    case 'host.crash':
      s.hosts[lane] = 'crashed';
      s.hostSince[lane] = e.t;
      break;
    case 'host.stop':
      s.hosts[lane] = 'stopping';
      s.hostSince[lane] = e.t;
      break;
    case 'host.power-off':
      s.hosts[lane] = 'powered off';
      s.hostSince[lane] = e.t;
      break;
    case 'host.restart':
    case 'host.power-on':
      s.hosts[lane] = 'restarting';
      s.hostSince[lane] = e.t;
      break;
    case 'host.pause':
      s.hosts[lane] = 'paused';
      s.hostSince[lane] = e.t;
      break;
    case 'host.resume':
      if (s.hosts[lane] === 'paused') {
        s.hosts[lane] = 'up';
        s.hostSince[lane] = e.t;
      }
      break;
    case 'process.exit': {
      const l = model.laneIndex.get(str(e, 'process'));
      if (l !== undefined) {
        s.hosts[l] = 'stopped';
        s.hostSince[l] = e.t;
      }
      break;
    }
    case 'disk.power-loss': {
      const b = brokerOfNode(e.node);
      if (b < 0) break;
      for (const p of s.partitions.values()) {
        const r = p.replicas.get(b);
        if (!r) continue;
        settleFlushes(r, e.t);
        r.pending = [];
      }
      break;
    }
    case 'fault.start': {
      const fault = str(e, 'fault');
      if (fault === 'heal') s.faults = s.faults.filter((f) => !NETWORK_FAULTS.has(f.fault));
      else s.faults = [...s.faults, { index: num(e, 'index'), fault, hosts: strs(e, 'hosts'), detail: str(e, 'detail'), start: e.t }];
      break;
    }
    case 'fault.end':
      s.faults = s.faults.filter((f) => f.index !== num(e, 'index'));
      break;
    case 'scenario.quiet':
      s.faults = [];
      break;
    case 'raft.state-change':
      s.raft.set(e.node, str(e, 'state'));
      break;
    case 'controller.active':
      s.activeController = e.node;
      s.controllerEpoch = num(e, 'epoch');
      break;
    case 'controller.inactive':
      if (s.activeController === e.node) s.activeController = null;
      break;
    case 'controller.broker': {
      const change = str(e, 'change');
      const b = num(e, 'broker');
      if (change === 'fenced') s.fenced.set(b, true);
      else if (change === 'unfenced' || change === 'registered') s.fenced.set(b, change === 'registered' ? (s.fenced.get(b) ?? true) : false);
      break;
    }
    case 'broker.state':
      s.brokerState.set(brokerOfNode(e.node), str(e, 'state'));
      break;
    case 'controller.election': {
      const p = partitionOf(s, e);
      if (!p) break;
      p.leader = num(e, 'leader');
      p.leaderEpoch = num(e, 'leaderEpoch');
      p.isr = nums(e, 'isr');
      p.elr = nums(e, 'elr');
      p.lastElection = { t: e.t, source: str(e, 'source', 'none'), leader: p.leader, reason: str(e, 'reason') };
      break;
    }
    case 'controller.partition': {
      const p = partitionOf(s, e);
      if (!p) break;
      p.leader = num(e, 'leader');
      p.leaderEpoch = num(e, 'leaderEpoch');
      p.isr = nums(e, 'isr');
      p.elr = nums(e, 'elr');
      break;
    }
    case 'replica.role': {
      const b = num(e, 'broker');
      const r = replicaOf(s, e, b);
      const p = partitionOf(s, e);
      if (!r || !p) break;
      r.role = str(e, 'role') as ReplicaState['role'];
      r.leaderEpoch = num(e, 'leaderEpoch');
      r.hw = num(e, 'hw', r.hw);
      if (r.role === 'leader' && r.leaderEpoch >= p.leaderEpoch) {
        p.leader = b;
        p.leaderEpoch = r.leaderEpoch;
        p.isr = nums(e, 'isr');
        p.hw = r.hw;
      }
      break;
    }
    case 'replica.append': {
      const r = replicaOf(s, e, num(e, 'broker'));
      if (!r) break;
      const base = num(e, 'base');
      if (base < r.leo) truncate(r, base, e.t, i, 'overwritten');
      if (r.tip === null && base > r.leo) r.logStart = Math.max(r.logStart, base);
      r.tip = appendBatch(r.tip, base, num(e, 'last'), num(e, 'epoch'), e.t);
      r.leo = num(e, 'last') + 1;
      r.lastAppendT = e.t;
      settleFlushes(r, e.t);
      break;
    }
    case 'replica.hw': {
      const b = num(e, 'broker');
      const r = replicaOf(s, e, b);
      const p = partitionOf(s, e);
      if (!r || !p) break;
      r.hw = num(e, 'hw');
      if (p.leader === b || p.leader < 0) p.hw = r.hw;
      break;
    }
    case 'replica.truncate': {
      const r = replicaOf(s, e, num(e, 'broker'));
      if (!r) break;
      const reason = `${str(e, 'reason')}, following broker ${num(e, 'leader')} in epoch ${num(e, 'leaderEpoch')}`;
      const to = num(e, 'to');
      // The log's own log.truncate for the same cut comes first; keep one removal with the better reason.
      if (r.removed && r.removed.t === e.t && r.removed.from === to) r.removed = { ...r.removed, reason };
      else truncate(r, to, e.t, i, reason);
      break;
    }
    case 'log.truncate': {
      const r = replicaOf(s, e, brokerOfNode(e.node));
      if (!r) break;
      if (str(e, 'method') === 'truncateFullyAndStartAt') {
        truncate(r, r.logStart, e.t, i, 'emptied');
        r.tip = null;
        r.logStart = num(e, 'toOffset');
        r.leo = r.logStart;
        r.flushedUpTo = r.logStart;
      } else truncate(r, num(e, 'toOffset'), e.t, i, 'truncated');
      r.hw = num(e, 'highWatermark', r.hw);
      break;
    }
    case 'log.recovery': {
      const r = replicaOf(s, e, brokerOfNode(e.node));
      if (!r) break;
      const end = num(e, 'logEndOffset');
      settleFlushes(r, e.t);
      r.pending = [];
      if (end < r.leo) truncate(r, end, e.t, i, 'lost with the page cache (recovery)');
      r.logStart = num(e, 'logStartOffset', r.logStart);
      r.hw = num(e, 'highWatermark', r.hw);
      // What recovery read back is on disk by definition.
      r.flushedUpTo = Math.max(r.flushedUpTo, Math.min(end, num(e, 'recoveryPoint', 0)));
      break;
    }
    case 'log.retention': {
      const r = replicaOf(s, e, brokerOfNode(e.node));
      if (r) r.logStart = num(e, 'logStartOffset', r.logStart);
      break;
    }
    case 'log.flush': {
      const r = replicaOf(s, e, brokerOfNode(e.node));
      if (!r) break;
      settleFlushes(r, e.t);
      r.pending = [...r.pending, { upTo: num(e, 'upTo'), completesAt: num(e, 'completesAt', e.t) }];
      break;
    }
    case 'send.ok':
      s.acked += strs(e, 'values').length;
      break;
    case 'send.fail':
      s.failed += strs(e, 'values').length;
      break;
    case 'caption':
      s.caption = { t: e.t, text: str(e, 'text') };
      break;
    case 'group.state': {
      const g = groupOf(s, str(e, 'group'));
      g.state = str(e, 'to');
      g.generation = num(e, 'generation', g.generation);
      break;
    }
    case 'group.rebalance': {
      const g = groupOf(s, str(e, 'group'));
      g.generation = num(e, 'generation');
      g.members = strs(e, 'members');
      g.leader = str(e, 'leader');
      g.lastRebalance = { t: e.t, reason: str(e, 'reason') };
      break;
    }
    case 'consumer.assignment': {
      const m = memberOf(s, e.node);
      m.group = typeof e['group'] === 'string' ? (e['group'] as string) : null;
      m.memberId = str(e, 'memberId');
      m.generation = num(e, 'generation');
      m.owned = strs(e, 'owned');
      if (m.group) groupOf(s, m.group);
      break;
    }
    case 'consumer.join': {
      const m = memberOf(s, e.node);
      m.group = str(e, 'group');
      m.memberId = str(e, 'memberId');
      m.generation = num(e, 'generation');
      groupOf(s, m.group);
      break;
    }
    case 'consumer.close':
    case 'consumer.leave': {
      const m = memberOf(s, e.node);
      m.owned = [];
      break;
    }
    case 'consumer.commit': {
      if (e['ok'] !== true) break;
      const group = str(e, 'group');
      for (const o of (Array.isArray(e['offsets']) ? e['offsets'] : []) as { topic?: unknown; partition?: unknown; offset?: unknown }[]) {
        if (typeof o.offset === 'number') s.committed.set(`${group}\u0000${String(o.topic)}-${String(o.partition)}`, o.offset);
      }
      break;
    }
    case 'group.offset.commit': {
      if (str(e, 'error') !== 'NONE') break;
      const group = str(e, 'group');
      for (const o of (Array.isArray(e['offsets']) ? e['offsets'] : []) as { topic?: unknown; partition?: unknown; offset?: unknown }[]) {
        if (typeof o.offset === 'number') s.committed.set(`${group}\u0000${String(o.topic)}-${String(o.partition)}`, o.offset);
      }
      break;
    }
    default:
      if (isIsrChange(e)) {
        const p = partitionOf(s, e);
        if (p) p.isr = nums(e, 'to');
      }
  }
  // Host crashes take their consumers' ownership with them (from the member's point of view).
  if (e.kind === 'host.crash' || e.kind === 'host.power-off') {
    const m = s.members.get(e.node);
    if (m) m.owned = [];
  }
}

function groupOf(s: ClusterState, group: string): GroupState {
  let g = s.groups.get(group);
  if (!g) s.groups.set(group, (g = { group, state: '', generation: -1, members: [], leader: '', lastRebalance: null }));
  return g;
}

function memberOf(s: ClusterState, consumer: string): MemberState {
  let m = s.members.get(consumer);
  if (!m) s.members.set(consumer, (m = { consumer, group: null, memberId: '', generation: -1, owned: [] }));
  return m;
}

/** The durable offset of a replica at time `now`, counting fsyncs that completed by then. */
export function flushedAt(r: ReplicaState, now: number): number {
  let f = r.flushedUpTo;
  for (const p of r.pending) if (p.completesAt <= now && p.upTo > f) f = p.upTo;
  return f;
}
