import { CliError, runCli } from '../../sim/cli/commands';

/** Runs the CLI in this process, capturing what it prints; a bad-input error is exit code 2, as bin/kafkasim does. */
export function cli(args: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  try {
    const code = runCli(args, { out: (s) => (out += s), err: (s) => (err += s), color: false });
    return { code, out, err };
  } catch (e) {
    if (e instanceof CliError) return { code: 2, out, err: e.message };
    throw e;
  }
}
