import type { RunPayload } from '../worker/protocol';
import { TraceModel } from '../model/traceModel';
import { Replay } from '../model/replay';
import { buildGroups, type GroupsModel } from '../model/groupsModel';
import { metricsFromTrace, type MetricsSeries } from '../../../sim/kafka/metrics/series';
import { alertReports, type AlertReport } from '../../../sim/check/alertChecks';

/** A run (or a loaded trace) with its index and replay, ready for the views. */
export class LoadedRun {
  readonly model: TraceModel;
  readonly replay: Replay;
  private groups_: GroupsModel | undefined;
  private metrics_: MetricsSeries | undefined;
  private alerts_: AlertReport[] | undefined;
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

  /** The sampled metrics (metrics.sample), times relative to the scenario start. */
  get metrics(): MetricsSeries {
    this.metrics_ ??= metricsFromTrace(this.model.events);
    return this.metrics_;
  }

  /** The scenario's alert rules and their firings, scenario-relative. */
  get alerts(): AlertReport[] {
    this.alerts_ ??= alertReports(this.model.events, this.model.t0);
    return this.alerts_;
  }

  /** The event index at scenario-relative time rel (us). */
  indexAtRel(rel: number): number {
    return this.model.indexAtTime(this.model.t0 + rel);
  }
}
