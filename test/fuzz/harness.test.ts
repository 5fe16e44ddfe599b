import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FuzzCase } from './cases';
import { SPIN_FOR_EVER, WAIT_FOR_EVER, runCases } from './harness';

/*
 * The fuzz harness judges a case by its own CPU time, so a busy machine does not make a slow case a hang; and it
 * still catches a real one: a case that spins for ever (past the CPU limit), and one that waits for ever (no
 * CPU time at all). A case that answers is not touched.
 */
const argv = (...a: string[]): FuzzCase => ({ kind: 'argv', argv: a, mustReject: null }) as unknown as FuzzCase;

describe('the fuzz harness', () => {
  it('calls a spinning case and a waiting case hangs, and lets an answering one through', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'kafkasim-harness-'));
    try {
      const outcomes = await runCases([argv(SPIN_FOR_EVER), argv(WAIT_FOR_EVER), argv('list', '--json')], { workers: 1, limitMs: 1000, idleMs: 1500, tmp });
      expect(outcomes.map((o) => o.code)).toEqual(['hang', 'hang', 0]);
      expect(outcomes[0]!.err).toMatch(/^more than 1000 ms of CPU time without an answer$/);
      expect(outcomes[0]!.cpuMs).toBeGreaterThan(1000);
      expect(outcomes[1]!.err).toMatch(/^no CPU time used for \d+ s: waiting for something that never comes$/);
      expect(outcomes[1]!.cpuMs).toBeLessThan(500);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000); // three worker threads boot tsx (a second or two each), and each hang is waited for
});
