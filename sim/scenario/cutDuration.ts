import { parseDuration, type Micros } from '../core/time';
import type { CaptionSpec, ScenarioSpec, WorkloadSpec } from './spec';

/** A time as a scenario document writes it, or null when it is not one (the validator says so later). */
function timeUs(v: unknown): Micros | null {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return Math.round(v * 1000);
  if (typeof v === 'string') return parseDuration(v);
  return null;
}

const after = (v: unknown, limitUs: Micros) => {
  const t = timeUs(v);
  return t !== null && t > limitUs;
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops the items of a timed list (faults, captions, actions, stalls, seeks) that start after the limit. */
function keepUntil<T>(items: readonly T[], limitUs: Micros, what: string, dropped: string[]): readonly T[] {
  if (!Array.isArray(items)) return items;
  const kept = items.filter((x) => !(isRecord(x) && after(x.at, limitUs)));
  if (kept.length < items.length) dropped.push(`${items.length - kept.length} ${what}`);
  return kept;
}

/**
 * The scenario cut to a shorter duration (`run --duration`): what would happen after the new end is left
 * out — faults, operator actions, captions, send times, stalls and seeks that come later, workloads that start
 * later (a stop after the end is dropped: producers stop there anyway) — and said, so the caller can tell the
 * user. A longer duration changes nothing else. The quiet period stays the scenario's.
 */
export function cutToDuration(spec: ScenarioSpec, duration: Micros | string): { spec: ScenarioSpec; dropped: string[] } {
  const durationUs = typeof duration === 'string' ? parseDuration(duration) : duration;
  if (durationUs === null) throw new Error(`cutToDuration: ${JSON.stringify(duration)} is not a duration`);
  const dropped: string[] = [];
  const out: { -readonly [K in keyof ScenarioSpec]: ScenarioSpec[K] } = { ...spec, duration: durationUs % 1000 === 0 ? durationUs / 1000 : `${durationUs}us` };
  if (spec.faults) out.faults = keepUntil(spec.faults, durationUs, 'fault(s)', dropped);
  if (spec.actions) out.actions = keepUntil(spec.actions, durationUs, 'action(s)', dropped);
  if (spec.captions) out.captions = keepUntil<CaptionSpec>(spec.captions, durationUs, 'caption(s)', dropped);
  if (Array.isArray(spec.producers)) {
    let sends = 0;
    let workloads = 0;
    out.producers = spec.producers.map((p) => {
      if (!isRecord(p) || p.workload === undefined) return p;
      const cut = (w: WorkloadSpec): WorkloadSpec | null => {
        if (!isRecord(w)) return w;
        if (after(w.start, durationUs)) {
          workloads++;
          return null;
        }
        const o: { -readonly [K in keyof WorkloadSpec]: WorkloadSpec[K] } = { ...w };
        if (after(w.stop, durationUs)) delete o.stop;
        if (Array.isArray(w.at)) {
          o.at = w.at.filter((t) => !after(t, durationUs));
          sends += w.at.length - o.at.length;
          // A workload of send times only, none of them left: nothing to send.
          if (o.at.length === 0 && w.rate === undefined) {
            workloads++;
            return null;
          }
        }
        return o;
      };
      if (Array.isArray(p.workload)) {
        const ws = (p.workload as readonly WorkloadSpec[]).map(cut).filter((w): w is WorkloadSpec => w !== null);
        // A producer needs a workload: keep the first one, idle (it never starts), rather than a scenario that is no longer valid.
        return { ...p, workload: ws.length > 0 ? ws : [{ ...(p.workload as readonly WorkloadSpec[])[0]!, rate: 0, at: undefined }] };
      }
      const w = cut(p.workload as WorkloadSpec);
      return { ...p, workload: w ?? { ...(p.workload as WorkloadSpec), rate: 0, at: undefined, start: undefined } };
    });
    if (sends > 0) dropped.push(`${sends} send time(s)`);
    if (workloads > 0) dropped.push(`${workloads} workload(s) that start later`);
  }
  if (Array.isArray(spec.consumers)) {
    let later = 0;
    out.consumers = spec.consumers.map((c) => {
      if (!isRecord(c) || !isRecord(c.processing)) return c;
      const pr: Record<string, unknown> = { ...c.processing };
      for (const k of ['stalls', 'seeks'] as const) {
        const items = pr[k];
        if (Array.isArray(items)) {
          const kept = items.filter((x) => !(isRecord(x) && after(x.at, durationUs)));
          later += items.length - kept.length;
          pr[k] = kept;
        }
      }
      return { ...c, processing: pr };
    });
    if (later > 0) dropped.push(`${later} consumer stall(s) or seek(s)`);
  }
  return { spec: JSON.parse(JSON.stringify(out)) as ScenarioSpec, dropped };
}
