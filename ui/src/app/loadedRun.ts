import type { RunPayload } from '../worker/protocol';
import { TraceModel } from '../model/traceModel';
import { Replay } from '../model/replay';
import { buildGroups, type GroupsModel } from '../model/groupsModel';

/** A run (or a loaded trace) with its index and replay, ready for the views. */
export class LoadedRun {
  readonly model: TraceModel;
  readonly replay: Replay;
  private groups_: GroupsModel | undefined;
  readonly loadMs: number;

  constructor(
    readonly payload: RunPayload,
    /** "A" / "B" in compare mode. */
    readonly label: string,
  ) {
    const started = performance.now();
    this.model = new TraceModel(payload.header, payload.events, payload.checks);
    this.replay = new Replay(this.model);
    this.loadMs = Math.round(performance.now() - started);
  }

  get groups(): GroupsModel {
    this.groups_ ??= buildGroups(this.model);
    return this.groups_;
  }

  /** The event index at scenario-relative time rel (us). */
  indexAtRel(rel: number): number {
    return this.model.indexAtTime(this.model.t0 + rel);
  }
}
