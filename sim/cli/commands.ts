import { closeSync, openSync, writeSync } from 'node:fs'; // determinism-ok: runs outside any simulation
import { FinalState, describeGroups, describeTopics } from '../check/describe';
import { formatTime, parseDuration, type Micros } from '../core/time';
import { JsonlSink, TraceFormatError, type TraceSink } from '../core/trace';
import { ValidationError, didYouMean, quoteName } from '../core/validate';
import { runScenario, type RunResult } from '../scenario/runner';
import { checkSavedTrace } from '../scenario/savedTrace';
import { MAX_DURATION_US, readFigures, validateScenario, type Scenario } from '../scenario/validate';
import { cutToDuration } from '../scenario/cutDuration';
import { parseArgs, single } from './args';
import { demo } from './demo';
import { explore } from './explore';
import { metrics } from './metrics';
import { describe } from './describe';
import { CliError, EXIT_CODES_HELP, InternalError } from './errors';
import { librarySpecs, loadScenario, readTextFile } from './library';
import { checkRunFits } from './memory';
import { renderAlerts, renderChecks, renderExpectations, renderGroups, renderStories, renderTopics, style, table } from './render';
import { serveCommand } from './serve';

export { CliError } from './errors';

export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  color: boolean;
}

/** A subcommand: one line for the usage, its --help text, and what it does (returning the exit code). */
export interface Command {
  readonly summary: string;
  readonly help: string;
  run(args: string[], io: CliIo): number | Promise<number>;
}

const COMMAND_LIST: readonly (readonly [string, Command])[] = [
  ['list', {
    summary: 'list the scenario library',
    help: `kafkasim list [--json]

Lists the scenarios in scenarios/: id, title and what each shows.
  --json   one JSON array of {id, title, summary, tags}
`,
    run: (args, io) => {
      const p = parseArgs('list', args, { json: {} });
      if (p.positional.length > 0) throw new CliError(`list takes no arguments (got ${JSON.stringify(p.positional[0])})`);
      const specs = librarySpecs();
      if (p.flags.has('json')) {
        io.out(JSON.stringify(specs.map((s) => ({ id: s.id, title: s.title ?? s.id, summary: s.summary ?? '', tags: s.tags ?? [] }))) + '\n');
        return 0;
      }
      io.out(table(['ID', 'TITLE'], specs.map((s) => [s.id, s.title ?? ''])));
      io.out(`\n${specs.length} scenarios. Run one with: npx kafkasim run <id>\n`);
      return 0;
    },
  }],
  ['run', {
    summary: 'run a scenario and check its guarantees',
    help: `kafkasim run <scenario-id | file.json> [options]

Runs a scenario, then reports whether its expectations held, the checkers' findings, each partition's
final state (as kafka-topics --describe) and each group's lag (as kafka-consumer-groups --describe).

  --seed N            the random seed (default: the scenario's, or 1)
  --set scope.k=v     override a config on every producer, consumer, topic or broker, e.g.
                      --set producer.acks=1  --set topic.min.insync.replicas=2
                      --set broker.replica.lag.time.max.ms=10000  --set cluster.brokers=5  (repeatable);
                      topic.<topic>.<config> sets one topic, e.g. --set topic.orders.retention.ms=60000
  --duration 60s      run this long instead of the scenario's duration (more than 0, at most 24h); a
                      shorter one leaves out what the scenario does later (said on stderr)
  --trace out.jsonl   write the whole trace as JSON Lines
  --figure NAME       also report a per-partition figure, <figure>.<topic>-<partition>, e.g.
                      --figure unavailability.longest-ms.orders-0  --figure leader.final.orders-1 (repeatable)
  --json              print exactly one JSON object:
                      {scenario, seed, simulatedMs, events, wallMs, traceHash, checks, expectations, ok}

Exit codes: 0 every expectation held, 1 one failed, 2 bad input, 3 an internal error (a bug).
`,
    run: (args, io) => {
      const p = parseArgs('run', args, { seed: { value: true }, set: { value: true, repeat: true }, duration: { value: true }, trace: { value: true }, figure: { value: true, repeat: true }, json: {} });
      if (p.positional.length !== 1) throw new CliError(`run needs exactly one scenario id or file (got ${p.positional.length}); see kafkasim run --help`);
      const sets = [...(p.values.get('set') ?? [])];
      const durationUs = readDuration(single(p, 'duration'));
      let scenario = loadScenario(p.positional[0]!, sets);
      if (durationUs !== undefined) scenario = withDuration(scenario, durationUs, io);
      const seed = readSeed(single(p, 'seed'));
      const tracePath = single(p, 'trace');
      const figures = readFigures(p.values.get('figure') ?? [], scenario);
      checkRunFits(scenario);
      const { result, final, wallMs } = timed(scenario, seed, tracePath, figures);
      if (p.flags.has('json')) {
        io.out(JSON.stringify(jsonReport(result, wallMs)) + '\n');
      } else {
        io.out(textReport(scenario, result, final, wallMs, io.color));
      }
      return result.ok ? 0 : 1;
    },
  }],
  ['serve', serveCommand],
  ['check', {
    summary: 'run the checkers on a saved trace',
    help: `kafkasim check <trace.jsonl> [--figure NAME]... [--json]

Runs every checker on a trace written by \`kafkasim run --trace\`, and the expectations of the scenario
recorded in its header. The output is the same as the run's. The trace is validated first: its header, every
event's kind and fields, events in order (seq and t increasing), and a complete run (it ends with
scenario.end); a trace that fails is refused with the line and field that fail (exit 2). CRLF line ends, a
byte-order mark and a missing final newline are accepted and do not change the trace hash.
  --figure NAME   also report a per-partition figure, <figure>.<topic>-<partition> (as run --figure)
`,
    run: (args, io) => {
      const p = parseArgs('check', args, { figure: { value: true, repeat: true }, json: {} });
      if (p.positional.length !== 1) throw new CliError(`check needs exactly one trace file (got ${p.positional.length})`);
      const file = p.positional[0]!;
      const text = readTextFile(file);
      let checked;
      try {
        checked = checkSavedTrace(text, p.values.get('figure') ?? []);
      } catch (e) {
        if (e instanceof TraceFormatError) throw new CliError(`${file}: ${e.message}`);
        throw e;
      }
      const { header, events, checks, expectations, ok, hash } = checked;
      if (p.flags.has('json')) {
        io.out(
          JSON.stringify({
            scenario: header.scenario,
            seed: header.seed,
            simulatedMs: checked.simulatedMs,
            events: events.length,
            wallMs: 0,
            traceHash: hash,
            checks: stripChecks(checks),
            expectations: expectations.map((e) => ({ description: e.description, ok: e.ok })),
            ok,
          }) + '\n',
        );
      } else {
        const st = style(io.color);
        io.out(`${st.bold(header.scenario)} (seed ${header.seed}) from ${file}: ${events.length} events, trace hash ${hash}\n\n`);
        io.out(renderExpectations(expectations, st) + '\n' + renderChecks(checks, st) + renderAlerts(checks, st) + renderStories(checks));
        const topics = renderTopics(describeTopics(events));
        if (topics) io.out('\n' + topics);
        const groups = renderGroups(describeGroups(events));
        if (groups) io.out('\n' + groups);
      }
      return ok ? 0 : 1;
    },
  }],
  ['demo', {
    summary: 'run a tour of the scenario library and print what each shows',
    help: `kafkasim demo [--all]

Runs a representative part of the scenario library (under a minute) and prints a table: scenario, what it
shows, what was expected, what was observed, and whether it held.
  --all    run the whole library
`,
    run: (args, io) => {
      const p = parseArgs('demo', args, { all: {} });
      if (p.positional.length > 0) throw new CliError(`demo takes no arguments (got ${JSON.stringify(p.positional[0])})`);
      return demo(io, p.flags.has('all'));
    },
  }],
  ['explore', explore],
  ['metrics', metrics],
  ['describe', describe],
];

