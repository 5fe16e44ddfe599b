import { ValidationError, oneLine } from '../core/validate';
import { runCli, type CliIo } from './commands';
import { CliError, EXIT, InternalError } from './errors';

export interface ExitOptions {
  /** Print the stack of an internal error too (KAFKASIM_DEBUG=1). */
  readonly debug?: boolean;
}

/**
 * The one place where every outcome of a command line becomes an exit code and at most one line on stderr:
 * 0/1 from the command, 2 for a mistake in the input (a CliError, or a ValidationError no command wrapped),
 * 3 for anything else — an internal error, reported as one line that says it is a bug and what to report
 * (the command line, and the scenario and seed when they are known), with the stack only under `debug`.
 */
export async function runWithExitCode(argv: string[], io: CliIo, opts: ExitOptions = {}, run: typeof runCli = runCli): Promise<number> {
  try {
    return await run(argv, io);
  } catch (e) {
    if (e instanceof CliError || e instanceof ValidationError) {
      io.err(`kafkasim: ${oneLine(e.message)}\n`);
      return EXIT.badInput;
    }
    io.err(internalErrorLine(e, argv) + '\n');
    if (opts.debug && e instanceof Error && e.stack) io.err(e.stack + '\n');
    return EXIT.internal;
  }
}

/** "kafkasim: internal error: <what> — a bug in kafkasim, not in your input; please report it with ...". */
export function internalErrorLine(e: unknown, argv: readonly string[]): string {
  const message = e instanceof InternalError ? e.message : e instanceof Error ? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}` : String(e);
  const command = oneLine(`kafkasim ${argv.join(' ')}`, 160);
  const context = e instanceof InternalError ? `${e.context}; ${command}` : `${command}; the seed is --seed's or the scenario's`;
  return oneLine(`kafkasim: internal error: ${message.split('\n')[0]} — a bug in kafkasim, not in your input; please report it with this line (${context}; KAFKASIM_DEBUG=1 adds the stack)`, 600);
}
