import type { Handlers } from '../../../../sim/core/trace';
import type { ReplicaState } from '../clusterState';
import { MARK } from '../labels';
import { brokerOfNode } from '../nodes';
import { appendBatch, truncateChain } from '../replicaLog';
import type { IndexContext, IndexFold, StateContext } from './context';
import { tpKey } from '../../../../sim/kafka/topicPartition';

/**
 * The partitions and their replicas, indexed once: which brokers hold each partition, the leaders' batches (so
 * any replica's record can be named), and truncations, recoveries and rejections as notable moments.
 */
export function replicasIndex(c: IndexContext): IndexFold {
  const partitions = new Map<string, { topic: string; partition: number; replicas: Set<number> }>();
  const lastReject = new Map<string, number>();
  const note = (topic: string, partition: number, brokers: number | readonly number[]) => {
    if (topic.startsWith('__') || partition < 0) return;
    const key = tpKey(topic, partition);
    let p = partitions.get(key);
    if (!p) partitions.set(key, (p = { topic, partition, replicas: new Set() }));
    if (typeof brokers === 'number') {
      if (brokers >= 0) p.replicas.add(brokers);
    } else for (const b of brokers) p.replicas.add(b);
  };
  return {
    handlers: {
      'controller.election': (e) => note(e.topic, e.partition, e.isr),
      'controller.partition': (e) => note(e.topic, e.partition, e.replicas),
      'final.partition': (e) => note(e.topic, e.partition, e.replicas),
      'replica.alter-isr': (e) => note(e.topic, e.partition, e.to),
      'replica.role': (e) => note(e.topic, e.partition, e.broker),
      'replica.hw': (e) => note(e.topic, e.partition, e.broker),
      'replica.truncate': (e) => {
        note(e.topic, e.partition, e.broker);
        c.mark(e, c.lane, 'truncate', MARK.truncate(e));
      },
      'replica.append': (e) => {
        note(e.topic, e.partition, e.broker);
        if (e.role !== 'leader' || e.values === undefined) return;
        const key = tpKey(e.topic, e.partition);
        let byEpoch = c.model.leaderBatches.get(key);
        if (!byEpoch) c.model.leaderBatches.set(key, (byEpoch = new Map()));
        let list = byEpoch.get(e.epoch);
        if (!list) byEpoch.set(e.epoch, (list = []));
        // A leader re-appending at an offset it already used (after its own truncation) replaces the tail.
        while (list.length > 0 && list[list.length - 1]!.last >= e.base) list.pop();
        list.push({ base: e.base, last: e.last, epoch: e.epoch, values: e.values });
      },
      'replica.produce-rejected': (e) => {
        const prev = lastReject.get(e.node);
        if (prev === undefined || e.t - prev > 1_000_000) c.mark(e, c.lane, 'rejected', MARK.rejected(e));
        lastReject.set(e.node, e.t);
      },
      'log.truncate': (e) => {
        if (e.removedFrom !== null && e.method === 'truncateFullyAndStartAt') c.mark(e, c.lane, 'truncate', MARK.emptied(e));
      },
      'log.recovery': (e) => {
        if (e.droppedRecords > 0) c.mark(e, c.lane, 'recovery', MARK.recovered(e));
      },
      'log.flush': () => {
        c.model.hasFlush = true;
      },
    },
    finish: () => {
      for (const [key, p] of [...partitions].sort(([a], [b]) => naturalCompare(a, b))) {
        c.model.partitions.push({ key, topic: p.topic, partition: p.partition, replicas: [...p.replicas].sort((a, b) => a - b) });
      }
    },
  };
}

export function naturalCompare(a: string, b: string): number {
  const ra = /^(.*?)(\d+)$/.exec(a);
  const rb = /^(.*?)(\d+)$/.exec(b);
  if (ra && rb && ra[1] === rb[1]) return Number(ra[2]) - Number(rb[2]);
  return a < b ? -1 : a > b ? 1 : 0;
}