/** The commands by name (a Map: a name like "constructor" is no command, not Object.prototype's). */
const COMMANDS: ReadonlyMap<string, Command> = new Map(COMMAND_LIST);

function readSeed(v: string | undefined): number | string | undefined {
  if (v === undefined) return undefined;
  if (v.trim() === '') throw new CliError('--seed: an empty seed; give a number or a word');
  return /^-?\d+$/.test(v) ? Number(v) : v;
}

/** `--duration`: more than 0 and at most what a scenario may last. */
function readDuration(v: string | undefined): Micros | undefined {
  if (v === undefined) return undefined;
  const us = parseDuration(v);
  if (us === null) throw new CliError(`--duration: ${quoteName(v)} is not a duration; use e.g. 60s, 1500ms, 2m`);
  if (us <= 0) throw new CliError(`--duration: ${quoteName(v)} must be more than 0`);
  if (us > MAX_DURATION_US) throw new CliError(`--duration: ${quoteName(v)} is too long; a scenario runs at most ${formatTime(MAX_DURATION_US)} (24h) of simulated time`);
  return us;
}

/** The scenario run for `durationUs` instead: what it does later is left out, and stderr says what. */
function withDuration(s: Scenario, durationUs: Micros, io: CliIo): Scenario {
  const { spec, dropped } = cutToDuration(s.spec, durationUs);
  let cut: Scenario;
  try {
    cut = validateScenario(spec);
  } catch (e) {
    if (e instanceof ValidationError) throw new CliError(`--duration ${formatTime(durationUs)}: ${e.message}`);
    throw e;
  }
  if (dropped.length > 0) io.err(`kafkasim: --duration ${formatTime(durationUs)} leaves out what comes later: ${dropped.join(', ')}\n`);
  return cut;
}

