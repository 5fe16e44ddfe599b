import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWithExitCode } from '../../../sim/cli/exitCode';
import { CliError, InternalError } from '../../../sim/cli/errors';
import { parseJsonText } from '../../../sim/core/jsonText';
import { cli } from '../../support/cli';
import { scratch } from '../../support/scratch';

/*
 * The failures issue 23 lists, each pinned: a name of JavaScript's built-ins where a name of ours is expected,
 * files that are not JSON, huge values in errors, run --duration, an override that does not fit what is drawn.
 * Each ends in exit 2 and one line, or works; never a stack trace.
 */
const { dir: tmp, file } = scratch('input');

const SMALL = {
  id: 'small',
  duration: '3s',
  quiet: '2s',
  topics: [{ name: 't', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 20 } }],
};

/** Exit 2 and exactly one line on stderr, matching `re`. */
async function refused(args: string[], re: RegExp): Promise<void> {
  const r = await cli(args);
  expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
  expect(r.err.endsWith('\n')).toBe(true);
  expect(r.err.trimEnd().split('\n'), r.err).toHaveLength(1);
  expect(r.err).toMatch(re);
  expect(r.err.length).toBeLessThan(600);
}

const BUILTINS = ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty'];

describe('names of built-ins are unknown names, not crashes', () => {
  it.each(BUILTINS)('a config named %s in a scenario, and in --set', async (name) => {
    const doc = JSON.parse(JSON.stringify(SMALL));
    // JSON.parse makes "__proto__" an own key, as a file would; an object literal would not.
    doc.producers[0].config = JSON.parse(`{${JSON.stringify(name)}: 1}`);
    await refused(['run', file(`config-${name}.json`, JSON.stringify(doc))], new RegExp(`producers\\[0\\]\\.config\\.${name}.*unknown config "${name}"`));
    doc.producers[0].config = {};
    doc.cluster = { broker: JSON.parse(`{${JSON.stringify(name)}: "x"}`) };
    await refused(['run', file(`broker-${name}.json`, JSON.stringify(doc))], /cluster\.broker\..*unknown config/);
    const small = file('small.json', JSON.stringify(SMALL));
    await refused(['run', small, '--set', `producer.${name}=1`], /--set producer\..*unknown config/);
    await refused(['run', small, '--set', `${name}.acks=1`], /a scope: producer, consumer, topic, broker, group or cluster/);
    await refused(['run', small, '--set', `cluster.${name}=1`], /one of cluster\.brokers/);
  });

  it.each(BUILTINS)('a command, a help topic and an option named %s', async (name) => {
    await refused([name], /unknown command .*the commands are: list, run, serve, check, demo, explore/);
    await refused(['help', name], /no command named/);
    await refused(['run', 'acks1-leader-crash', `--${name}`], /run: unknown option --/);
    await refused(['run', name], /no scenario named/);
  });

  it('suggests the nearest command', async () => {
    await refused(['rnu'], /unknown command "rnu" \(did you mean "run"\?\)/);
  });
});

