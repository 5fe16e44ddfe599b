import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkValue, runCheckers } from '../../../sim/check/checkers';
import { CONSUMER_EXCEPTIONS } from '../../../sim/kafka/errors';
import { validateScenario } from '../../../sim/scenario/validate';
import { cli } from '../../support/cli';

const spec = (check: string) => ({
  id: 'names',
  duration: '2s',
  topics: [{ name: 't', partitions: 1, replicationFactor: 1 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 10 } }],
  consumers: [{ id: 'c1', group: 'billing', topics: ['t'] }, { id: 'solo', topics: ['t'] }],
  expect: [{ check, op: '=', value: 0 }],
});

const problem = (check: string): string => {
  try {
    validateScenario(spec(check));
    return 'accepted';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('the names an expectation may use', () => {
  it('accepts every check, figure, group figure of the scenario\'s groups, and known error name', () => {
    for (const check of ['lost-write', 'duplicate', 'produce.batches', 'lag.final.billing', 'unseen.solo', 'unprocessed', 'errors.NOT_ENOUGH_REPLICAS', 'errors.TIMEOUT', 'errors.OffsetOutOfRangeException']) {
      expect(problem(check), check).toBe('accepted');
    }
  });

  it('rejects an unknown check, group or error name, suggesting the nearest', () => {
    expect(problem('lost-write.typo')).toMatch(/^expect\[0\]\.check: "lost-write\.typo" is not allowed; .*\(unknown check "lost-write\.typo"; did you mean "lost-write"\?\)$/);
    expect(problem('lag.final.biling')).toMatch(/\(no group "biling" in this scenario; did you mean "lag\.final\.billing"\?\)$/);
    expect(problem('errors.NOT_ENOUGH_REPLICA')).toMatch(/\(no error named "NOT_ENOUGH_REPLICA"; did you mean "errors\.NOT_ENOUGH_REPLICAS"\?\)$/);
    // Names of Object.prototype are not checks.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(problem(name), name).toMatch(/unknown check/);
    expect(checkValue(runCheckers([]), 'constructor')).toBe(0);
  });

  it('is a validation error on the CLI: exit 2, one line', async () => {
    const f = join(mkdtempSync(join(tmpdir(), 'kafkasim-names-')), 'typo.json');
    writeFileSync(f, JSON.stringify(spec('lost-write.typo')));
    const r = await cli(['run', f]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('did you mean "lost-write"?');
  });

  it('knows every fatal exception a consumer reports (errors.<NAME> of consumer.error)', () => {
    const dir = join(import.meta.dirname, '../../../sim/kafka/client/consumer');
    const named = new Set<string>();
    // Every source file of the consumer, its sub-folders (assignors/) included.
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.ts'))) for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/fatal\('(\w+)'/g)) named.add(m[1]!);
    expect(named.size).toBeGreaterThan(0);
    for (const n of named) expect(CONSUMER_EXCEPTIONS as readonly string[]).toContain(n);
  });
});

