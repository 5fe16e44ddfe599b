import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';

const tmp = mkdtempSync(join(tmpdir(), 'kafkasim-check-'));
const SMALL = {
  id: 'small',
  duration: '3s',
  quiet: '2s',
  topics: [{ name: 't', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 20 } }],
  expect: [{ check: 'lost-write', op: '=', value: 0 }],
};

/** A saved trace of a short run, and the run's own JSON report. */
async function savedTrace(): Promise<{ text: string; run: { traceHash: string; checks: unknown } }> {
  const spec = join(tmp, 'small.json');
  writeFileSync(spec, JSON.stringify(SMALL));
  const trace = join(tmp, 'small.jsonl');
  const run = JSON.parse((await cli(['run', spec, '--json', '--trace', trace])).out);
  return { text: readFileSync(trace, 'utf8'), run };
}

async function check(name: string, text: string) {
  const f = join(tmp, name);
  writeFileSync(f, text);
  return cli(['check', f, '--json']);
}

describe('kafkasim check on files that editors and transfers changed, or that are not whole', () => {
  let text = '';
  let run: Awaited<ReturnType<typeof savedTrace>>['run'];
  beforeAll(async () => {
    ({ text, run } = await savedTrace());
  });

  it('gives the run\'s hash and checks for CRLF line ends, a byte-order mark and no final newline', async () => {
    for (const [name, variant] of [
      ['crlf.jsonl', text.replace(/\n/g, '\r\n')],
      ['bom.jsonl', '\ufeff' + text],
      ['no-final-newline.jsonl', text.slice(0, -1)],
    ] as const) {
      const r = await check(name, variant);
      expect(r.code, name).toBe(0);
      const o = JSON.parse(r.out);
      expect(o.traceHash, name).toBe(run.traceHash);
      expect(o.checks, name).toEqual(run.checks);
    }
  });

  it('refuses a trace cut short, a reordered one and a renamed field with exit 2 and the line', async () => {
    const lines = text.trimEnd().split('\n');
    const cut = await check('cut.jsonl', lines.slice(0, -5).join('\n') + '\n');
    expect(cut.code).toBe(2);
    expect(cut.err).toMatch(new RegExp(`cut\\.jsonl: the trace stops at line ${lines.length - 5} \\(.+\\) without a "scenario.end" event: it was cut short`));
    const midLine = await check('mid-line.jsonl', text.slice(0, Math.floor(text.length / 2)));
    expect(midLine.code).toBe(2);
    expect(midLine.err).toMatch(/line \d+: not valid JSON: the file ends in the middle of an event/);
    const swapped = [...lines];
    [swapped[10], swapped[11]] = [swapped[11]!, swapped[10]!];
    const reordered = await check('reordered.jsonl', swapped.join('\n'));
    expect(reordered.code).toBe(2);
    expect(reordered.err).toMatch(/line 12 \(.+\): seq \d+ does not follow seq \d+ of line 11: the events are out of order/);
    const at = lines.findIndex((l) => l.includes('"kind":"send.ok"'));
    const renamed = [...lines];
    renamed[at] = renamed[at]!.replace('"values":', '"vals":');
    const r = await check('renamed.jsonl', renamed.join('\n'));
    expect(r.code).toBe(2);
    expect(r.err).toBe(`kafkasim: ${join(tmp, 'renamed.jsonl')}: line ${at + 1} (send.ok): field "values" is missing (a list of strings)\n`);
  });
});
