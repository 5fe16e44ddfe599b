import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'; // determinism-ok: runs outside any simulation
import { availableParallelism } from 'node:os';
import { join, relative, isAbsolute } from 'node:path';
import { randomInt } from 'node:crypto';
import { parseDuration } from '../core/time';
import { ValidationError, didYouMean } from '../core/validate';
import type { ScenarioSpec } from '../scenario/spec';
import { BUDGETS, type Budget } from '../explore/budget';
import { STEP_KINDS, type StepKind } from '../explore/arbitraries/faultStep';
import { counterexampleDocument, describeFault } from '../explore/counterexample';
import { caseSpec, exploreArbitrary, propertyOptions, type ExplorePlan } from '../explore/plan';
import { explorePool } from '../explore/explorePool';
import type { TaskPool } from '../explore/pool';
import type { Reply, Task } from '../explore/caseRunner';
import { PROPERTY_NAMES, propertyByName, type PropertyOptions } from '../explore/properties/index';
import { runCase } from '../explore/runCase';
import { ExploreRunError, sweep, type SweepResult, type SweepState } from '../explore/sweep';
import { signalExitCode, withSignals } from './signals';
import { validateScenario } from '../scenario/validate';
import { parseArgs, single, type Parsed } from './args';
import { CliError, InternalError } from './errors';
import { readJson, loadScenario } from './library';
import type { CliIo } from './commands';
import { style } from './render';

const HELP = `kafkasim explore --property P [options]

Searches for a run that breaks a guarantee: draws scenarios with fault schedules (fast-check), runs
them, and shrinks the first failure to the smallest schedule that still breaks it. The smallest
counterexample is written as a scenario file that \`kafkasim run\` and the UI open as they are.

  --property P        what must hold: ${PROPERTY_NAMES.join(', ')}
  --scenario S        base scenario (library id or file): its cluster, topics and clients, with drawn
                      faults instead of its own; default: whole scenarios are drawn (cluster shape, topic
                      and client configs, workload, faults)
  --set scope.k=v     config override applied to every drawn scenario (repeatable), e.g. --set producer.acks=1
  --runs N            runs in the whole sweep (default 100)
  --seed S            the sweep's seed; run k depends only on (seed, k) (default: a fresh one, printed)
  --workers K         worker threads (default: one per core)
  --shard i/n         run only shard i of n (every n-th run), to share one sweep between machines
  --budget B          how much may fail at once: ${BUDGETS.join(', ')} (default one-at-a-time)
  --faults a,b        fault verbs to draw: ${STEP_KINDS.join(', ')} (default all)
  --duration D        scenario duration, faults start within it (default: the base's, or 20s)
  --settle D          one-at-a-time: how long after a fault ends before the next may start (default 10s)
  --within D          eventually-available: how soon writes must succeed after the last heal (default 40s)
  --shrink-runs N     simulation runs to spend shrinking (default 200; 0: keep the failure as found)
  --stop-on-failure   stop handing out runs after the first failure
  --out DIR           where findings (JSON Lines) and counterexamples go (default explore-out)
  --replay FILE       run one scenario file and judge the property (exit 1 if it is broken)
  --json              print exactly one JSON object:
                      {property, runs, failures, seed, counterexample: {file, faults} | null}

A progress bar (runs, runs per second, failures) goes to stderr. Findings stream to
DIR/findings-<property>-<seed>.jsonl as they come, so an interrupted sweep keeps what it found.
Exit codes: 0 the property held in every run, 1 a counterexample was found, 2 bad input, 3 an internal
error (a bug), 130 / 143 interrupted (the findings file then ends with a summary record).
`;

const OPTIONS = {
  property: { value: true },
  scenario: { value: true },
  set: { value: true, repeat: true },
  runs: { value: true },
  seed: { value: true },
  workers: { value: true },
  shard: { value: true },
  budget: { value: true },
  faults: { value: true },
  duration: { value: true },
  settle: { value: true },
  within: { value: true },
  'shrink-runs': { value: true },
  'stop-on-failure': {},
  out: { value: true },
  replay: { value: true },
  json: {},
} as const;

