import { runWithExitCode } from '../../sim/cli/exitCode';

/**
 * Runs the CLI in this process, capturing what it prints, through the same exit-code boundary as bin/kafkasim:
 * exit 2 with one line for bad input, 3 for an internal error.
 */
export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runWithExitCode(args, { out: (s) => (out += s), err: (s) => (err += s), color: false });
  return { code, out, err };
}
