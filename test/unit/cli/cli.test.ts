import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { scratch } from '../../support/scratch';

const { dir: tmp, file } = scratch('cli');

const SMALL = {
  id: 'small',
  duration: '5s',
  quiet: '5s',
  topics: [{ name: 't', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 50 } }],
  expect: [{ check: 'lost-write', op: '=', value: 0 }],
};

describe('kafkasim CLI', () => {
  it('prints exactly one JSON object with the documented fields for run --json', async () => {
    const f = file('small.json', JSON.stringify(SMALL));
    const r = await cli(['run', f, '--json', '--seed', '3']);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0]!);
    expect(Object.keys(o)).toEqual(['scenario', 'seed', 'simulatedMs', 'events', 'wallMs', 'traceHash', 'checks', 'expectations', 'ok']);
    expect(o.scenario).toBe('small');
    expect(o.seed).toBe(3);
    expect(o.simulatedMs).toBe(10_000);
    expect(o.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect(o.checks['lost-write']).toEqual({ count: 0, examples: [] });
    expect(o.checks.acked.count).toBeGreaterThan(100);
    expect(o.expectations).toEqual([{ description: 'lost-write = 0', ok: true }]);
  });

  it('exits 1 when an expectation fails', async () => {
    const f = file('fails.json', JSON.stringify({ ...SMALL, expect: [{ check: 'lost-write', op: '>', value: 0 }] }));
    const r = await cli(['run', f, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).ok).toBe(false);
  });

  it('check on a saved trace gives the same checks and hash as the run that wrote it', async () => {
    const f = file('traced.json', JSON.stringify(SMALL));
    const trace = join(tmp, 'traced.jsonl');
    const run = JSON.parse((await cli(['run', f, '--json', '--trace', trace])).out);
    const checked = JSON.parse((await cli(['check', trace, '--json'])).out);
    expect(checked.checks).toEqual(run.checks);
    expect(checked.traceHash).toBe(run.traceHash);
    expect(checked.expectations).toEqual(run.expectations);
    expect(checked.events).toBe(run.events);
  });

  it('applies --set to every producer and rejects unknown keys and bad values in one line', async () => {
    const f = file('set.json', JSON.stringify({ ...SMALL, expect: [] }));
    expect((await cli(['run', f, '--json', '--set', 'producer.acks=0'])).code).toBe(0);
    const unknownKey = (await cli(['run', f, '--set', 'producer.ack=1']));
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.err).toMatch(/--set producer\.ack.*did you mean "acks"/);
    const badValue = (await cli(['run', f, '--set', 'producer.acks=2']));
    expect(badValue.code).toBe(2);
    expect(badValue.err).toMatch(/"2" is not allowed; expected one of all, 0, 1/);
    const badScope = (await cli(['run', f, '--set', 'produce.acks=1']));
    expect(badScope.err).toMatch(/did you mean "producer"/);
    const noEquals = (await cli(['run', f, '--set', 'producer.acks']));
    expect(noEquals.err).toMatch(/scope\.name=value/);
    expect((await cli(['run', f, '--set', 'cluster.brokers=zero'])).err).toMatch(/cluster\.brokers.*an integer from 1 to 100/);
  });

  it('rejects each kind of bad scenario file with a one-line error naming the field', async () => {
    const cases: [string, RegExp][] = [
      ['{ not json', /not valid JSON/],
      [JSON.stringify({ ...SMALL, durations: '5s' }), /durations.*did you mean "duration"/],
      [JSON.stringify({ ...SMALL, duration: 'soon' }), /duration: "soon" is not allowed/],
      [JSON.stringify({ ...SMALL, topics: [{ name: 't', partitions: 0 }] }), /topics\[0\]\.partitions: 0 is not allowed; expected an integer from 1/],
      [JSON.stringify({ ...SMALL, topics: [{ name: 't', replicationFactor: 4 }] }), /replicationFactor: 4.*at most the number of brokers \(3\)/],
      [JSON.stringify({ ...SMALL, topics: [{ name: 't', config: { 'min.insync.replica': 2 } }] }), /did you mean "min.insync.replicas"/],
      [JSON.stringify({ ...SMALL, producers: [{ id: 'p1', workload: { topic: 'nope', rate: 1 } }] }), /workload\.topic: "nope".*a topic of this scenario \(t\)/],
      [JSON.stringify({ ...SMALL, faults: [{ at: '1s', fault: 'crsh', targets: ['broker-1'] }] }), /faults\[0\]\.fault.*did you mean "crash"/],
      [JSON.stringify({ ...SMALL, faults: [{ at: '1s', fault: 'crash', targets: ['broker-9'] }] }), /faults\[0\]\.targets\[0\]: "broker-9"/],
      [JSON.stringify({ ...SMALL, expect: [{ check: 'lost-writes', op: '=', value: 0 }] }), /expect\[0\]\.check: "lost-writes"/],
    ];
    for (const [content, re] of cases) {
      const r = await cli(['run', file('bad.json', content)]);
      expect(r.code, content).toBe(2);
      expect(r.err, content).toMatch(re);
      expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('rejects unknown commands, options and scenario ids', async () => {
    expect((await cli(['frobnicate'])).err).toMatch(/unknown command "frobnicate"/);
    expect((await cli(['run', 'acks1-leader-crash', '--sed', '1'])).err).toMatch(/unknown option --sed/);
    expect((await cli(['run', 'acks1-leader-crsh'])).err).toMatch(/no scenario named "acks1-leader-crsh"/);
    expect((await cli(['run', 'x.json', '--seed'])).err).toMatch(/--seed needs a value/);
    expect((await cli(['check', join(tmp, 'missing.jsonl')])).err).toMatch(/cannot read/);
    expect((await cli(['check', file('garbage.jsonl', 'hello\n')])).err).toMatch(/line 1: not valid JSON/);
  });

  it('has --help on every command', async () => {
    for (const c of ['list', 'run', 'check', 'demo']) {
      const r = await cli([c, '--help']);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`kafkasim ${c}`);
    }
  });

  it('as a process: exit code 2 and a one-line error for bad input, never a stack trace', async () => {
    const r = spawnSync(process.execPath, ['bin/kafkasim.js', 'run', 'no-such-scenario'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^kafkasim: no scenario named "no-such-scenario"/);
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
    const list = execFileSync(process.execPath, ['bin/kafkasim.js', 'list', '--json'], { encoding: 'utf8' });
    expect(JSON.parse(list).some((s: { id: string }) => s.id === 'acks1-leader-crash')).toBe(true);
  });
});
