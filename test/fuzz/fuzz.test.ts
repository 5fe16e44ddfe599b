import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FIXED_SEED } from '../support/fastCheckSeed';
import { CASE_LIMIT_MS, campaign } from './campaign';

/*
 * The CLI under fuzz (issue 23's "done means"): scenario documents and command lines drawn by fast-check, each
 * run through the real CLI in a worker thread under a CPU-time limit watched from outside (harness.ts). `npm test` draws
 * a modest number from the fixed seed; `npm run fuzz` (KAFKASIM_FUZZ=1) draws FUZZ_CASES (default 10,000)
 * from a fresh seed, printed, so a failure can be replayed with DEFAULT_SEED=<seed>.
 */
const fuzzing = process.env.KAFKASIM_FUZZ === '1';
const chosen = process.env.DEFAULT_SEED;
const seed = chosen !== undefined && chosen !== '' ? Number(chosen) : fuzzing ? Date.now() % 2 ** 31 : FIXED_SEED;
const cases = Number(process.env.FUZZ_CASES ?? (fuzzing ? 10_000 : 120));
const workers = Math.max(1, Math.min(2, availableParallelism()));
const limitMs = Number(process.env.FUZZ_LIMIT_MS ?? CASE_LIMIT_MS);

describe('the CLI under fuzz', () => {
  it(
    `${cases} cases (seed ${seed}): no stack trace, no hang, no multi-line error, no nonsense accepted`,
    async () => {
      const r = await campaign({ cases, seed, workers, limitMs });
      const summary = `fuzz: ${r.cases} cases (seed ${seed}) in ${Math.round(r.wallMs / 1000)} s: ${r.figures['stack-trace']} stack traces, ${r.figures.hang} hangs, ${r.figures['multi-line-error']} multi-line errors, ${r.figures['accepted-nonsense']} nonsense accepted, ${r.figures.died} workers died; ${r.ran.length} ran a scenario; exit codes ${JSON.stringify(r.codes)}${r.slow.length > 0 ? `; slow: ${r.slow.map((x) => `${x.what} (${Math.round(x.wallMs / 1000)} s)`).join(', ')}` : ''}`;
      console.log(summary);
      const shown = r.findings.slice(0, 20).map((f) => `\n  ${f.verdict}: ${f.what}\n      ${f.detail}`).join('');
      expect(r.findings.length, `${summary}${shown}\nreplay: DEFAULT_SEED=${seed} FUZZ_CASES=${cases} npx vitest run --project fuzz`).toBe(0);
      // The draw reaches every part: documents that run, documents refused, command lines of each kind.
      expect(r.ran.length).toBeGreaterThan(cases / 20);
      expect(r.codes['2'] ?? 0).toBeGreaterThan(cases / 4);
    },
    Math.max(600_000, cases * 2_000),
  );
});
