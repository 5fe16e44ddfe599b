/**
 * The `kafkasim` command. Runs outside any simulation: it reads arguments and files and writes to the
 * terminal. Exit codes (errors.ts): 0 all expectations held, 1 an expectation failed, 2 bad input, 3 an
 * internal error.
 */
import { endQuietlyWhenReaderGoes } from './closedOutput';
import { runWithExitCode } from './exitCode';

// A closed stdout or stderr (`kafkasim list | head`) ends the command quietly with 0 (closedOutput.ts).
const exitNow = (code: number): void => process.exit(code); // determinism-ok: runs outside any simulation
endQuietlyWhenReaderGoes(process.stdout, exitNow); // determinism-ok: runs outside any simulation
endQuietlyWhenReaderGoes(process.stderr, exitNow); // determinism-ok: runs outside any simulation

process.exitCode = await runWithExitCode(process.argv.slice(2), { // determinism-ok: runs outside any simulation
  out: (s) => process.stdout.write(s), // determinism-ok: runs outside any simulation
  err: (s) => process.stderr.write(s), // determinism-ok: runs outside any simulation
  color: !process.env.NO_COLOR && process.stdout.isTTY === true, // determinism-ok: runs outside any simulation
}, { debug: process.env.KAFKASIM_DEBUG === '1' }); // determinism-ok: runs outside any simulation
