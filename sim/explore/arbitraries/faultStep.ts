import fc from 'fast-check';

/** The fault verbs exploration draws, simplest first (shrinking moves toward the first). */
export const STEP_KINDS = ['crash', 'power-loss', 'pause', 'isolate', 'partition', 'one-way', 'slow-disk'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/**
 * One fault before it meets a scenario: a verb, which target (an index into the scenario's palette), how
 * it cuts (for network faults: from whom, which direction; for a slow disk: how slow), when and for how
 * long (in tenths of a second). Small integers, each shrinking toward the simplest fault: a crash of the
 * first partition's leader, at the start, for half a second.
 */
export interface FaultStep {
  readonly kind: StepKind;
  readonly target: number;
  readonly variant: number;
  /** Start in tenths of a second: from the window's start, or (one at a time) after the previous fault settled. */
  readonly at: number;
  readonly duration: number;
}

export interface FaultStepConstraints {
  readonly kinds?: readonly StepKind[];
  /** Latest start, in tenths of a second. */
  readonly maxAt: number;
  /** Shortest and longest duration, in tenths of a second. */
  readonly minDuration?: number;
  readonly maxDuration: number;
}

export function faultStep(c: FaultStepConstraints): fc.Arbitrary<FaultStep> {
  return fc.record({
    kind: fc.constantFrom(...(c.kinds ?? STEP_KINDS)),
    // Index 0 is the leader of the first partition: the host whose failure matters most, drawn often.
    target: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.nat({ max: 63 }), weight: 2 }),
    variant: fc.nat({ max: 5 }),
    at: fc.nat({ max: c.maxAt }),
    duration: fc.integer({ min: c.minDuration ?? 5, max: c.maxDuration }),
  });
}
