import { comparePartitionNames } from '../../../sim/check/describe';
import { num, str, strs } from './fields';
import type { TraceModel } from './traceModel';

export interface OwnershipBar {
  readonly group: string;
  readonly tp: string;
  readonly consumer: string;
  readonly start: number;
  readonly end: number;
}

export interface LagPoint {
  readonly t: number;
  readonly lag: number;
}

export interface LagSeries {
  readonly group: string;
  readonly tp: string;
  readonly points: LagPoint[];
}

export interface GroupsModel {
  readonly groups: readonly string[];
  /** group \u0000 tp rows, in order. */
  readonly rows: readonly { readonly group: string; readonly tp: string }[];
  readonly consumers: readonly string[];
  readonly bars: readonly OwnershipBar[];
  readonly rebalances: readonly { readonly t: number; readonly i: number; readonly group: string; readonly generation: number; readonly reason: string }[];
  readonly commits: readonly { readonly t: number; readonly group: string; readonly tp: string; readonly offset: number }[];
  readonly lag: readonly LagSeries[];
  readonly maxLag: number;
}

/**
 * Consumer groups over the whole run, from consumer.* and group.* events (one pass): who owned which
 * partition when, the rebalances, the commits, and lag = high watermark - committed offset.
 */
export function buildGroups(model: TraceModel): GroupsModel {
  const open = new Map<string, { group: string; start: number }>(); // consumer \u0000 tp
  const bars: OwnershipBar[] = [];
  const groupOfConsumer = new Map<string, string>();
  const groups = new Set<string>();
  const rows = new Map<string, { group: string; tp: string }>();
  const consumers = new Set<string>();
  const rebalances: GroupsModel['rebalances'][number][] = [];
  const commits: GroupsModel['commits'][number][] = [];
  const hw = new Map<string, number>();
  const committed = new Map<string, number>();
  const lag = new Map<string, LagSeries>();
  const span = Math.max(1, model.tLast - model.tFirst);
  const step = span / 600;
  let maxLag = 0;

  const row = (group: string, tp: string) => {
    const k = `${group}\u0000${tp}`;
    if (!rows.has(k)) rows.set(k, { group, tp });
    groups.add(group);
    return k;
  };
  const close = (consumer: string, tp: string, t: number) => {
    const k = `${consumer}\u0000${tp}`;
    const o = open.get(k);
    if (!o) return;
    open.delete(k);
    bars.push({ group: o.group, tp, consumer, start: o.start, end: t });
  };
  const closeAll = (consumer: string, t: number) => {
    for (const k of [...open.keys()]) if (k.startsWith(`${consumer}\u0000`)) close(consumer, k.slice(consumer.length + 1), t);
  };
  const samplePoint = (k: string, group: string, tp: string, t: number, force: boolean) => {
    const c = committed.get(k);
    if (c === undefined) return;
    const l = Math.max(0, (hw.get(tp) ?? 0) - c);
    maxLag = Math.max(maxLag, l);
    let s = lag.get(k);
    if (!s) lag.set(k, (s = { group, tp, points: [] }));
    const last = s.points[s.points.length - 1];
    if (!force && last && t - last.t < step) {
      if (l > last.lag) s.points[s.points.length - 1] = { t: last.t, lag: l };
      return;
    }
    s.points.push({ t, lag: l });
  };

  const events = model.events;
  for (let i = 0; i < model.n; i++) {
    const e = events[i]!;
    switch (e.kind) {
      case 'consumer.assignment': {
        const group = typeof e['group'] === 'string' ? (e['group'] as string) : `${e.node} (manual)`;
        consumers.add(e.node);
        groupOfConsumer.set(e.node, group);
        const owned = new Set(strs(e, 'owned'));
        for (const k of [...open.keys()]) {
          if (!k.startsWith(`${e.node}\u0000`)) continue;
          const tp = k.slice(e.node.length + 1);
          if (!owned.has(tp)) close(e.node, tp, e.t);
        }
        for (const tp of owned) {
          row(group, tp);
          const k = `${e.node}\u0000${tp}`;
          if (!open.has(k)) open.set(k, { group, start: e.t });
        }
        break;
      }
      case 'consumer.close':
      case 'consumer.leave':
        closeAll(e.node, e.t);
        break;
      case 'host.crash':
      case 'host.power-off':
        closeAll(e.node, e.t);
        break;
      case 'process.exit':
        closeAll(str(e, 'process'), e.t);
        break;
      case 'group.rebalance':
        groups.add(str(e, 'group'));
        rebalances.push({ t: e.t, i, group: str(e, 'group'), generation: num(e, 'generation'), reason: str(e, 'reason') });
        break;
      case 'consumer.commit': {
        if (e['ok'] !== true) break;
        const group = str(e, 'group');
        for (const o of (Array.isArray(e['offsets']) ? e['offsets'] : []) as { topic?: unknown; partition?: unknown; offset?: unknown }[]) {
          if (typeof o.offset !== 'number') continue;
          const tp = `${String(o.topic)}-${String(o.partition)}`;
          const k = row(group, tp);
          committed.set(k, o.offset);
          commits.push({ t: e.t, group, tp, offset: o.offset });
          samplePoint(k, group, tp, e.t, true);
        }
        break;
      }
      case 'replica.hw': {
        // Lag is against the leader's high watermark; followers' trail it.
        if (e.role === 'follower') break;
        const tp = `${str(e, 'topic')}-${num(e, 'partition')}`;
        hw.set(tp, num(e, 'hw'));
        for (const [k, r] of rows) if (r.tp === tp) samplePoint(k, r.group, tp, e.t, false);
        break;
      }
    }
  }
  for (const k of [...open.keys()]) {
    const [consumer, tp] = k.split('\u0000') as [string, string];
    close(consumer, tp, model.tLast);
  }
  const rowList = [...rows.values()].sort((a, b) => (a.group === b.group ? comparePartitionNames(a.tp, b.tp) : a.group < b.group ? -1 : 1));
  return {
    groups: [...groups].sort(),
    rows: rowList,
    consumers: [...consumers].sort(),
    bars,
    rebalances,
    commits,
    lag: [...lag.values()],
    maxLag,
  };
}
