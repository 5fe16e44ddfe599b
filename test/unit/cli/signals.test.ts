import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../../support/scratch';

/**
 * `kafkasim explore` as a process, stopped by a signal while it sweeps: it tells its workers to stop, writes a
 * final summary record to the findings file, says so in one line and exits 128 + the signal's number.
 */
async function interrupt(signal: 'SIGINT' | 'SIGTERM'): Promise<{ code: number | null; err: string; last: Record<string, unknown> }> {
  const { dir } = scratch(`signal-${signal}`);
  const child = spawn(process.execPath, ['bin/kafkasim.js', 'explore', '--property', 'no-acked-loss', '--runs', '10000', '--workers', '1', '--seed', '3', '--duration', '4s', '--out', dir], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const findings = join(dir, 'findings-no-acked-loss-3.jsonl');
  // Wait until the sweep has begun (its first record is written), then a little more so runs are under way.
  for (let i = 0; i < 600 && !existsSync(findings); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1500));
  child.kill(signal);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const lines = readFileSync(findings, 'utf8').trimEnd().split('\n');
  return { code, err, last: JSON.parse(lines[lines.length - 1]!) };
}

describe('signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %d, the findings end with a summary, one line says so', async (signal, exitCode) => {
    const r = await interrupt(signal);
    expect(r.code).toBe(exitCode);
    expect(r.last).toMatchObject({ type: 'done', interrupted: signal, failures: expect.any(Number), runs: expect.any(Number) });
    expect(r.err).toMatch(new RegExp(`kafkasim: explore interrupted by ${signal} after \\d+ runs? \\(\\d+ failures?\\); the findings so far are in `));
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});
