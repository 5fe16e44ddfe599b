/** What became of one case, as the harness saw it from outside the worker that ran it. */
export interface Outcome {
  /**
   * The exit code, 'threw' (an exception escaped the CLI), 'hang' (past the CPU-time limit, or no progress at all:
   * see harness.ts), or 'died' (the worker thread died: out of memory, say).
   */
  readonly code: number | 'threw' | 'hang' | 'died';
  readonly out: string;
  readonly err: string;
  readonly wallMs: number;
  /** The CPU time the case's thread used (null where it cannot be read). */
  readonly cpuMs?: number | null;
}

export type Verdict = 'ok' | 'stack-trace' | 'hang' | 'died' | 'multi-line-error' | 'accepted-nonsense';

/** Errors longer than this are not "one line" a person reads, whatever their newlines. */
export const MAX_ERROR_CHARS = 600;

/**
 * Judges an outcome: exit 0/1 (a run, an expectation held or failed) and exit 2 with one short line are fine;
 * exit 3 (an internal error) or an exception is a stack trace; a case the validator should have refused and
 * that ran instead is nonsense accepted silently.
 */
export function judge(o: Outcome, mustReject: string | null): Verdict {
  if (o.code === 'hang') return 'hang';
  if (o.code === 'died') return 'died';
  if (o.code === 'threw' || o.code === 3 || o.code < 0 || o.code > 3) return 'stack-trace';
  if (o.code === 2) {
    const msg = o.err.replace(/\n$/, '');
    return msg.length === 0 || msg.includes('\n') || msg.length > MAX_ERROR_CHARS ? 'multi-line-error' : 'ok';
  }
  return mustReject !== null ? 'accepted-nonsense' : 'ok';
}
