/**
 * The CLI's exit codes, one meaning each:
 *   0  every expectation (or the explored property) held
 *   1  an expectation failed (explore: a counterexample was found)
 *   2  bad input: one line naming the field, the bad value and what is allowed
 *   3  an internal error: a bug in kafkasim, reported in one line with what is needed to reproduce it
 *   130, 143  interrupted by SIGINT or SIGTERM (128 + the signal's number, as shells do)
 */
export const EXIT = { ok: 0, failed: 1, badInput: 2, internal: 3, sigint: 130, sigterm: 143 } as const;

/** A mistake in what the user asked for: printed as one line, exit code 2, never a stack trace. */
export class CliError extends Error {}

/**
 * Something broke inside kafkasim while doing what was asked (not the user's fault): exit code 3. `context`
 * says how to reproduce it (the scenario, the seed, the run of a sweep), for the bug report.
 */
export class InternalError extends Error {
  constructor(
    message: string,
    readonly context: string,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'InternalError';
    // The stack that matters for the report is where it broke, not where it was wrapped.
    if (cause instanceof Error && cause.stack) this.stack = cause.stack;
  }

  /** `e` as an internal error of `context`; errors of the input (CliError, InternalError) pass as they are. */
  static wrap(e: unknown, context: string): Error {
    if (e instanceof CliError || e instanceof InternalError) return e;
    if (e instanceof Error && e.name === 'ValidationError') return e;
    const message = e instanceof Error ? `${e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}` : String(e);
    return new InternalError(message, context, e);
  }
}

/** The exit codes in words, for --help. */
export const EXIT_CODES_HELP = `
Exit codes: 0 every expectation held, 1 one failed (explore: a counterexample was found), 2 bad input (one
line says which field, which value and what is allowed), 3 an internal error (a bug in kafkasim: the line
says what to report), 130 / 143 interrupted by SIGINT / SIGTERM.
`;
