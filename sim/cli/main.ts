/**
 * The `kafkasim` command. Runs outside any simulation: it reads arguments and files and writes to the
 * terminal. Exit codes: 0 all expectations held, 1 an expectation failed, 2 bad input.
 */
import { CliError, runCli } from './commands';

try {
  const code = runCli(process.argv.slice(2), {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    color: !process.env.NO_COLOR && process.stdout.isTTY === true,
  });
  process.exitCode = code;
} catch (e) {
  if (e instanceof CliError) {
    process.stderr.write(`kafkasim: ${e.message}\n`);
    process.exitCode = 2;
  } else {
    throw e;
  }
}
