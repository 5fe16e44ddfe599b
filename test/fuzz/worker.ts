/** A fuzz worker thread: runs the cases it is sent through the CLI, in this thread, and says what came out. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { cli } from '../support/cli';
import { SPIN_FOR_EVER, WAIT_FOR_EVER } from './harness';
import { ownThreadId } from '../support/threadCpu';
import type { FuzzCase } from './cases';

const { tmp, index } = workerData as { tmp: string; index: number };

/** The command line a case stands for, with `$TMP` filled in and a document case's file written. */
export function commandLine(c: FuzzCase, id: number, dir: string, worker: number): string[] {
  if (c.kind === 'argv') return c.argv.map((a) => a.replaceAll('$TMP', dir));
  const file = join(dir, `doc-${worker}-${id}.json`);
  writeFileSync(file, c.text);
  return ['run', file, ...(c.json ? ['--json'] : [])];
}


parentPort!.on('message', async (m: { id: number; c: FuzzCase }) => {
  const t0 = performance.now();
  let reply;
  if (m.c.kind === 'argv' && m.c.argv[0] === SPIN_FOR_EVER) for (;;);
  if (m.c.kind === 'argv' && m.c.argv[0] === WAIT_FOR_EVER) await new Promise(() => {});
  try {
    const r = await cli(commandLine(m.c, m.id, tmp, index));
    reply = { id: m.id, code: r.code, out: r.out.slice(0, 2000), err: r.err.slice(0, 100_000) };
  } catch (e) {
    reply = { id: m.id, code: 'threw', out: '', err: e instanceof Error ? (e.stack ?? e.message).slice(0, 4000) : String(e) };
  }
  parentPort!.postMessage({ ...reply, wallMs: Math.round(performance.now() - t0) });
});
parentPort!.postMessage({ ready: true, tid: ownThreadId() });
