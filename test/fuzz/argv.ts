import fc from 'fast-check';
import { BROKER_CONFIGS, CONSUMER_CONFIGS, PRODUCER_CONFIGS, TOPIC_CONFIGS } from '../../sim/kafka/config/configs';
import { configValue } from './documents';

/**
 * Command lines a person might type: every command and option the CLI has, typos, names of JavaScript's
 * built-ins, values at and beyond their bounds. `$TMP` stands for a scratch directory the worker fills with
 * short scenarios and traces (see fixtures.ts), so no case writes into the repository.
 *
 * A case costs at most a few seconds of simulation: run counts, shrink budgets and durations are drawn small
 * (a user who asks for a million runs waits for a million runs — that is not a hang).
 */
export interface ArgvCase {
  readonly kind: 'argv';
  readonly argv: readonly string[];
  readonly label: string;
  readonly mustReject: string | null;
}

const BUILTINS = ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty', 'prototype'];

/** Library scenarios that run in a few seconds of wall time at their own length. */
const QUICK_LIBRARY = ['acks1-leader-crash', 'idempotent-producer-dedup', 'acks-all-min-isr-2-survives-one', 'consumer-lag-restart'];

const scenarioRef = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('$TMP/short.json', '$TMP/consumers.json', '$TMP/noconsumers.json') },
  { weight: 2, arbitrary: fc.constantFrom(...QUICK_LIBRARY) },
  { weight: 2, arbitrary: fc.constantFrom('nosuch', 'acks1', '', ' ', '$TMP/missing.json', '$TMP/dir', '$TMP/notjson.json', '$TMP/bom.json', '/dev/null', ...BUILTINS) },
);

const duration = fc.constantFrom('0', '0s', '3s', '5s', '1500ms', '25h', '-1s', 'abc', '', '1e3', '10x', '2m', '100us', '24h1s', ...BUILTINS);
const shortDuration = fc.constantFrom('3s', '5s', '6s', '2000ms');
const seed = fc.constantFrom('0', '1', '7', '-1', '1.5', '', ' ', 'abc', '99999999999999999999', ...BUILTINS);

const SCOPES: Record<string, readonly string[]> = {
  producer: Object.keys(PRODUCER_CONFIGS),
  consumer: Object.keys(CONSUMER_CONFIGS),
  topic: Object.keys(TOPIC_CONFIGS),
  broker: Object.keys(BROKER_CONFIGS),
  cluster: ['brokers', 'controllers', 'eligibleLeaderReplicas', 'legacyHighWatermarkTruncation'],
};

const setFlag = fc
  .oneof(
    { weight: 8, arbitrary: fc.constantFrom(...Object.keys(SCOPES)).chain((scope) => fc.tuple(fc.constant(scope), fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...SCOPES[scope]!) }, { weight: 1, arbitrary: fc.constantFrom(...BUILTINS) }))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...BUILTINS, 'prod', 'producers', ''), fc.constantFrom('acks', ...BUILTINS, '')) },
  )
  .chain(([scope, name]) =>
    fc.oneof(
      { weight: 6, arbitrary: configValue.map((v) => `${scope}.${name}=${typeof v === 'string' ? v : JSON.stringify(v)}`) },
      { weight: 1, arbitrary: fc.constantFrom(`${scope}.${name}`, `${scope}=`, `=${name}`, `${scope}.${name}==1`) },
    ),
  );

type Opt = [string, fc.Arbitrary<string> | null];

const RUN_OPTIONS: Opt[] = [
  ['--seed', seed],
  ['--set', setFlag],
  ['--duration', duration],
  ['--trace', fc.constantFrom('$TMP/out.jsonl', '$TMP/dir', '/nonexistent/dir/t.jsonl', '')],
  ['--json', null],
];

const EXPLORE_OPTIONS: Opt[] = [
  ['--property', fc.constantFrom('no-acked-loss', 'order-per-key', 'no-duplicates', 'single-leader-per-epoch', 'hw-monotonic', 'group-exclusivity', 'eventually-available', 'exactly-once', 'no-acked-los', '', ...BUILTINS)],
  ['--scenario', scenarioRef],
  ['--set', setFlag],
  ['--seed', seed],
  ['--budget', fc.constantFrom('one-at-a-time', 'no-correlated-power-loss', 'none', 'one', ...BUILTINS)],
  ['--faults', fc.constantFrom('crash', 'crash,pause', 'power-loss,partition', ',', '', 'crash,bogus', ...BUILTINS)],
  ['--settle', fc.constantFrom('0', '1s', '10s', '-1s', 'x')],
  ['--within', fc.constantFrom('5s', '40s', '0', 'x')],
  ['--shard', fc.constantFrom('1/1', '1/2', '2/2', '3/2', '0/1', 'x', '1/0')],
  ['--stop-on-failure', null],
  ['--replay', fc.constantFrom('$TMP/short.json', '$TMP/missing.json', '$TMP/notjson.json', '$TMP/dir')],
  ['--json', null],
];

