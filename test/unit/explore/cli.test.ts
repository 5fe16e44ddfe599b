import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'kafkasim-explore-cli-'));
const base = join(dir, 'base.json');
writeFileSync(base, JSON.stringify({ id: 'base', duration: '5s', topics: [{ name: 't', partitions: 1, replicationFactor: 3 }], producers: [{ id: 'p1', workload: { topic: 't', rate: 10 } }] }));

describe('kafkasim explore: input errors (exit code 2, one line)', () => {
  const cases: [string[], RegExp][] = [
    [[], /needs --property/],
    [['--property', 'no-acked-los'], /no property named "no-acked-los" \(did you mean "no-acked-loss"\?\)/],
    [['--property', 'no-acked-loss', '--shard', '3/2'], /--shard "3\/2": expected i\/n/],
    [['--property', 'no-acked-loss', '--shard', 'x'], /--shard/],
    [['--property', 'no-acked-loss', '--budget', 'one-at-time'], /--budget "one-at-time".*did you mean "one-at-a-time"/],
    [['--property', 'no-acked-loss', '--faults', 'crash,powerloss'], /"powerloss" is not a fault verb.*did you mean "power-loss"/],
    [['--property', 'no-acked-loss', '--runs', '0'], /--runs "0": expected an integer >= 1/],
    [['--property', 'no-acked-loss', '--workers', 'two'], /--workers/],
    [['--property', 'no-acked-loss', '--duration', 'soon'], /--duration "soon" is not a duration/],
    [['--property', 'no-acked-loss', '--set', 'producer.ack=1'], /producer\.ack|ack/],
    [['--property', 'no-acked-loss', '--scenario', join(dir, 'missing.json')], /cannot read/],
    [['--property', 'no-acked-loss', '--scenario', base, '--set', 'topic.min.insync.replicas=zero'], /min\.insync\.replicas/],
    [['--property', 'no-acked-loss', 'extra'], /no positional arguments/],
    [['--property', 'no-acked-loss', '--bogus'], /unknown option --bogus/],
  ];
  for (const [args, re] of cases) {
    it(args.join(' ') || '(no arguments)', async () => {
      const r = await cli(['explore', ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(re);
      expect(r.err.trimEnd()).not.toContain('\n');
    });
  }

  it('prints its help, naming every property, budget and fault verb', async () => {
    const r = await cli(['explore', '--help']);
    expect(r.code).toBe(0);
    for (const w of ['no-acked-loss', 'eventually-available', 'one-at-a-time', 'no-correlated-power-loss', 'slow-disk', '--shard i/n', '--json']) expect(r.out).toContain(w);
    expect((await cli(['--help'])).out).toContain('kafkasim explore');
  });
});
