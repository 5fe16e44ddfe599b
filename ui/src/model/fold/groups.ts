import type { Handlers, TraceEventOf } from '../../../../sim/core/trace';
import type { ConsumerGroupState, GroupState, MemberState, ReconcilingMember } from '../clusterState';
import { MARK } from '../labels';
import type { IndexContext, IndexFold, StateContext } from './context';
import { tpKey } from '../../../../sim/kafka/topicPartition';

/** Rebalances and an application's dead-letter writes as notable moments. */
export function groupsIndex(c: IndexContext): IndexFold {
  return {
    handlers: {
      'group.rebalance': (e) => c.mark(e, c.lane, 'rebalance', MARK.rebalance(e)),
      // A KIP-848 group's epoch bump with members in it: the server assignor computes a new target.
      'group.consumer.epoch': (e) => {
        if (e.members > 0) c.mark(e, c.lane, 'rebalance', MARK.consumerEpoch(e));
      },
      // The application gave up on a record and wrote it to its dead-letter topic (the same glyph as a share group's DLQ write).
      'consumer.dead-letter': (e) => c.mark(e, c.lane, 'dead-letter', MARK.deadLetter(e)),
    },
  };
}

/** The consumer groups at a moment: each group's state and generation, each member's view, committed offsets. */
export function groupsState(c: StateContext): Handlers {
  const group = (name: string): GroupState => {
    let g = c.s.groups.get(name);
    if (!g) c.s.groups.set(name, (g = { group: name, state: '', generation: -1, members: [], leader: '', lastRebalance: null }));
    return g;
  };
  const member = (consumer: string): MemberState => {
    let m = c.s.members.get(consumer);
    if (!m) c.s.members.set(consumer, (m = { consumer, group: null, memberId: '', generation: -1, owned: [] }));
    return m;
  };
  const consumerGroup = (name: string): ConsumerGroupState => {
    let g = c.s.consumerGroups.get(name);
    if (!g) c.s.consumerGroups.set(name, (g = { group: name, groupEpoch: 0, assignmentEpoch: 0, assignor: '', lastEpochReason: '', members: new Map() }));
    return g;
  };
  const removed = (e: { group: string; memberId: string }) => {
    c.s.consumerGroups.get(e.group)?.members.delete(e.memberId);
  };
  const commit = (g: string, offsets: readonly { topic: string; partition: number; offset: number }[]) => {
    for (const o of offsets) c.s.committed.set(`${g}\u0000${o.topic}-${o.partition}`, o.offset);
  };
  // A dead host's consumer owns nothing any more, as far as it knows.
  const died = (e: { node: string }) => {
    const m = c.s.members.get(e.node);
    if (m) m.owned = [];
  };
  const left = (e: { node: string }) => {
    member(e.node).owned = [];
  };
  return {
    'group.state': (e) => {
      const g = group(e.group);
      g.state = e.to;
      g.generation = e.generation;
    },
    'group.rebalance': (e) => {
      const g = group(e.group);
      g.generation = e.generation;
      g.members = e.members;
      g.leader = e.leader;
      g.lastRebalance = { t: e.t, reason: e.reason };
    },
    'consumer.assignment': (e) => {
      const m = member(e.node);
      m.group = e.group;
      m.memberId = e.memberId;
      m.generation = e.generation;
      m.owned = e.owned;
      if (m.group) group(m.group);
    },
    'consumer.join': (e) => {
      const m = member(e.node);
      m.group = e.group;
      m.memberId = e.memberId;
      m.generation = e.generation;
      group(e.group);
    },
    'consumer.close': left,
    'consumer.leave': left,
    'group.consumer.epoch': (e) => {
      const g = consumerGroup(e.group);
      g.groupEpoch = e.epoch;
      g.lastEpochReason = e.reason;
    },
    'group.consumer.target': (e) => {
      const g = consumerGroup(e.group);
      g.assignmentEpoch = e.epoch;
      g.assignor = e.assignor;
    },
    'group.consumer.member': (e) => {
      const m: ReconcilingMember = { memberId: e.memberId, instanceId: e.instanceId, memberEpoch: e.memberEpoch, state: e.state, assigned: e.assigned, revoking: e.revoking, target: e.target };
      consumerGroup(e.group).members.set(e.memberId, m);
    },
    // A static member's successor takes its place (only consumer-protocol groups have entries here).
    'group.member.join': (e) => {
      if (e.replaced !== null) removed({ group: e.group, memberId: e.replaced });
    },
    'group.member.leave': removed,
    'group.member.expire': removed,
    // A group that turned classic leaves the consumer-protocol table.
    'group.convert': (e) => {
      if (e.to === 'classic') c.s.consumerGroups.delete(e.group);
    },
    'consumer.commit': (e) => {
      if (e.ok) commit(e.group, e.offsets);
    },
    'group.offset.commit': (e) => {
      if (e.error === 'NONE') commit(e.group, e.offsets);
    },
    'host.crash': died,
    'host.power-off': died,
    'process.exit': (e) => died({ node: e.process }),
  };
}

export interface OwnershipBar {
  readonly group: string;
  readonly tp: string;
  readonly consumer: string;
  readonly start: number;
  readonly end: number;
}

