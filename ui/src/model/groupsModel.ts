import { comparePartitionNames } from '../../../sim/check/describe';
import { dispatcher } from '../../../sim/core/trace';
import { groupsTimeline } from './fold/groups';
import { manualGroup } from './labels';
import type { TraceModel } from './traceModel';

export type { LagSeries, OwnershipBar } from './fold/groups';
import type { GroupsTimeline, LagSeries, OwnershipBar } from './fold/groups';

export interface GroupsModel {
  readonly groups: readonly string[];
  /** group \u0000 tp rows, in order. */
  readonly rows: readonly { readonly group: string; readonly tp: string }[];
  readonly consumers: readonly string[];
  readonly bars: readonly OwnershipBar[];
  readonly rebalances: GroupsTimeline['rebalances'];
  readonly commits: readonly { readonly t: number; readonly group: string; readonly tp: string; readonly offset: number }[];
  readonly lag: readonly LagSeries[];
  readonly maxLag: number;
}

/**
 * Consumer groups over the whole run, from consumer.* and group.* events (one fold, fold/groups.ts): who owned
 * which partition when, the rebalances, the commits, and lag = high watermark - committed offset.
 */
export function buildGroups(model: TraceModel): GroupsModel {
  const span = Math.max(1, model.tLast - model.tFirst);
  let i = 0;
  const g = groupsTimeline(span / 600, manualGroup, () => i);
  const dispatch = dispatcher(g.handlers);
  for (; i < model.n; i++) dispatch(model.events[i]!);
  g.finish(model.tLast);
  const tl = g.timeline;
  const rowList = [...tl.rows.values()].sort((a, b) => (a.group === b.group ? comparePartitionNames(a.tp, b.tp) : a.group < b.group ? -1 : 1));
  return {
    groups: [...tl.groups].sort(),
    rows: rowList,
    consumers: [...tl.consumers].sort(),
    bars: tl.bars,
    rebalances: tl.rebalances,
    commits: tl.commits,
    lag: [...tl.lag.values()],
    maxLag: tl.maxLag,
  };
}
