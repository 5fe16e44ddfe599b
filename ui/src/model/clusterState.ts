import { dispatcher, type TraceEvent } from '../../../sim/core/trace';
import type { StateContext } from './fold/context';
import { electionsState } from './fold/elections';
import { faultsState } from './fold/faults';
import { groupsState } from './fold/groups';
import { hostsState } from './fold/hosts';
import { newReplica, replicasState } from './fold/replicas';
import { scenarioState } from './fold/scenario';
import { valuesState } from './fold/values';
import type { BatchNode, Removal } from './replicaLog';
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
  /** The leader's last stable offset while an open transaction holds it below the HW (replica.lso); null: it is the HW. */
  lso: number | null;
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

/** A member of a consumer-protocol (KIP-848) group as its coordinator last traced it. */
export interface ReconcilingMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly memberEpoch: number;
  /** STABLE, UNREVOKED_PARTITIONS or UNRELEASED_PARTITIONS. */
  readonly state: string;
  /** What it may own now. */
  readonly assigned: readonly string[];
  /** What it must give up before it gets more. */
  readonly revoking: readonly string[];
  /** Its share of the target assignment. */
  readonly target: readonly string[];
}

/** A consumer-protocol group's epochs and its members' reconciliation (group.consumer.* events). */
export interface ConsumerGroupState {
  readonly group: string;
  groupEpoch: number;
  /** The epoch of the last target assignment, and the assignor that computed it. */
  assignmentEpoch: number;
  assignor: string;
  lastEpochReason: string;
  /** memberId -> member; entries are replaced, never edited, so a shallow copy of the map is a snapshot. */
  readonly members: Map<string, ReconcilingMember>;
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
  /** Consumer-protocol (KIP-848) groups by group id. */
  readonly consumerGroups: Map<string, ConsumerGroupState>;
  /** group \u0000 topic-partition -> committed offset */
  readonly committed: Map<string, number>;
  /** The caption last shown, and its event's index. */
  caption: { readonly t: number; readonly text: string; readonly i: number } | null;
  acked: number;
  failed: number;
}

export function initialState(model: TraceModel): ClusterState {
  const partitions = new Map<string, PartitionState>();
  for (const p of model.partitions) {
    const replicas = new Map<number, ReplicaState>();
    for (const b of p.replicas) replicas.set(b, newReplica(b));
    partitions.set(p.key, { key: p.key, topic: p.topic, partition: p.partition, leader: -1, leaderEpoch: -1, isr: [], elr: [], hw: 0, lso: null, lastElection: null, replicas });
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
    consumerGroups: new Map(),
    committed: new Map(),
    caption: null,
    acked: 0,
    failed: 0,
  };
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
  const consumerGroups = new Map<string, ConsumerGroupState>();
  for (const [k, g] of s.consumerGroups) consumerGroups.set(k, { ...g, members: new Map(g.members) });
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
    consumerGroups,
    committed: new Map(s.committed),
  };
}

/** The state folds of each subject (fold/), made once per model: they read the context set before each event. */
const dispatchers = new WeakMap<TraceModel, { c: StateContext; dispatch: (e: TraceEvent) => void }>();

function stateFold(model: TraceModel): { c: StateContext; dispatch: (e: TraceEvent) => void } {
  let d = dispatchers.get(model);
  if (!d) {
    const c: StateContext = { model, s: initialState(model), i: -1, lane: 0 };
    const dispatch = dispatcher(hostsState(c), faultsState(c), scenarioState(c), electionsState(c), replicasState(c), valuesState(c), groupsState(c));
    dispatchers.set(model, (d = { c, dispatch }));
  }
  return d;
}

/** Folds one event into the state (mutates it: callers clone keyframes first). */
export function applyEvent(s: ClusterState, model: TraceModel, e: TraceEvent, i: number): void {
  s.i = i;
  const { c, dispatch } = stateFold(model);
  c.s = s;
  c.i = i;
  c.lane = model.lane[i]!;
  dispatch(e);
}

export { flushedAt } from './fold/replicas';
