import { bool, defineKinds, list, nullable, num, obj, optional, str, type KindsOf } from '../../core/traceSchema';

/** The run's own moments and its ground truth, written by the scenario runner for the checkers to read. */
export const RUN_KINDS = defineKinds({
  /**
   * Ground truth at the end of a run, one per partition: the committed log of the healed cluster (from the
   * leader, or the most complete replica when there is none). `offsets[i]` holds `values[i]`.
   */
  'final.partition': {
    topic: str,
    partition: num,
    leader: num,
    leaderEpoch: num,
    replicas: list(num),
    isr: list(num),
    elr: list(num),
    highWatermark: num,
    logEndOffset: num,
    logStartOffset: num,
    compacted: bool,
    offline: bool,
    offsets: list(num),
    keys: list(nullable(str)),
    values: list(nullable(str)),
    /** Replicas whose log holds a different record than this one at some offset below the high watermark. */
    diverged: optional(list(obj({ broker: num, offsets: list(num), values: list(nullable(str)) }))),
  },
  /** The run reached its end (after the quiet period): the last event of a complete trace. */
  'scenario.end': { durationMs: num, quietMs: num },
  /** The quiet period began: faults undone, producers stopped. */
  'scenario.quiet': {},
  /** A caption of a guided scenario, at its moment; `about` is the sequence number of the event it describes (an anchored caption). */
  caption: { text: str, about: optional(num) },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof RUN_KINDS> {}
}
declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof RUN_KINDS> {}
}
