/**
 * What the application around a consumer does with the records it polls: plain data in a scenario.
 *
 * The application thread runs the classic loop: poll(pollTimeoutMs) -> process the records -> commit per the
 * strategy -> poll again. Processing takes simulated time; the group protocol only moves forward when the
 * application polls, so slow processing delays rebalances and, past max.poll.interval.ms, gets the member
 * evicted.
 */
import type { Random } from '../../../core/random';
import { ValidationError, join } from '../../../core/validate';

/** Time to process one record. */
export type ProcessingTime =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'exponential'; readonly meanMs: number }
  | { readonly kind: 'normal'; readonly meanMs: number; readonly stddevMs: number };

/**
 * How the application commits:
 * - `auto`: it does not; enable.auto.commit does (poll N+1 commits what poll N returned).
 * - `sync`: commitSync() after processing each poll's records (at-least-once).
 * - `async`: commitAsync() after each poll's records.
 * - `before-processing`: commitSync() right after poll(), before processing (at-most-once).
 * - `none`: never (only auto-commit, if enabled, commits).
 */
export type CommitStrategy = 'auto' | 'sync' | 'async' | 'before-processing' | 'none';

/**
 * What happens to a poison pill (a record whose processing always fails):
 * - `retry-forever`: the application seeks back to it and tries again after every poll: its partition is blocked
 *   (other partitions go on);
 * - `skip`: log it and go on;
 * - `dead-letter`: after `attempts` failed tries, write it to `topic` (a dead-letter or retry topic) and go on once
 *   that write is acknowledged.
 * `backoffMs` is spent after each failed try (the application sleeps before it polls again).
 */
export type PoisonPolicy =
  | { readonly kind: 'retry-forever'; readonly backoffMs?: number }
  | { readonly kind: 'skip' }
  | { readonly kind: 'dead-letter'; readonly topic: string; readonly attempts: number; readonly backoffMs?: number };

/** Records whose key or value starts with a prefix are poison pills. */
export interface PoisonPill {
  readonly keyPrefix?: string;
  readonly valuePrefix?: string;
  readonly policy: PoisonPolicy;
}

/** Where a seek moves every assigned partition. */
export type SeekTarget = 'beginning' | 'end' | { readonly offset: number } | { readonly timestampMs: number };

export interface ProcessingModel {
  /** When the application starts (subscribes or assigns, then polls), ms. Default 0. */
  readonly startMs?: number;
  /** When it calls close() (commit if auto-commit, leave the group, exit), ms. Default: never. */
  readonly stopMs?: number;
  /** The timeout it passes to poll(), ms. Default 100. */
  readonly pollTimeoutMs?: number;
  /** Per-record processing time, drawn from the consumer's own random stream. Default fixed 0. */
  readonly recordTime?: ProcessingTime;
  /** Default `auto`. */
  readonly commit?: CommitStrategy;
  readonly poisonPills?: readonly PoisonPill[];
  /**
   * Processing handed to another thread: poll() returns, the records go to a worker queue and the application
   * polls again at once. With auto-commit the positions are committed before the worker has processed the
   * records (the at-most-once trap). When more than `maxQueuedRecords` wait, fetching is paused.
   */
  readonly handoff?: { readonly maxQueuedRecords?: number };
  /** The application stops polling for a while (a long GC of the application thread, a blocking call). */
  readonly stalls?: readonly { readonly atMs: number; readonly durationMs: number }[];
  /** Seeks of every assigned partition at a given time (a group that rewinds to replay). */
  readonly seeks?: readonly { readonly atMs: number; readonly to: SeekTarget }[];
}

/** The model with defaults filled in. */
export interface ResolvedProcessingModel {
  readonly startMs: number;
  readonly stopMs: number;
  readonly pollTimeoutMs: number;
  readonly recordTime: ProcessingTime;
  readonly commit: CommitStrategy;
  readonly poisonPills: readonly PoisonPill[];
  readonly handoff: { readonly maxQueuedRecords: number } | null;
  readonly stalls: readonly { readonly atMs: number; readonly durationMs: number }[];
  readonly seeks: readonly { readonly atMs: number; readonly to: SeekTarget }[];
}

const COMMIT_STRATEGIES: readonly CommitStrategy[] = ['auto', 'sync', 'async', 'before-processing', 'none'];

