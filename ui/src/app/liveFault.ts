import type { ScenarioSpec } from '../../../sim/scenario/spec';
import type { FaultEntry } from '../../../sim/world/nemesis';
import type { HostNames } from '../model/hostNames';

/**
 * "What if" from the screen: a fault a learner adds at the cursor by clicking a node (crash it now, stop it, cut
 * its power, pause it, isolate it) or one of its links (cut the link to a peer, slow it). The run is forked: the
 * same scenario and seed with that fault added, beside the original. A fault travels in the URL as
 * `crash:broker-2@12500+10000` (kind, host, scenario ms, duration ms); a link's as `partition:broker-1~broker-2@...`.
 */
export type LiveFaultKind = 'crash' | 'stop' | 'power-loss' | 'pause' | 'isolate' | 'partition' | 'latency';

/** What "slow the link" adds to each direction of it: far above a LAN's round trip, far below replica.lag.time.max.ms. */
export const SLOW_LINK_MS = 500;

export interface LiveFault {
  readonly fault: LiveFaultKind;
  readonly host: string;
  /** A link fault: the host at the link's other end. */
  readonly peer?: string;
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

/**
 * The hosts a node has network links to, as the simulated cluster wires them: a server to every other server and
 * to the clients; a controller to the servers; a client to the brokers. (The UI's own admin and the operator are
 * not hosts a learner cuts.)
 */
export function linkPeers(host: string, lanes: readonly { readonly id: string; readonly group: string }[]): string[] {
  const kind = (id: string) => (/^broker-\d+$/.test(id) ? 'broker' : /^controller-\d+$/.test(id) ? 'controller' : 'client');
  const mine = kind(host);
  return lanes
    .filter((l) => l.group !== 'scenario' && l.id !== host && l.id !== 'admin' && l.id !== 'operator')
    .filter((l) => {
      const theirs = kind(l.id);
      if (mine === 'client') return theirs === 'broker';
      if (mine === 'controller') return theirs !== 'client';
      return true;
    })
    .map((l) => l.id);
}

/** The link actions offered for a node and one peer (the network faults of the scenario language, on one link). */
export function linkActions(): { readonly label: string; readonly fault: LiveFaultKind; readonly durationMs: number }[] {
  return [
    { label: 'cut', fault: 'partition', durationMs: 10_000 },
    { label: `slow +${SLOW_LINK_MS} ms`, fault: 'latency', durationMs: 10_000 },
  ];
}

const FORM = /^(crash|stop|power-loss|pause|isolate|partition|latency):([A-Za-z0-9._-]+)(?:~([A-Za-z0-9._-]+))?@(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/;
const LINK_FAULTS: readonly LiveFaultKind[] = ['partition', 'latency'];

export function encodeFault(f: LiveFault): string {
  return `${f.fault}:${f.host}${f.peer ? `~${f.peer}` : ''}@${f.atMs}${f.durationMs === null ? '' : `+${f.durationMs}`}`;
}

/** The fault a URL names, or null when it is not one (a hand-edited link: a link fault needs its peer, a node fault has none). */
export function decodeFault(text: string): LiveFault | null {
  const m = FORM.exec(text);
  if (!m) return null;
  const fault = m[1] as LiveFaultKind;
  if (LINK_FAULTS.includes(fault) !== (m[3] !== undefined) || m[3] === m[2]) return null;
  return { fault, host: m[2]!, ...(m[3] !== undefined && { peer: m[3] }), atMs: Number(m[4]), durationMs: m[5] === undefined ? null : Number(m[5]) };
}

export function describeFault(f: LiveFault, names: HostNames | null = null): string {
  const name = (h: string) => (names ? names.host(h) : h.replace(/^(broker|controller)-/, '$1 '));
  const at = `at ${(f.atMs / 1000).toFixed(3)}s${f.durationMs === null ? '' : ` for ${f.durationMs / 1000} s`}`;
  if (f.peer) return `${f.fault === 'partition' ? 'cut link' : `slow link (+${SLOW_LINK_MS} ms)`} ${name(f.host)} ↔ ${name(f.peer)} ${at}`;
  const what = f.fault === 'power-loss' ? 'power cut on' : f.fault;
  return `${what} ${name(f.host)} ${at}`;
}

/** The scenario with the learner's faults added to its schedule (validation then judges them as the CLI would). */
export function withFaults(spec: ScenarioSpec, faults: readonly LiveFault[]): ScenarioSpec {
  if (faults.length === 0) return spec;
  const added: FaultEntry[] = faults.map((f) => {
    const duration = f.durationMs !== null ? { duration: f.durationMs } : {};
    // A cut link: a network partition of two groups of one host each (the rest of the cluster reaches both).
    if (f.peer && f.fault === 'partition') return { at: f.atMs, fault: 'partition', groups: [[f.host], [f.peer]], ...duration };
    // A slow link: latency added in both directions between the two hosts.
    if (f.peer) return { at: f.atMs, fault: 'latency', from: [f.host, f.peer], to: [f.host, f.peer], addMs: SLOW_LINK_MS, ...duration };
    return { at: f.atMs, fault: f.fault, targets: [f.host], ...duration };
  });
  return { ...spec, faults: [...(spec.faults ?? []), ...added] };
}
