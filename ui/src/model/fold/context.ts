import type { Handlers, TraceEvent } from '../../../../sim/core/trace';
import type { ClusterState } from '../clusterState';
import type { MarkerKind, TraceModel } from '../traceModel';

/**
 * What an indexing fold sees while TraceModel reads the trace once: the event's index and lane, the lanes,
 * and a way to mark a notable moment. Lanes are numbered as first seen here and renumbered at the end.
 */
export interface IndexContext {
  readonly model: TraceModel;
  /** The event being read. */
  i: number;
  lane: number;
  laneOf(node: string): number;
  mark(e: TraceEvent, lane: number, kind: MarkerKind, label: string): void;
}

/** One subject of the trace, indexed once: handlers by kind, and what to close at the end. */
export interface IndexFold {
  readonly handlers: Handlers;
  finish?(): void;
}

/** What a state fold sees while the cluster's state is folded up to a moment: the state, the event's index and lane. */
export interface StateContext {
  readonly model: TraceModel;
  s: ClusterState;
  i: number;
  lane: number;
}