function nonNegative(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ValidationError(path, v, 'a number >= 0');
  return v;
}

/** Fills defaults and checks every field, with errors that name the field. */
export function resolveProcessingModel(m: ProcessingModel | undefined, path = 'processing'): ResolvedProcessingModel {
  const model = m ?? {};
  const recordTime = model.recordTime ?? { kind: 'fixed', ms: 0 };
  switch (recordTime.kind) {
    case 'fixed':
      nonNegative(recordTime.ms, join(path, 'recordTime.ms'));
      break;
    case 'exponential':
      nonNegative(recordTime.meanMs, join(path, 'recordTime.meanMs'));
      break;
    case 'normal':
      nonNegative(recordTime.meanMs, join(path, 'recordTime.meanMs'));
      nonNegative(recordTime.stddevMs, join(path, 'recordTime.stddevMs'));
      break;
    default:
      throw new ValidationError(join(path, 'recordTime.kind'), (recordTime as { kind: unknown }).kind, 'fixed, exponential or normal');
  }
  const commit = model.commit ?? 'auto';
  if (!COMMIT_STRATEGIES.includes(commit)) throw new ValidationError(join(path, 'commit'), commit, COMMIT_STRATEGIES.join(', '));
  (model.poisonPills ?? []).forEach((p, i) => {
    const pp = join(path, `poisonPills[${i}]`);
    if (p.keyPrefix === undefined && p.valuePrefix === undefined) throw new ValidationError(pp, p, 'a keyPrefix or a valuePrefix');
    if (p.policy.kind === 'dead-letter') {
      if (typeof p.policy.topic !== 'string' || p.policy.topic.length === 0) throw new ValidationError(join(pp, 'policy.topic'), p.policy.topic, 'a topic name');
      if (!Number.isInteger(p.policy.attempts) || p.policy.attempts < 1) throw new ValidationError(join(pp, 'policy.attempts'), p.policy.attempts, 'an integer >= 1');
    }
    if (p.policy.kind !== 'skip' && p.policy.backoffMs !== undefined) nonNegative(p.policy.backoffMs, join(pp, 'policy.backoffMs'));
  });
  (model.stalls ?? []).forEach((s, i) => {
    nonNegative(s.atMs, join(path, `stalls[${i}].atMs`));
    nonNegative(s.durationMs, join(path, `stalls[${i}].durationMs`));
  });
  (model.seeks ?? []).forEach((s, i) => nonNegative(s.atMs, join(path, `seeks[${i}].atMs`)));
  const pollTimeoutMs = model.pollTimeoutMs ?? 100;
  nonNegative(pollTimeoutMs, join(path, 'pollTimeoutMs'));
  return {
    startMs: nonNegative(model.startMs ?? 0, join(path, 'startMs')),
    stopMs: model.stopMs === undefined ? Infinity : nonNegative(model.stopMs, join(path, 'stopMs')),
    pollTimeoutMs,
    recordTime,
    commit,
    poisonPills: model.poisonPills ?? [],
    handoff: model.handoff ? { maxQueuedRecords: model.handoff.maxQueuedRecords ?? 10_000 } : null,
    stalls: [...(model.stalls ?? [])].sort((a, b) => a.atMs - b.atMs),
    seeks: [...(model.seeks ?? [])].sort((a, b) => a.atMs - b.atMs),
  };
}

/** One record's processing time in ms (never negative). */
export function drawProcessingMs(t: ProcessingTime, random: Random): number {
  switch (t.kind) {
    case 'fixed':
      return t.ms;
    case 'exponential':
      return t.meanMs > 0 ? random.exponential(t.meanMs) : 0;
    case 'normal':
      return Math.max(0, random.normal(t.meanMs, t.stddevMs));
  }
}

/** The poison-pill rule a record matches, if any (the first that matches). */
export function poisonPillFor(pills: readonly PoisonPill[], key: string | null, value: string | null): PoisonPill | undefined {
  for (const p of pills) {
    if (p.keyPrefix !== undefined && key !== null && key.startsWith(p.keyPrefix)) return p;
    if (p.valuePrefix !== undefined && value !== null && value.startsWith(p.valuePrefix)) return p;
  }
  return undefined;
}