export interface LagSeries {
  readonly group: string;
  readonly tp: string;
  readonly points: { readonly t: number; readonly lag: number }[];
}

/** What the groups view draws, built as the whole trace goes by. */
export interface GroupsTimeline {
  readonly groups: Set<string>;
  readonly rows: Map<string, { group: string; tp: string }>;
  readonly consumers: Set<string>;
  readonly bars: OwnershipBar[];
  /** Classic rebalances (generation) and consumer-protocol (KIP-848) group epoch bumps (epoch), both as `generation`. */
  readonly rebalances: { readonly t: number; readonly i: number; readonly group: string; readonly generation: number; readonly reason: string; readonly protocol: 'classic' | 'consumer' }[];
  readonly commits: { readonly t: number; readonly group: string; readonly tp: string; readonly offset: number }[];
  readonly lag: Map<string, LagSeries>;
  maxLag: number;
}

/**
 * Consumer groups over the whole run: who owned which partition when, the rebalances, the commits, and lag =
 * the leader's high watermark - committed offset, sampled at most `step` apart (keeping each step's peak).
 */
export function groupsTimeline(step: number, manual: (consumer: string) => string, index: () => number): { handlers: Handlers; timeline: GroupsTimeline; finish(end: number): void } {
  const tl: GroupsTimeline = { groups: new Set(), rows: new Map(), consumers: new Set(), bars: [], rebalances: [], commits: [], lag: new Map(), maxLag: 0 };
  const open = new Map<string, Map<string, { group: string; start: number }>>(); // consumer -> tp -> bar so far
  const hw = new Map<string, number>();
  const committed = new Map<string, number>();
  const row = (group: string, tp: string) => {
    const k = `${group}\u0000${tp}`;
    if (!tl.rows.has(k)) tl.rows.set(k, { group, tp });
    tl.groups.add(group);
    return k;
  };
  const close = (consumer: string, tp: string, t: number) => {
    const o = open.get(consumer)?.get(tp);
    if (!o) return;
    open.get(consumer)!.delete(tp);
    tl.bars.push({ group: o.group, tp, consumer, start: o.start, end: t });
  };
  const closeAll = (e: { node: string; t: number }) => {
    for (const tp of [...(open.get(e.node)?.keys() ?? [])]) close(e.node, tp, e.t);
  };
  const sample = (k: string, group: string, tp: string, t: number, force: boolean) => {
    const c = committed.get(k);
    if (c === undefined) return;
    const l = Math.max(0, (hw.get(tp) ?? 0) - c);
    tl.maxLag = Math.max(tl.maxLag, l);
    let s = tl.lag.get(k);
    if (!s) tl.lag.set(k, (s = { group, tp, points: [] }));
    const last = s.points[s.points.length - 1];
    if (!force && last && t - last.t < step) {
      if (l > last.lag) s.points[s.points.length - 1] = { t: last.t, lag: l };
      return;
    }
    s.points.push({ t, lag: l });
  };
  const handlers: Handlers = {
    'consumer.assignment': (e: TraceEventOf<'consumer.assignment'>) => {
      const group = e.group ?? manual(e.node);
      tl.consumers.add(e.node);
      const owned = new Set(e.owned);
      let mine = open.get(e.node);
      if (!mine) open.set(e.node, (mine = new Map()));
      for (const tp of [...mine.keys()]) if (!owned.has(tp)) close(e.node, tp, e.t);
      for (const tp of owned) {
        row(group, tp);
        if (!mine.has(tp)) mine.set(tp, { group, start: e.t });
      }
    },
    'consumer.close': closeAll,
    'consumer.leave': closeAll,
    'host.crash': closeAll,
    'host.power-off': closeAll,
    'process.exit': (e) => closeAll({ node: e.process, t: e.t }),
    'group.rebalance': (e) => {
      tl.groups.add(e.group);
      tl.rebalances.push({ t: e.t, i: index(), group: e.group, generation: e.generation, reason: e.reason, protocol: 'classic' });
    },
    'group.consumer.epoch': (e) => {
      if (e.members === 0) return;
      tl.groups.add(e.group);
      tl.rebalances.push({ t: e.t, i: index(), group: e.group, generation: e.epoch, reason: e.reason, protocol: 'consumer' });
    },
    'consumer.commit': (e) => {
      if (!e.ok) return;
      for (const o of e.offsets) {
        const tp = tpKey(o.topic, o.partition);
        const k = row(e.group, tp);
        committed.set(k, o.offset);
        tl.commits.push({ t: e.t, group: e.group, tp, offset: o.offset });
        sample(k, e.group, tp, e.t, true);
      }
    },
    'replica.hw': (e) => {
      // Lag is against the leader's high watermark; followers' trail it.
      if (e.role === 'follower') return;
      const tp = tpKey(e.topic, e.partition);
      hw.set(tp, e.hw);
      for (const [k, r] of tl.rows) if (r.tp === tp) sample(k, r.group, tp, e.t, false);
    },
  };
  return {
    handlers,
    timeline: tl,
    finish: (end) => {
      for (const [consumer, mine] of open) for (const tp of [...mine.keys()]) close(consumer, tp, end);
    },
  };
}
