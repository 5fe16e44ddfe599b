/**
 * The `kafkasim` command. Runs outside any simulation: it reads arguments and files and writes to the
 * terminal. Exit codes: 0 all expectations held, 1 an expectation failed, 2 bad input.
 */
import { CliError, runCli } from './commands';

try {
  const code = runCli(process.argv.slice(2), { // determinism-ok: runs outside any simulation
    out: (s) => process.stdout.write(s), // determinism-ok: runs outside any simulation
    err: (s) => process.stderr.write(s), // determinism-ok: runs outside any simulation
    color: !process.env.NO_COLOR && process.stdout.isTTY === true, // determinism-ok: runs outside any simulation
  });
  process.exitCode = code; // determinism-ok: runs outside any simulation
} catch (e) {
  if (e instanceof CliError) {
    process.stderr.write(`kafkasim: ${e.message}\n`); // determinism-ok: runs outside any simulation
    process.exitCode = 2; // determinism-ok: runs outside any simulation
  } else {
    throw e;
  }
}