/**
 * Runs the scenario streaming its trace: to the checkers, to the --trace file as each line is made, and to the
 * fold of what the topic and group tables need; the trace itself is not kept, so memory is the cluster's logs.
 */
function timed(s: Scenario, seed: number | string | undefined, tracePath: string | undefined, figures: readonly string[]): { result: RunResult; final: FinalState; wallMs: number } {
  const final = new FinalState();
  const sinks: TraceSink[] = [final];
  let fd: number | undefined;
  if (tracePath) {
    try {
      fd = openSync(tracePath, 'w'); // determinism-ok: runs outside any simulation
    } catch {
      throw new CliError(`--trace: cannot write ${tracePath}`);
    }
    const out = fd;
    sinks.push(new JsonlSink((line) => writeSync(out, line))); // determinism-ok: runs outside any simulation
  }
  const t0 = performance.now(); // determinism-ok: wall-clock time of the CLI, reported, never fed into the run
  try {
    const result = runScenario(s, { ...(seed !== undefined ? { seed } : {}), sinks, keepEvents: false, figures });
    return { result, final, wallMs: Math.round(performance.now() - t0) }; // determinism-ok
  } catch (e) {
    throw InternalError.wrap(e, `scenario ${s.id}, seed ${JSON.stringify(seed ?? s.seed)}`);
  } finally {
    if (fd !== undefined) closeSync(fd); // determinism-ok: runs outside any simulation
  }
}

function stripChecks(checks: RunResult['checks']): Record<string, { count: number; examples: readonly string[] }> {
  const out: Record<string, { count: number; examples: readonly string[] }> = {};
  for (const [k, v] of Object.entries(checks)) out[k] = { count: v.count, examples: v.examples };
  return out;
}

export function jsonReport(r: RunResult, wallMs: number): object {
  return {
    scenario: r.scenario,
    seed: r.seed,
    simulatedMs: r.simulatedMs,
    events: r.events,
    wallMs,
    traceHash: r.traceHash,
    checks: stripChecks(r.checks),
    expectations: r.expectations.map((e) => ({ description: e.description, ok: e.ok })),
    ok: r.ok,
  };
}

function textReport(s: Scenario, r: RunResult, final: FinalState, wallMs: number, color: boolean): string {
  const st = style(color);
  let out = `${st.bold(s.title)} ${st.dim(`(${s.id}, seed ${r.seed})`)}\n`;
  if (s.summary) out += `${s.summary}\n`;
  out += st.dim(`${formatTime(r.simulatedMs * 1000)} simulated in ${wallMs} ms, ${r.events} trace events, trace hash ${r.traceHash}`) + '\n\n';
  out += renderExpectations(r.expectations, st) + '\n';
  out += renderChecks(r.checks, st);
  out += renderAlerts(r.checks, st);
  out += renderStories(r.checks);
  const topics = renderTopics(final.topics());
  if (topics) out += '\n' + topics;
  const groups = renderGroups(final.groups());
  if (groups) out += '\n' + groups;
  out += '\n' + (r.ok ? st.ok('All expectations held.') : st.bad('Some expectations failed.')) + '\n';
  return out;
}

const USAGE = `kafkasim — a deterministic simulator of an Apache Kafka 4.x cluster

Usage:
${[...COMMANDS]
  .map(([n, c]) => `  kafkasim ${n.padEnd(8)} ${c.summary}`)
  .join('\n')}
  kafkasim help [command]

Run \`kafkasim <command> --help\` for a command's options.
${EXIT_CODES_HELP}`;

function unknownCommand(name: string, lead: string): CliError {
  const names = [...COMMANDS.keys()];
  const near = didYouMean(name, names);
  return new CliError(`${lead} ${quoteName(name)}${near ? ` (did you mean "${near}"?)` : ''}; the commands are: ${names.join(', ')} (see kafkasim --help)`);
}

/**
 * Runs one command line and returns its exit code. A mistake in the input is thrown as a CliError (see
 * runWithExitCode in exitCode.ts, which turns every outcome into one line and an exit code).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '-h' || cmd === '--help') {
    io.out(USAGE);
    return 0;
  }
  if (cmd === 'help') {
    if (rest.length > 1) throw new CliError(`help takes at most one command name (got ${rest.length})`);
    const name = rest[0];
    const c = name === undefined ? undefined : COMMANDS.get(name);
    if (name !== undefined && !c) throw unknownCommand(name, 'no command named');
    io.out(c ? c.help : USAGE);
    return 0;
  }
  const c = COMMANDS.get(cmd);
  if (!c) throw unknownCommand(cmd, 'unknown command');
  if (rest.includes('-h') || rest.includes('--help')) {
    io.out(c.help);
    return 0;
  }
  return c.run(rest, io);
}