function positiveInt(p: Parsed, name: string, fallback: number, min = 1): number {
  const v = single(p, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new CliError(`explore: --${name} ${JSON.stringify(v)}: expected an integer >= ${min}`);
  return Number(v);
}

function durationMs(p: Parsed, name: string, zeroAllowed = false): number | undefined {
  const v = single(p, name);
  if (v === undefined) return undefined;
  const us = parseDuration(v);
  if (us === null || us < 0 || (us === 0 && !zeroAllowed)) throw new CliError(`explore: --${name} ${JSON.stringify(v)} is not a duration; use e.g. 20s, 1500ms, 2m`);
  return us / 1000;
}

function readProperty(p: Parsed): string {
  const name = single(p, 'property');
  if (name === undefined) throw new CliError(`explore needs --property (one of ${PROPERTY_NAMES.join(', ')})`);
  if (!PROPERTY_NAMES.includes(name)) {
    const near = didYouMean(name, PROPERTY_NAMES);
    throw new CliError(`explore: no property named ${JSON.stringify(name)}${near ? ` (did you mean "${near}"?)` : ''}; the properties are: ${PROPERTY_NAMES.join(', ')}`);
  }
  return name;
}

function readShard(p: Parsed): { index: number; count: number } {
  const v = single(p, 'shard');
  if (v === undefined) return { index: 1, count: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(v);
  if (!m || Number(m[2]) < 1 || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) {
    throw new CliError(`explore: --shard ${JSON.stringify(v)}: expected i/n with 1 <= i <= n, e.g. --shard 2/4`);
  }
  return { index: Number(m[1]), count: Number(m[2]) };
}

function readBudget(p: Parsed): Budget {
  const v = single(p, 'budget') ?? 'one-at-a-time';
  if (!(BUDGETS as readonly string[]).includes(v)) {
    const near = didYouMean(v, BUDGETS);
    throw new CliError(`explore: --budget ${JSON.stringify(v)}: expected one of ${BUDGETS.join(', ')}${near ? ` (did you mean "${near}"?)` : ''}`);
  }
  return v as Budget;
}

function readKinds(p: Parsed): StepKind[] | undefined {
  const v = single(p, 'faults');
  if (v === undefined) return undefined;
  const kinds = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (kinds.length === 0) throw new CliError(`explore: --faults needs at least one of ${STEP_KINDS.join(', ')}`);
  for (const k of kinds) {
    if (!(STEP_KINDS as readonly string[]).includes(k)) {
      const near = didYouMean(k, STEP_KINDS);
      throw new CliError(`explore: --faults: ${JSON.stringify(k)} is not a fault verb; use ${STEP_KINDS.join(', ')}${near ? ` (did you mean "${near}"?)` : ''}`);
    }
  }
  return kinds as StepKind[];
}

function readSeed(p: Parsed): number | string {
  const v = single(p, 'seed');
  if (v === undefined) return randomInt(1, 2 ** 31 - 1); // a fresh sweep each time; printed so it can be repeated
  if (v.trim() === '') throw new CliError('explore: --seed: an empty seed; give a number or a word');
  return /^-?\d+$/.test(v) ? Number(v) : v;
}

/** The base scenario as plain data (its own document), or null for drawn scenarios. */
function readBase(ref: string | undefined, sets: readonly string[]): ScenarioSpec | null {
  if (ref === undefined) return null;
  // Validates the document and the overrides on it, with the run command's errors.
  const s = loadScenario(ref, sets);
  return sets.length > 0 ? loadScenario(ref).spec : s.spec;
}

function displayPath(file: string): string {
  const rel = relative(process.cwd(), file); // determinism-ok: runs outside any simulation
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

function fileSafe(v: number | string): string {
  return String(v).replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** The progress bar: runs done, runs per second, failures so far, and the shrinking under way. */
class Progress {
  private readonly t0 = Date.now(); // determinism-ok: runs outside any simulation
  private last = 0;
  private drawn = false;
  private readonly tty = process.stderr.isTTY === true; // determinism-ok: runs outside any simulation

  constructor(
    private readonly io: CliIo,
    private readonly label: string,
  ) {}

  tick(s: SweepState, force = false): void {
    const now = Date.now(); // determinism-ok: runs outside any simulation
    if (!force && now - this.last < (this.tty ? 100 : 5000)) return;
    this.last = now;
    const secs = Math.max(0.001, (now - this.t0) / 1000);
    const width = 24;
    const filled = s.total === 0 ? width : Math.round((s.done / s.total) * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
    let line = `${this.label} ${bar} ${s.done}/${s.total} runs, ${(s.done / secs).toFixed(1)} runs/s, ${s.failures} failure${s.failures === 1 ? '' : 's'}`;
    if (s.shrinking) line += `, shrinking: ${s.shrinking.runs} runs, ${s.shrinking.faults} fault${s.shrinking.faults === 1 ? '' : 's'}`;
    if (this.tty) {
      this.io.err(`\r${line}\u001b[K`);
      this.drawn = true;
    } else {
      this.io.err(line + '\n');
    }
  }

  done(): void {
    if (this.drawn) this.io.err('\n');
  }
}

function replay(file: string, property: string, opts: PropertyOptions, io: CliIo): number {
  const spec = readJson(file) as ScenarioSpec;
  const prop = propertyByName(property);
  let outcome;
  try {
    outcome = runCase(spec, prop, opts);
  } catch (e) {
    if (e instanceof ValidationError) throw new CliError(`${file}: ${e.message}`);
    throw e;
  }
  const st = style(io.color);
  io.out(`${outcome.ok ? st.ok('✓') : st.bad('✗')} ${property} ${outcome.ok ? 'held' : `broken ${outcome.verdict.count} time${outcome.verdict.count === 1 ? '' : 's'}`} in ${file}\n`);
  for (const e of outcome.verdict.examples) io.out(`  ${e}\n`);
  return outcome.ok ? 0 : 1;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const p = parseArgs('explore', args, OPTIONS);
  if (p.positional.length > 0) throw new CliError(`explore takes no positional arguments (got ${JSON.stringify(p.positional[0])}); see kafkasim explore --help`);
  const property = readProperty(p);
  const withinMs = durationMs(p, 'within');
  const replayFile = single(p, 'replay');
  if (replayFile !== undefined) return replay(replayFile, property, withinMs === undefined ? {} : { withinMs }, io);

  const sets = [...(p.values.get('set') ?? [])];
  const runs = positiveInt(p, 'runs', 100);
  const shard = readShard(p);
  const workersWanted = positiveInt(p, 'workers', availableParallelism());
  const shrinkRuns = positiveInt(p, 'shrink-runs', 200, 0);
  const seed = readSeed(p);
  const kinds = readKinds(p);
  const durationOverride = durationMs(p, 'duration');
  const settleMs = durationMs(p, 'settle', true);
  const outDir = single(p, 'out') ?? 'explore-out';
  const plan: ExplorePlan = {
    property,
    base: readBase(single(p, 'scenario'), sets),
    sets,
    budget: readBudget(p),
    seed,
    shrinkRuns,
    ...(kinds && { kinds }),
    ...(durationOverride !== undefined && { durationMs: durationOverride }),
    ...(settleMs !== undefined && { settleMs }),
    ...(withinMs !== undefined && { withinMs }),
  };
  // A drawn scenario with the overrides applied must be a valid scenario: check one before starting workers.
  try {
    validateScenario(caseSpec(exploreArbitrary(plan), seed, 0));
  } catch (e) {
    if (e instanceof ValidationError) throw new CliError(`explore: ${sets.length > 0 ? `with ${sets.map((x) => `--set ${x}`).join(' ')}, ` : ''}the drawn scenarios are not valid: ${e.message}`);
    throw e;
  }

  try {
    mkdirSync(outDir, { recursive: true }); // determinism-ok: runs outside any simulation
  } catch {
    throw new CliError(`explore: --out: cannot create ${outDir}`);
  }
  const shardTag = shard.count > 1 ? `-shard${shard.index}of${shard.count}` : '';
  const findings = join(outDir, `findings-${property}-${fileSafe(seed)}${shardTag}.jsonl`);
  const record = (o: object) => appendFileSync(findings, JSON.stringify(o) + '\n'); // determinism-ok: runs outside any simulation
  record({ type: 'sweep', property, seed, runs, shard, budget: plan.budget, scenario: plan.base?.id ?? null, sets, started: new Date().toISOString() }); // determinism-ok: runs outside any simulation

  const shardRunCount = Math.max(0, Math.ceil((runs - (shard.index - 1)) / shard.count));
  const workers = Math.max(1, Math.min(workersWanted, shardRunCount));
  const progress = new Progress(io, `explore ${property} (seed ${seed})`);
  let cxFile: string | null = null;
  let cxFaults = 0;
  let pool: TaskPool<Task, Reply> | undefined;
  let result: SweepResult | undefined;
  let stoppedBy: NodeJS.Signals | null = null;
  // The findings file always ends with a summary record: the sweep done, interrupted, or broken.
  let done: Record<string, unknown> = { type: 'done', error: 'the sweep stopped before it began' };
  try {
    const prop = propertyByName(property);
    const swept = await withSignals(
      (signal) => {
        // Always on threads (one at least): the main thread stays free to hear Ctrl-C and draw the progress bar.
        pool = explorePool(plan, workers, { threads: true });
        return sweep(
          pool,
          { runs, shard, stopOnFailure: p.flags.has('stop-on-failure'), shrink: shrinkRuns > 0, signal },
          {
            onFailure: (f) => record({ type: 'failure', run: f.k, faults: f.spec.faults?.length ?? 0, verdict: f.outcome.verdict, ...(f.outcome.error && { error: f.outcome.error }), scenario: f.spec }),
            onCounterexample: (c) => {
              const doc = counterexampleDocument(c.spec, { property: prop, opts: propertyOptions(plan), verdict: c.outcome.verdict, seed, run: c.k, shrinks: c.shrinks });
              cxFile = join(outDir, `${property}-seed${fileSafe(seed)}-run${c.k}.json`);
              cxFaults = doc.faults?.length ?? 0;
              writeFileSync(cxFile, JSON.stringify(doc, null, 2) + '\n'); // determinism-ok: runs outside any simulation
              record({ type: 'counterexample', run: c.k, path: c.path, shrinks: c.shrinks, shrinkRuns: c.runs, faults: cxFaults, file: cxFile, verdict: c.outcome.verdict });
            },
            onTick: (s) => progress.tick(s),
          },
        );
      },
      // Forwarded to the workers: they are told to stop and terminated, whatever run they are in.
      () => pool?.close(),
    );
    result = swept.value;
    stoppedBy = swept.signal;
    done = { type: 'done', runs: result.runs, failures: result.failures, counterexample: cxFile, ...(stoppedBy && { interrupted: stoppedBy }) };
    if (!stoppedBy) progress.tick({ total: shardRunCount, done: shardRunCount, failures: result.failures, shrinking: null }, true);
  } catch (e) {
    progress.done();
    done = { type: 'done', error: e instanceof Error ? e.message.split('\n')[0] : String(e), counterexample: cxFile };
    if (e instanceof ExploreRunError && e.invalid) {
      throw new CliError(`explore: run ${e.k}'s drawn scenario is not valid${sets.length > 0 ? ` with ${sets.map((x) => `--set ${x}`).join(' ')}` : ''}: ${e.message}`);
    }
    throw InternalError.wrap(e, `property ${property}, sweep seed ${JSON.stringify(seed)}${e instanceof ExploreRunError ? `, run ${e.k}` : ''}`);
  } finally {
    pool?.close();
    record(done);
  }
  progress.done();
  if (stoppedBy) {
    io.err(`kafkasim: explore interrupted by ${stoppedBy} after ${result.runs} run${result.runs === 1 ? '' : 's'} (${result.failures} failure${result.failures === 1 ? '' : 's'}); the findings so far are in ${displayPath(findings)}\n`);
    return signalExitCode(stoppedBy);
  }

  const expectation = propertyByName(property).expectation(propertyOptions(plan));
  if (p.flags.has('json')) {
    io.out(JSON.stringify({ property, runs: result.runs, failures: result.failures, seed, counterexample: cxFile ? { file: cxFile, faults: cxFaults } : null }) + '\n');
  } else {
    const st = style(io.color);
    io.out(`${property}: ${result.runs} run${result.runs === 1 ? '' : 's'}, ${result.failures === 0 ? st.ok('no failure') : st.bad(`${result.failures} failure${result.failures === 1 ? '' : 's'}`)} (seed ${seed}${shard.count > 1 ? `, shard ${shard.index}/${shard.count}` : ''})\n`);
    const c = result.counterexample;
    if (c && cxFile) {
      const faults = c.spec.faults ?? [];
      io.out(`\nSmallest counterexample (run ${c.k}, shrunk ${c.shrinks} time${c.shrinks === 1 ? '' : 's'} in ${c.runs} runs): ${faults.length} fault${faults.length === 1 ? '' : 's'}\n`);
      for (const f of faults) io.out(`  ${describeFault(f)}\n`);
      for (const e of c.outcome.verdict.examples.slice(0, 3)) io.out(`  ${st.bad('✗')} ${e}\n`);
      io.out(`\nWritten to ${displayPath(cxFile)}. Replay it with:\n`);
      io.out(expectation ? `  npx kafkasim run ${displayPath(cxFile)}\n` : `  npx kafkasim explore --property ${property} --replay ${displayPath(cxFile)}\n`);
    }
    io.out(`Findings: ${displayPath(findings)}\n`);
  }
  return result.failures > 0 ? 1 : 0;
}

/** The `kafkasim explore` command (registered in commands.ts). */
export const explore = { summary: 'search for the smallest fault schedule that breaks a guarantee', help: HELP, run };