const JUNK_OPTIONS = fc.constantFrom('--constructor', '--toString', '--__proto__', '--bogus', '-x', '---x', '--', '--=1', '--seed=', '--json=1', '-h');

/** Picks some of `options` (each at most once unless repeatable), with values, in a random order. */
function options(opts: Opt[], repeatable: readonly string[] = ['--set']): fc.Arbitrary<string[]> {
  return fc
    .tuple(
      fc.subarray(opts, { maxLength: 5 }),
      fc.array(fc.constantFrom(...opts.filter(([n]) => repeatable.includes(n))), { maxLength: 2 }),
      fc.array(JUNK_OPTIONS, { maxLength: 1 }),
    )
    .chain(([picked, again, junk]) =>
      fc
        .tuple(...[...picked, ...again].map(([name, value]) => (value === null ? fc.constant([name]) : value.map((v) => [name, v]))), fc.constant(junk))
        .chain((parts) => fc.shuffledSubarray(parts.flat(), { minLength: parts.flat().length })),
    );
}

/** explore with the costs held small: one worker, one to three runs, a tiny shrink budget, a short duration. */
const exploreArgs = fc
  .tuple(options(EXPLORE_OPTIONS), fc.constantFrom('1', '2', '3', '0', '-1', 'x'), fc.constantFrom('0', '1', '3', 'x'), fc.constantFrom('1', '1', '1', '2', '0', 'x'), shortDuration)
  .map(([opts, runs, shrink, workers, d]) => ['explore', ...opts, '--runs', runs, '--shrink-runs', shrink, '--workers', workers, '--duration', d, '--out', '$TMP/explore-out']);

const runArgs = fc.tuple(fc.array(scenarioRef, { minLength: 0, maxLength: 2 }), options(RUN_OPTIONS)).map(([refs, opts]) => ['run', ...refs, ...opts]);

const checkArgs = fc
  .tuple(
    fc.array(fc.constantFrom('$TMP/trace.jsonl', '$TMP/trace-truncated.jsonl', '$TMP/trace-empty.jsonl', '$TMP/notjson.json', '$TMP/bom.json', '$TMP/missing.jsonl', '$TMP/dir'), { maxLength: 2 }),
    fc.array(fc.constantFrom('--json', '--bogus', '--json=1'), { maxLength: 1 }),
  )
  .map(([files, opts]) => ['check', ...files, ...opts]);

const otherArgs = fc.oneof(
  fc.constantFrom<string[]>([], ['--help'], ['-h'], ['list'], ['list', '--json'], ['list', 'x'], ['demo', '--help'], ['demo', 'x'], ['demo', '--bogus'], ['help'], ['help', 'run']),
  fc.constantFrom(...BUILTINS, 'RUN', 'ru', '', ' ', 'lst', 'serve', '--json', '--version').chain((c) => fc.array(fc.constantFrom('x', '--json', 'run'), { maxLength: 2 }).map((rest) => [c, ...rest])),
  fc.constantFrom(...BUILTINS, 'nosuch', '').map((c) => ['help', c]),
  fc.constantFrom('list', 'run', 'check', 'explore', 'demo').map((c) => [c, '--help']),
);

/** The regressions the issue names, each a fixed command line. */
const named = fc.constantFrom<ArgvCase>(
  { kind: 'argv', argv: ['explore', '--property', 'no-acked-loss', '--set', 'producer.acks=1', '--runs', '2', '--workers', '1', '--shrink-runs', '2', '--duration', '5s', '--out', '$TMP/explore-out', '--seed', '1'], label: 'explore with an override and no base', mustReject: null },
  { kind: 'argv', argv: ['run', '$TMP/noconsumers.json', '--set', 'consumer.enable.auto.commit=false'], label: '--set consumer.* without consumers', mustReject: 'a --set that applies to nothing' },
  { kind: 'argv', argv: ['run', 'acks1-leader-crash', '--duration', '3s', '--json'], label: 'run --duration 3s', mustReject: null },
);

export const argvCase: fc.Arbitrary<ArgvCase> = fc.oneof(
  { weight: 1, arbitrary: named },
  { weight: 4, arbitrary: runArgs.map((argv): ArgvCase => ({ kind: 'argv', argv, label: 'run', mustReject: null })) },
  { weight: 1, arbitrary: exploreArgs.map((argv): ArgvCase => ({ kind: 'argv', argv, label: 'explore', mustReject: null })) },
  { weight: 1, arbitrary: checkArgs.map((argv): ArgvCase => ({ kind: 'argv', argv, label: 'check', mustReject: null })) },
  { weight: 2, arbitrary: otherArgs.map((argv): ArgvCase => ({ kind: 'argv', argv, label: argv[0] ?? '(none)', mustReject: BUILTINS.includes(argv[0] ?? '') ? `a command named ${argv[0]}` : null })) },
);
