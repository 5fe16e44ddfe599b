/**
 * Before/after proof for refactors: prints, one JSON line per run, the trace hash and the sorted check report
 * of every library scenario and of a set of chaos runs. Run it on two commits and diff the files:
 *
 *   npx tsx test/support/reportSnapshot.ts > /tmp/before.jsonl      (on the old commit)
 *   npx tsx test/support/reportSnapshot.ts > /tmp/after.jsonl       (on the new one)
 *   diff /tmp/before.jsonl /tmp/after.jsonl                         (empty = the same runs, the same reports)
 *
 * Options: --chaos=N (default 8 chaos runs), --only=<id substring>, --no-hash (reports only: for a change that
 * alters the trace's bytes on purpose but must keep every verdict).
 */
import { librarySpecs } from '../../sim/cli/library';
import { validateScenario } from '../../sim/scenario/validate';
import { runScenario } from '../../sim/scenario/runner';
import { chaosScenario } from '../bench/chaosScenario';
import type { ScenarioSpec } from '../../sim/scenario/spec';

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) out[k] = sorted((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const chaosRuns = Number(opt('chaos') ?? 8);
const only = opt('only');
const withHash = !args.includes('--no-hash');

const runs: { name: string; spec: ScenarioSpec }[] = librarySpecs().map((spec) => ({ name: spec.id, spec }));
for (let k = 0; k < chaosRuns; k++) runs.push({ name: `chaos-${k}`, spec: chaosScenario(k) });

for (const { name, spec } of runs) {
  if (only !== undefined && !name.includes(only)) continue;
  const r = runScenario(validateScenario(spec), { keepEvents: false, hash: withHash });
  const line: Record<string, unknown> = { name, checks: sorted(r.checks), expectations: r.expectations.map((e) => [e.check, e.actual, e.ok]) };
  if (withHash) line.traceHash = r.traceHash;
  process.stdout.write(JSON.stringify(line) + '\n'); // determinism-ok: a script outside any simulation
}
