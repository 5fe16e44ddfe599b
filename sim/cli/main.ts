/**
 * The `kafkasim` command. Runs outside any simulation: it reads arguments and files and writes to the
 * terminal. Exit codes (errors.ts): 0 all expectations held, 1 an expectation failed, 2 bad input, 3 an
 * internal error.
 */
import { runWithExitCode } from './exitCode';

process.exitCode = await runWithExitCode(process.argv.slice(2), { // determinism-ok: runs outside any simulation
  out: (s) => process.stdout.write(s), // determinism-ok: runs outside any simulation
  err: (s) => process.stderr.write(s), // determinism-ok: runs outside any simulation
  color: !process.env.NO_COLOR && process.stdout.isTTY === true, // determinism-ok: runs outside any simulation
}, { debug: process.env.KAFKASIM_DEBUG === '1' }); // determinism-ok: runs outside any simulation
