import type { ScenarioSpec } from '../../../sim/scenario/spec';
import type { FaultEntry } from '../../../sim/world/nemesis';
import type { HostNames } from '../model/hostNames';

/**
 * "What if" from the screen: a fault a learner adds at the cursor by clicking a node (crash it now, stop it, cut
 * its power, pause it, isolate it). The run is forked: the same scenario and seed with that fault added, beside the
 * original. A fault travels in the URL as `crash:broker-2@12500+10000` (kind, host, scenario ms, duration ms).
 */
export type LiveFaultKind = 'crash' | 'stop' | 'power-loss' | 'pause' | 'isolate';

export interface LiveFault {
  readonly fault: LiveFaultKind;
  readonly host: string;
  readonly atMs: number;
  /** Undone after this long; null: for the rest of the run's faults (the quiet period undoes it). */
  readonly durationMs: number | null;
}

/** The actions offered for a node, as menu entries (Kafka's own words for what each does). */
export function actionsFor(host: string): { readonly label: string; readonly fault: LiveFaultKind; readonly durationMs: number | null }[] {
  const server = /^(broker|controller)-\d+$/.test(host);
  const all: { label: string; fault: LiveFaultKind; durationMs: number | null; server?: true }[] = [
    { label: 'crash now (kill -9), restart after 10 s', fault: 'crash', durationMs: 10_000 },
    { label: 'crash now, and leave it down', fault: 'crash', durationMs: null },
    { label: 'stop now (SIGTERM: controlled shutdown), start after 10 s', fault: 'stop', durationMs: 10_000, server: true },
    { label: 'cut its power now (page cache lost), back after 10 s', fault: 'power-loss', durationMs: 10_000, server: true },
    { label: 'pause it now (a long GC), for 10 s', fault: 'pause', durationMs: 10_000 },
    { label: 'isolate it from the network now, for 10 s', fault: 'isolate', durationMs: 10_000 },
  ];
  return all.filter((a) => server || !a.server);
}

const FORM = /^(crash|stop|power-loss|pause|isolate):([A-Za-z0-9._-]+)@(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/;

export function encodeFault(f: LiveFault): string {
  return `${f.fault}:${f.host}@${f.atMs}${f.durationMs === null ? '' : `+${f.durationMs}`}`;
}

/** The fault a URL names, or null when it is not one (a hand-edited link). */
export function decodeFault(text: string): LiveFault | null {
  const m = FORM.exec(text);
  if (!m) return null;
  return { fault: m[1] as LiveFaultKind, host: m[2]!, atMs: Number(m[3]), durationMs: m[4] === undefined ? null : Number(m[4]) };
}

export function describeFault(f: LiveFault, names: HostNames | null = null): string {
  const what = f.fault === 'power-loss' ? 'power cut on' : f.fault;
  return `${what} ${names ? names.host(f.host) : f.host.replace(/^(broker|controller)-/, '$1 ')} at ${(f.atMs / 1000).toFixed(3)}s${f.durationMs === null ? '' : ` for ${f.durationMs / 1000} s`}`;
}

/** The scenario with the learner's faults added to its schedule (validation then judges them as the CLI would). */
export function withFaults(spec: ScenarioSpec, faults: readonly LiveFault[]): ScenarioSpec {
  if (faults.length === 0) return spec;
  const added: FaultEntry[] = faults.map((f) => ({ at: f.atMs, fault: f.fault, targets: [f.host], ...(f.durationMs !== null && { duration: f.durationMs }) }));
  return { ...spec, faults: [...(spec.faults ?? []), ...added] };
}
