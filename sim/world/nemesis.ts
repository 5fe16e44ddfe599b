import type { Random } from '../core/random';
import { ms, parseDuration, type Micros } from '../core/time';
import {
  ValidationError,
  didYouMean,
  expectArray,
  expectNumber,
  expectObject,
  expectOneOf,
  expectString,
  join,
} from '../core/validate';
import { defineKinds, list, num, oneOf, str, type KindsOf } from '../core/traceSchema';

/** The fault verbs, named the way an operator says them. */
export const FAULT_KINDS = [
  'crash',
  'stop',
  'restart',
  'power-loss',
  'power-on',
  'pause',
  'resume',
  'partition',
  'isolate',
  'one-way',
  'heal',
  'latency',
  'lossy',
  'slow-disk',
  'disk-full',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The fault schedule as it runs: entry `index` of the schedule began or was undone on these hosts. */
export const FAULT_EVENT_KINDS = defineKinds({
  'fault.start': { index: num, fault: oneOf(...FAULT_KINDS), hosts: list(str), detail: str },
  'fault.end': { index: num, fault: oneOf(...FAULT_KINDS), hosts: list(str) },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof FAULT_EVENT_KINDS> {}
}

/** Faults that can carry a duration, after which they are undone. */
const REVERSIBLE: readonly FaultKind[] = ['crash', 'stop', 'power-loss', 'pause', 'partition', 'isolate', 'one-way', 'latency', 'lossy', 'slow-disk', 'disk-full'];

/**
 * One entry of a fault schedule: plain data (a scenario file holds a list of them).
 * Targets are selectors: a host id, `zone:<z>`, `rack:<r>`, `tag:<t>`, `*`, or a selector a higher layer
 * adds (for example the current leader of a partition), resolved when the fault fires.
 */
export interface FaultEntry {
  /** When it starts: milliseconds, or a duration text such as "10s". */
  readonly at: number | string;
  readonly fault: FaultKind;
  /** The hosts it hits (crash, power-loss, pause, isolate, slow-disk, disk-full, restart, ...). */
  readonly targets?: readonly string[];
  /** partition: groups of selectors that cannot reach each other. */
  readonly groups?: readonly (readonly string[])[];
  /** one-way, latency, lossy: the direction from these hosts ... */
  readonly from?: readonly string[];
  /** ... to these hosts. */
  readonly to?: readonly string[];
  /** Undo the fault after this long: milliseconds or a duration text. */
  readonly duration?: number | string;
  /** slow-disk: latency multiplier. */
  readonly factor?: number;
  /** lossy: probability that a message is lost. */
  readonly rate?: number;
  /** latency: added delay and added mean jitter, in milliseconds. */
  readonly addMs?: number;
  readonly jitterMs?: number;
}

const ENTRY_FIELDS = ['at', 'fault', 'targets', 'groups', 'from', 'to', 'duration', 'factor', 'rate', 'addMs', 'jitterMs'] as const;

/** Resolves target selectors to host ids at the moment a fault fires. */
export interface TargetResolver {
  /** Selector prefixes this resolver understands (for validation), e.g. `zone:`. */
  readonly prefixes: readonly string[];
  /** Host ids named exactly. */
  readonly hostIds: readonly string[];
  /** The host ids a selector means now (may be empty); null if the selector is unknown. */
  resolve(selector: string): string[] | null;
  /**
   * Why a selector with a known prefix can never match what this resolver knows (a zone no host is in, a
   * broker id there is not), as "what is allowed" for the error; undefined when it can. Checked when a schedule
   * is validated; a resolver that cannot tell leaves it out.
   */
  refuse?(selector: string): string | undefined;
}

/** A validated entry with times in microseconds. */
export interface Fault extends Omit<FaultEntry, 'at' | 'duration'> {
  readonly index: number;
  readonly atUs: Micros;
  readonly durationUs?: Micros;
}

function readTime(v: unknown, path: string): Micros {
  if (typeof v === 'number') return ms(expectNumber(v, path, { min: 0 }));
  if (typeof v === 'string') {
    const t = parseDuration(v);
    if (t !== null) return t;
  }
  throw new ValidationError(path, v, 'a time in milliseconds (a number >= 0) or a duration such as "10s", "1500ms", "2m"');
}

/** Reads a list of target selectors, each a host id or a selector the resolver knows (a clear error otherwise). */
export function readSelectors(v: unknown, path: string, resolver: TargetResolver): string[] {
  const arr = expectArray(v, path, { minLength: 1 });
  return arr.map((s, i) => {
    const p = join(path, i);
    const sel = expectString(s, p);
    if (sel === '*' || resolver.hostIds.includes(sel)) return sel;
    if (resolver.prefixes.some((x) => sel.startsWith(x) && sel.length > x.length)) {
      const allowed = resolver.refuse?.(sel);
      if (allowed !== undefined) throw new ValidationError(p, sel, allowed);
      return sel;
    }
    // A typo in a prefix ("zon:z1") or in a host id ("brokr-1").
    const colon = sel.indexOf(':');
    const nearPrefix = colon >= 0 ? didYouMean(sel.slice(0, colon + 1), resolver.prefixes) : undefined;
    const near = nearPrefix !== undefined ? nearPrefix + sel.slice(colon + 1) : didYouMean(sel, resolver.hostIds);
    throw new ValidationError(
      p,
      sel,
      `a host id (${resolver.hostIds.join(', ')}), "*", or a selector starting with ${resolver.prefixes.map((x) => `"${x}"`).join(', ')}`,
      near ? `did you mean "${near}"?` : undefined,
    );
  });
}

/** Checks a fault schedule; every error names the entry, the field, the bad value and what is allowed. */
export function validateSchedule(value: unknown, resolver: TargetResolver, path = 'faults'): Fault[] {
  const arr = expectArray(value, path);
  return arr.map((raw, index) => {
    const p = join(path, index);
    const o = expectObject(raw, p, ENTRY_FIELDS);
    const fault = expectOneOf(o.fault, join(p, 'fault'), FAULT_KINDS);
    const atUs = readTime(o.at, join(p, 'at'));
    const out: { -readonly [K in keyof Fault]?: Fault[K] } = { index, fault, atUs };
    if (o.duration !== undefined) {
      if (!REVERSIBLE.includes(fault)) {
        throw new ValidationError(join(p, 'duration'), o.duration, `no duration for "${fault}" (only ${REVERSIBLE.join(', ')} can be undone)`);
      }
      const d = readTime(o.duration, join(p, 'duration'));
      if (d <= 0) throw new ValidationError(join(p, 'duration'), o.duration, 'a duration > 0');
      out.durationUs = d;
    }
    const needs = (field: 'targets' | 'groups' | 'from' | 'to') => {
      if (o[field] === undefined) throw new ValidationError(join(p, field), undefined, `a list for "${fault}"`);
    };
    const forbid = (...fields: (keyof FaultEntry)[]) => {
      for (const f of fields) {
        if (o[f] !== undefined) throw new ValidationError(join(p, f), o[f], `nothing: "${fault}" does not take "${f}"`);
      }
    };
    switch (fault) {
      case 'crash':
      case 'stop':
      case 'restart':
      case 'power-loss':
      case 'power-on':
      case 'pause':
      case 'resume':
      case 'isolate':
      case 'disk-full':
        needs('targets');
        forbid('groups', 'from', 'to', 'factor', 'rate', 'addMs', 'jitterMs');
        break;
      case 'slow-disk':
        needs('targets');
        forbid('groups', 'from', 'to', 'rate', 'addMs', 'jitterMs');
        out.factor = o.factor === undefined ? 10 : expectNumber(o.factor, join(p, 'factor'), { min: 1 });
        break;
      case 'partition': {
        needs('groups');
        forbid('targets', 'from', 'to', 'factor', 'rate', 'addMs', 'jitterMs');
        const groups = expectArray(o.groups, join(p, 'groups'), { minLength: 2 });
        out.groups = groups.map((g, i) => readSelectors(g, join(join(p, 'groups'), i), resolver));
        break;
      }
      case 'one-way':
      case 'latency':
      case 'lossy':
        needs('from');
        needs('to');
        forbid('targets', 'groups', ...(fault === 'one-way' ? (['factor', 'rate', 'addMs', 'jitterMs'] as const) : ['factor' as const]));
        if (fault === 'lossy') {
          out.rate = expectNumber(o.rate, join(p, 'rate'), { min: 0, max: 1 });
          forbid('addMs', 'jitterMs');
        }
        if (fault === 'latency') {
          forbid('rate');
          out.addMs = o.addMs === undefined ? 0 : expectNumber(o.addMs, join(p, 'addMs'), { min: 0 });
          out.jitterMs = o.jitterMs === undefined ? 0 : expectNumber(o.jitterMs, join(p, 'jitterMs'), { min: 0 });
          if (out.addMs === 0 && out.jitterMs === 0) {
            throw new ValidationError(join(p, 'addMs'), o.addMs, 'a delay > 0 in addMs or jitterMs');
          }
        }
        break;
      case 'heal':
        forbid('groups', 'from', 'to', 'factor', 'rate', 'addMs', 'jitterMs');
        break;
    }
    if (o.targets !== undefined) out.targets = readSelectors(o.targets, join(p, 'targets'), resolver);
    if (o.from !== undefined) out.from = readSelectors(o.from, join(p, 'from'), resolver);
    if (o.to !== undefined) out.to = readSelectors(o.to, join(p, 'to'), resolver);
    return out as Fault;
  });
}

// ---- the random nemesis ----

export interface RandomNemesisOptions {
  /** Fault kinds to draw, with relative weights. */
  readonly kinds: readonly { kind: 'crash' | 'power-loss' | 'pause' | 'isolate' | 'slow-disk' | 'lossy'; weight: number }[];
  /** Hosts that may be hit. */
  readonly targets: readonly string[];
  /** Window in which faults may start (ms). */
  readonly startMs: number;
  readonly endMs: number;
  /** Mean time between fault starts (ms). */
  readonly meanIntervalMs: number;
  /** Each fault lasts between these (ms). */
  readonly minDurationMs: number;
  readonly maxDurationMs: number;
  /** At most this many hosts impaired at once. */
  readonly maxImpaired: number;
  /** After a host recovers, wait this long before impairing another (lets it rejoin). */
  readonly settleMs: number;
  /** Allow two power losses to overlap (the case that breaks acks=all without fsync). */
  readonly correlatedPowerLoss: boolean;
}

/**
 * Draws a fault schedule from its own seeded stream, within a budget. The result is plain data, applied
 * like any hand-written schedule, so a run found by chance can be saved, replayed and shrunk.
 */
export function randomSchedule(random: Random, o: RandomNemesisOptions): FaultEntry[] {
  const out: FaultEntry[] = [];
  const busyUntil = new Map<string, number>(); // host -> time it is healthy and settled again
  const powerLossUntil: number[] = [];
  let t = o.startMs;
  for (;;) {
    t += Math.max(1, Math.round(random.exponential(o.meanIntervalMs)));
    if (t >= o.endMs) break;
    const kind = random.weighted(
      o.kinds.map((k) => k.kind),
      o.kinds.map((k) => k.weight),
    );
    const impaired = o.targets.filter((h) => (busyUntil.get(h) ?? -1) > t);
    if (impaired.length >= o.maxImpaired) continue;
    const free = o.targets.filter((h) => (busyUntil.get(h) ?? -1) <= t);
    if (free.length === 0) continue;
    if (kind === 'power-loss' && !o.correlatedPowerLoss && powerLossUntil.some((u) => u > t)) continue;
    const host = random.choice(free);
    // At least 1 ms: a schedule entry's duration must be > 0 to validate.
    const duration = Math.max(1, Math.round(random.float(o.minDurationMs, o.maxDurationMs)));
    busyUntil.set(host, t + duration + o.settleMs);
    if (kind === 'power-loss') powerLossUntil.push(t + duration + o.settleMs);
    const base = { at: t, duration };
    switch (kind) {
      case 'crash':
      case 'power-loss':
      case 'pause':
      case 'isolate':
        out.push({ ...base, fault: kind, targets: [host] });
        break;
      case 'slow-disk':
        out.push({ ...base, fault: kind, targets: [host], factor: 20 });
        break;
      case 'lossy':
        out.push({ ...base, fault: kind, from: [host], to: ['*'], rate: 0.05 });
        break;
    }
  }
  return out;
}
