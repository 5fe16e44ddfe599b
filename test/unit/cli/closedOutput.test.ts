import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { endQuietlyWhenReaderGoes, readerGone } from '../../../sim/cli/closedOutput';

/**
 * `kafkasim list | head`: the reader closes the pipe, and the command ends quietly with exit 0, as Unix tools
 * do, instead of dying of an unhandled EPIPE with a stack trace.
 */
function withClosedStdout(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, ['bin/kafkasim.js', ...args], { env: { ...process.env, NO_COLOR: '1' } });
  // The reader is gone before the command writes its first byte.
  child.stdout.destroy();
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, err })));
}

describe('a closed stdout', () => {
  it.each([[['list']], [['list', '--json']], [['run', 'acks1-leader-crash', '--duration', '2s', '--json']]])(
    'kafkasim %j ends with exit 0 and no stack trace',
    async (args) => {
      const r = await withClosedStdout(args);
      expect(r.err).not.toMatch(/EPIPE|\n\s+at /);
      expect(r.code).toBe(0);
    },
    60_000,
  );

  it('only a reader that went away ends the command; other write errors still surface', () => {
    expect(readerGone(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
    expect(readerGone(Object.assign(new Error('destroyed'), { code: 'ERR_STREAM_DESTROYED' }))).toBe(true);
    expect(readerGone(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe(false);
    expect(readerGone(null)).toBe(false);
    const exits: number[] = [];
    const s = new PassThrough();
    endQuietlyWhenReaderGoes(s, (c) => exits.push(c));
    s.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(exits).toEqual([0]);
    expect(() => s.emit('error', Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toThrow('no space');
  });
});