export function newReplica(broker: number): ReplicaState {
  return { broker, role: 'none', leaderEpoch: -1, leo: 0, logStart: 0, hw: 0, tip: null, flushedUpTo: 0, pending: [], removed: null, lastAppendT: -1 };
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

/** Every replica's log at a moment: its batches, end offset, high watermark, what is on disk, what was cut. */
export function replicasState(c: StateContext): Handlers {
  const partition = (e: { topic: string; partition: number }) => c.s.partitions.get(tpKey(e.topic, e.partition));
  const replica = (e: { topic: string; partition: number }, broker: number): ReplicaState | undefined => {
    const p = partition(e);
    if (!p || broker < 0) return undefined;
    let r = p.replicas.get(broker);
    if (!r) p.replicas.set(broker, (r = newReplica(broker)));
    return r;
  };
  return {
    'disk.power-loss': (e) => {
      const b = brokerOfNode(e.node);
      if (b < 0) return;
      for (const p of c.s.partitions.values()) {
        const r = p.replicas.get(b);
        if (!r) continue;
        settleFlushes(r, e.t);
        r.pending = [];
      }
    },
    'replica.role': (e) => {
      const r = replica(e, e.broker);
      const p = partition(e);
      if (!r || !p) return;
      r.role = e.role;
      r.leaderEpoch = e.leaderEpoch;
      r.hw = e.hw;
      if (r.role === 'leader' && r.leaderEpoch >= p.leaderEpoch) {
        // A new leader's LSO is its own: it traces replica.lso when a transaction holds it.
        if (p.leader !== e.broker) p.lso = null;
        p.leader = e.broker;
        p.leaderEpoch = r.leaderEpoch;
        p.isr = e.isr;
        p.hw = r.hw;
      }
    },
    'replica.append': (e) => {
      const r = replica(e, e.broker);
      if (!r) return;
      if (e.base < r.leo) truncate(r, e.base, e.t, c.i, 'overwritten');
      if (r.tip === null && e.base > r.leo) r.logStart = Math.max(r.logStart, e.base);
      r.tip = appendBatch(r.tip, e.base, e.last, e.epoch, e.t, e.control, e.role === 'follower');
      r.leo = e.last + 1;
      r.lastAppendT = e.t;
      settleFlushes(r, e.t);
    },
    'replica.hw': (e) => {
      const r = replica(e, e.broker);
      const p = partition(e);
      if (!r || !p) return;
      r.hw = e.hw;
      if (p.leader === e.broker || p.leader < 0) p.hw = r.hw;
    },
    'replica.lso': (e) => {
      const p = partition(e);
      if (p && (p.leader === e.broker || p.leader < 0)) p.lso = e.firstUnstableOffset === null ? null : e.lso;
    },
    'replica.truncate': (e) => {
      const r = replica(e, e.broker);
      if (!r) return;
      const reason = `${e.reason}, following broker ${e.leader} in epoch ${e.leaderEpoch}`;
      // The log's own log.truncate for the same cut comes first; keep one removal with the better reason.
      if (r.removed && r.removed.t === e.t && r.removed.from === e.to) r.removed = { ...r.removed, reason };
      else truncate(r, e.to, e.t, c.i, reason);
    },
    'log.truncate': (e) => {
      const r = replica(e, brokerOfNode(e.node));
      if (!r) return;
      if (e.method === 'truncateFullyAndStartAt') {
        truncate(r, r.logStart, e.t, c.i, 'emptied');
        r.tip = null;
        r.logStart = e.toOffset;
        r.leo = r.logStart;
        r.flushedUpTo = r.logStart;
      } else truncate(r, e.toOffset, e.t, c.i, 'truncated');
      r.hw = e.highWatermark;
    },
    'log.recovery': (e) => {
      const r = replica(e, brokerOfNode(e.node));
      if (!r) return;
      settleFlushes(r, e.t);
      r.pending = [];
      if (e.logEndOffset < r.leo) truncate(r, e.logEndOffset, e.t, c.i, 'lost with the page cache (recovery)');
      r.logStart = e.logStartOffset;
      r.hw = e.highWatermark;
      // What recovery read back is on disk by definition.
      r.flushedUpTo = Math.max(r.flushedUpTo, Math.min(e.logEndOffset, e.recoveryPoint));
    },
    'log.retention': (e) => {
      const r = replica(e, brokerOfNode(e.node));
      if (r) r.logStart = e.logStartOffset;
    },
    'log.flush': (e) => {
      const r = replica(e, brokerOfNode(e.node));
      if (!r) return;
      settleFlushes(r, e.t);
      r.pending = [...r.pending, { upTo: e.upTo, completesAt: e.completesAt }];
    },
  };
}

/** The durable offset of a replica at time `now`, counting fsyncs that completed by then. */
export function flushedAt(r: ReplicaState, now: number): number {
  let f = r.flushedUpTo;
  for (const p of r.pending) if (p.completesAt <= now && p.upTo > f) f = p.upTo;
  return f;
}
