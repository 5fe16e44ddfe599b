import fc from 'fast-check';
import type { FaultEntry } from '../../world/nemesis';
import type { Budget } from '../budget';
import { CUT_SIDES, type FaultPalette } from '../palette';
import { faultStep, type FaultStep, type StepKind } from './faultStep';

export interface ScheduleWindow {
  /** Faults start at or after this (ms of scenario time). */
  readonly startMs: number;
  /** ... and before this (the scenario's duration: every entry must start within it). */
  readonly endMs: number;
  /** Longest fault, ms. */
  readonly maxDurationMs: number;
  /** one-at-a-time: the pause after a fault ends before the next may start, ms. */
  readonly settleMs: number;
  /** Most entries in a schedule. */
  readonly maxFaults: number;
  readonly kinds?: readonly StepKind[];
}

const SLOW_FACTORS = [20, 5, 100];

/**
 * Turns abstract steps into a scenario's fault entries under a budget. The budget is kept by construction,
 * so every shrink of a schedule keeps it too: one at a time, steps follow each other (each starts `at`
 * after the previous one ended and settled) and name one host; otherwise steps start at absolute times,
 * and without correlated power loss a power loss names one host and is dropped when it would overlap an
 * earlier one. Entries that would start after the window are dropped.
 */
export function materializeSchedule(steps: readonly FaultStep[], palette: FaultPalette, budget: Budget, w: ScheduleWindow): FaultEntry[] {
  const out: FaultEntry[] = [];
  const powerLoss: { from: number; to: number }[] = [];
  let cursor = w.startMs;
  for (const s of steps) {
    const duration = s.duration * 100;
    const at = budget === 'one-at-a-time' ? cursor + s.at * 100 : w.startMs + s.at * 100;
    if (at >= w.endMs) continue;
    const severalAllowed = budget === 'none' || (budget === 'no-correlated-power-loss' && s.kind !== 'power-loss');
    const choices = severalAllowed ? palette.single.length + palette.several.length : palette.single.length;
    const pick = s.target % choices;
    const targets = pick < palette.single.length ? [palette.single[pick]!] : [...palette.several[pick - palette.single.length]!];
    if (budget === 'no-correlated-power-loss' && s.kind === 'power-loss') {
      if (powerLoss.some((p) => at < p.to && p.from < at + duration)) continue;
      powerLoss.push({ from: at, to: at + duration });
    }
    out.push(entry(s, targets, at, duration));
    cursor = at + duration + w.settleMs;
  }
  return out;
}

function entry(s: FaultStep, targets: string[], at: number, duration: number): FaultEntry {
  const side = [...CUT_SIDES[s.variant % CUT_SIDES.length]!];
  switch (s.kind) {
    case 'crash':
    case 'power-loss':
    case 'pause':
    case 'isolate':
      return { at, fault: s.kind, targets, duration };
    case 'slow-disk':
      return { at, fault: s.kind, targets, duration, factor: SLOW_FACTORS[s.variant % SLOW_FACTORS.length]! };
    case 'partition':
      // The target with its clients on one side, the cluster (or part of it) on the other.
      return { at, fault: 'partition', groups: [targets, side], duration };
    case 'one-way':
      // Variants 0-2: the target's messages to that side are lost; 3-5: that side's messages to the target.
      return s.variant < CUT_SIDES.length ? { at, fault: 'one-way', from: targets, to: side, duration } : { at, fault: 'one-way', from: side, to: targets, duration };
  }
}

/** The steps of a schedule: no minimum length, so shrinking can halve it down to the one fault that matters. */
export function faultSteps(w: ScheduleWindow, budget: Budget): fc.Arbitrary<FaultStep[]> {
  const span = Math.max(0, w.endMs - w.startMs);
  // One at a time, `at` is a gap after the previous fault; otherwise an offset into the window.
  const maxAt = Math.floor((budget === 'one-at-a-time' ? Math.min(span, 5_000) : span) / 100);
  return fc.array(faultStep({ maxAt, maxDuration: Math.max(5, Math.floor(w.maxDurationMs / 100)), ...(w.kinds && { kinds: w.kinds }) }), { maxLength: w.maxFaults });
}

/** A fault schedule for a scenario with this palette, kept within the budget. */
export function faultSchedule(palette: FaultPalette, budget: Budget, w: ScheduleWindow): fc.Arbitrary<FaultEntry[]> {
  return faultSteps(w, budget).map((steps) => materializeSchedule(steps, palette, budget, w));
}
