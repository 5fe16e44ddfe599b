import { applyEvent, cloneState, initialState, type ClusterState } from './clusterState';
import type { TraceModel } from './traceModel';

/**
 * Any moment of a run, fast: the state after event i is a keyframe (a snapshot taken every `every`
 * events while the trace is first folded, in one linear pass) plus at most `every` events folded on top.
 * Moving forward a little folds on from where it is.
 */
export class Replay {
  private readonly keyframes: ClusterState[] = [];
  private current: ClusterState;

  constructor(
    readonly model: TraceModel,
    readonly every = 1000,
  ) {
    const s = initialState(model);
    this.keyframes.push(cloneState(s));
    const events = model.events;
    for (let i = 0; i < model.n; i++) {
      applyEvent(s, model, events[i]!, i);
      if ((i + 1) % every === 0) this.keyframes.push(cloneState(s));
    }
    this.current = cloneState(this.keyframes[0]!);
  }

  /** The state after event i (i = -1: before the first event). The result is shared: do not mutate it. */
  at(i: number): ClusterState {
    const target = Math.max(-1, Math.min(this.model.n - 1, i));
    const cur = this.current;
    if (target < cur.i || target - cur.i > this.every) {
      // keyframes[k] holds the state after event k*every - 1.
      const k = Math.min(this.keyframes.length - 1, Math.floor((target + 1) / this.every));
      this.current = cloneState(this.keyframes[k]!);
    }
    const s = this.current;
    const events = this.model.events;
    for (let j = s.i + 1; j <= target; j++) applyEvent(s, this.model, events[j]!, j);
    return s;
  }
}
