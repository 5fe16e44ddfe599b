/**
 * A fuzz campaign from the command line, for long runs and for measuring a commit:
 *   npx tsx test/fuzz/main.ts [--cases N] [--seed S] [--workers K] [--limit-ms L] [--json]
 * Prints the figures (stack traces, hangs, multi-line errors, nonsense accepted) and every finding.
 */
import { availableParallelism } from 'node:os';
import { CASE_LIMIT_MS, campaign } from './campaign';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const r = await campaign({
  cases: arg('cases', 1000),
  seed: arg('seed', Date.now() % 2 ** 31),
  workers: arg('workers', Math.min(2, availableParallelism())),
  limitMs: arg('limit-ms', CASE_LIMIT_MS),
  onProgress: (d, t) => {
    if (d % 100 === 0 || d === t) process.stderr.write(`${d}/${t}\n`);
  },
});
if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify({ seed: r.seed, cases: r.cases, figures: r.figures, codes: r.codes, ran: r.ran.length, slow: r.slow, wallMs: r.wallMs, findings: r.findings }) + '\n');
} else {
  process.stdout.write(`seed ${r.seed}: ${r.cases} cases in ${(r.wallMs / 1000).toFixed(0)} s; ${r.ran.length} ran a scenario\n`);
  process.stdout.write(`${JSON.stringify(r.figures)}\nexit codes ${JSON.stringify(r.codes)}\n`);
  for (const f of r.findings) process.stdout.write(`${f.verdict}: ${f.what}\n    ${f.detail}\n`);
  for (const x of r.slow) process.stdout.write(`slow (${Math.round(x.wallMs / 1000)} s, ${x.cpuMs === null ? '?' : Math.round(x.cpuMs / 1000)} s of CPU): ${x.what}\n`);
}