describe('files that are not a JSON object', () => {
  const doc = JSON.stringify(SMALL, null, 2);
  it.each([
    ['YAML', 'id: small\nduration: 3s\n', /is not valid JSON: expected a value, found "i" at line 1, column 1/],
    ['a cut-off document', doc.slice(0, 40), /is not valid JSON: expected a field name in double quotes, found the end of the text at line 4, column 2/],
    ['trailing text', doc + '\n}', /is not valid JSON: expected the end of the document, found "}" at line 22, column 1/],
    ['an empty file', '', /is empty/],
    ['an array', '[]', /\(root\): an array of 0 is not allowed; expected an object/],
    ['a control character in a string', '{"id": "a\u0001b"}', /a control character \(U\+0001\) inside a string at line 1, column 10/],
  ])('%s', async (name, text, re) => {
    await refused(['run', file(`${name}.json`, text)], re);
  });

  it('says where JSON goes wrong for every kind of mistake', () => {
    const at = (t: string) => (parseJsonText(t) as { error: string }).error;
    expect(at('{"a": tru}')).toMatch(/expected "true", found "}" at line 1, column 10/);
    expect(at('{"a": 1,}')).toMatch(/a field name in double quotes, found "}" at line 1, column 9/);
    expect(at('{"a" 1}')).toMatch(/":" after a field name/);
    expect(at('[1 2]')).toMatch(/"," or "]"/);
    expect(at('{"a": "\\x"}')).toMatch(/expected an escape: /);
    expect(at('{"a": "\\u12"}')).toMatch(/four hex digits/);
    expect(at('{"a": -}')).toMatch(/a value/);
    expect(at('{"a": "open')).toBe('is not valid JSON: a string that is never closed at line 1, column 12');
    expect(parseJsonText('{"a": [1, {"b": null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
  });

  it('a byte order mark is ignored, as check ignores it in a trace', async () => {
    const r = await cli(['run', file('bom.json', '\ufeff' + doc), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).scenario).toBe('small');
  });

  it('a directory or a missing file is said to be one', async () => {
    await refused(['run', tmp + '/'], /it is a directory/);
    await refused(['run', join(tmp, 'nothing.json')], /no such file/);
  });
});

describe('huge values give short errors', () => {
  it('an unknown key of a megabyte', async () => {
    const key = 'k'.repeat(1_000_000);
    await refused(['run', file('hugekey.json', JSON.stringify({ ...SMALL, [key]: 1 }))], /unknown field "k{40}\.\.\.\(1000000 characters\)"/);
    const doc = JSON.parse(JSON.stringify(SMALL));
    doc.producers[0].config = { [key]: 1 };
    await refused(['run', file('hugeconfig.json', JSON.stringify(doc))], /unknown config "k{40}\.\.\.\(1000000 characters\)"/);
  });

  it('a huge value, a huge command and a huge option', async () => {
    await refused(['run', file('hugevalue.json', JSON.stringify({ ...SMALL, id: 'v'.repeat(1_000_000) }))], /^kafkasim: .*id: "v+\.\.\." is not allowed; expected a name .* at most 249 characters/);
    await refused(['x'.repeat(100_000)], /unknown command "x{40}\.\.\./);
    await refused(['run', 'acks1-leader-crash', `--${'o'.repeat(100_000)}`], /unknown option "--o{38}\.\.\./);
  });
});

describe('run --duration', () => {
  it('refuses 0, a negative, 25h and words in one line', async () => {
    await refused(['run', 'acks1-leader-crash', '--duration', '0'], /--duration: "0" must be more than 0/);
    await refused(['run', 'acks1-leader-crash', '--duration', '0s'], /must be more than 0/);
    await refused(['run', 'acks1-leader-crash', '--duration', '25h'], /--duration: "25h" is too long; a scenario runs at most/);
    await refused(['run', 'acks1-leader-crash', '--duration', '-1s'], /is not a duration/);
    await refused(['run', 'acks1-leader-crash', '--duration', 'soon'], /is not a duration/);
  });

  it('3s on a scenario whose faults come later runs the first 3 s and says what it left out', async () => {
    const r = await cli(['run', 'acks1-leader-crash', '--duration', '3s', '--json']);
    expect(r.code).toBe(1); // its expectation (writes are lost) needs the faults it no longer has
    expect(r.err).toBe('kafkasim: --duration 3.000s leaves out what comes later: 2 fault(s), 4 caption(s)\n');
    const o = JSON.parse(r.out);
    expect(o.simulatedMs).toBe(3000 + 20_000); // the new duration and the scenario's quiet period
    expect(o.checks['lost-write'].count).toBe(0);
  });
});

describe('overrides', () => {
  it('--set consumer.* on a scenario without consumers is refused', async () => {
    await refused(['run', file('noconsumers.json', JSON.stringify(SMALL)), '--set', 'consumer.enable.auto.commit=false'], /--set consumer\.enable\.auto\.commit: .* it declares no consumers/);
  });

  it('explore --set producer.acks=1 without a base scenario turns idempotence off as Kafka does, instead of crashing a worker', async () => {
    const out = join(tmp, 'explore');
    const r = await cli(['explore', '--property', 'no-acked-loss', '--set', 'producer.acks=1', '--runs', '3', '--workers', '1', '--shrink-runs', '0', '--duration', '4s', '--seed', '5', '--out', out, '--json']);
    expect([0, 1]).toContain(r.code);
    expect(JSON.parse(r.out).runs).toBe(3);
  });

  it('explore: an explicit enable.idempotence=true with acks=1 is the user\'s own conflict, refused in one line', async () => {
    await refused(
      ['explore', '--property', 'no-acked-loss', '--set', 'producer.acks=1', '--set', 'producer.enable.idempotence=true', '--runs', '1', '--workers', '1', '--out', join(tmp, 'x')],
      /the drawn scenarios are not valid: .*enable\.idempotence=true: idempotence needs acks=all/,
    );
  });
});

describe('exit codes', () => {
  const io = () => {
    const o = { out: '', err: '' };
    return { o, io: { out: (s: string) => (o.out += s), err: (s: string) => (o.err += s), color: false } };
  };

  it('an internal error is exit 3 with one line asking for a report, the stack only with debug', async () => {
    const { o, io: cliIo } = io();
    const boom = async () => {
      throw new InternalError('TypeError: x is undefined', 'scenario s, seed 7', new TypeError('x is undefined'));
    };
    expect(await runWithExitCode(['run', 's'], cliIo, {}, boom)).toBe(3);
    expect(o.err).toBe('kafkasim: internal error: TypeError: x is undefined — a bug in kafkasim, not in your input; please report it with this line (scenario s, seed 7; kafkasim run s; KAFKASIM_DEBUG=1 adds the stack)\n');
    const debug = io();
    expect(await runWithExitCode(['run', 's'], debug.io, { debug: true }, boom)).toBe(3);
    expect(debug.o.err.split('\n').length).toBeGreaterThan(3);
    expect(debug.o.err).toMatch(/TypeError: x is undefined\n\s+at /);
  });

  it('a plain exception is an internal error too; a CliError is exit 2', async () => {
    const plain = io();
    expect(await runWithExitCode(['x'], plain.io, {}, async () => Promise.reject(new RangeError('bad\nsecond line')))).toBe(3);
    expect(plain.o.err).toMatch(/^kafkasim: internal error: RangeError: bad — a bug in kafkasim.*the seed is --seed's or the scenario's/);
    expect(plain.o.err.trimEnd()).not.toContain('\n');
    const bad = io();
    expect(await runWithExitCode(['x'], bad.io, {}, async () => Promise.reject(new CliError('two\nlines')))).toBe(2);
    expect(bad.o.err).toBe('kafkasim: two\\nlines\n');
  });

  it('the usage lists them', async () => {
    const r = await cli(['--help']);
    expect(r.out).toMatch(/Exit codes: 0 every expectation held, 1 one failed .* 2 bad input .* 3 an internal error/s);
  });
});
