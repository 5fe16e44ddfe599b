import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../support/cli';
import { shortLibrary } from './documents';

/**
 * The scratch directory `$TMP` of the command-line cases: short scenarios (with and without consumers), a trace
 * of one of them and damaged copies of it, files that are not JSON, and a directory where a file is expected.
 */
export async function prepareFixtures(tmp: string): Promise<void> {
  mkdirSync(join(tmp, 'dir'), { recursive: true });
  const lib = shortLibrary();
  const byId = (id: string) => lib.find((s) => s.id === id)!.doc;
  const noConsumers = byId('acks1-leader-crash');
  const withConsumers = byId('consumer-lag-restart');
  writeFileSync(join(tmp, 'short.json'), JSON.stringify(noConsumers));
  writeFileSync(join(tmp, 'noconsumers.json'), JSON.stringify(noConsumers));
  writeFileSync(join(tmp, 'consumers.json'), JSON.stringify(withConsumers));
  writeFileSync(join(tmp, 'notjson.json'), 'id: yaml\nduration: 5s\n');
  writeFileSync(join(tmp, 'bom.json'), '\ufeff' + JSON.stringify(noConsumers));
  const trace = join(tmp, 'trace.jsonl');
  const r = await cli(['run', join(tmp, 'short.json'), '--json', '--trace', trace]);
  if (r.code !== 0 && r.code !== 1) throw new Error(`the fixture run failed: ${r.err}`);
  const lines = readFileSync(trace, 'utf8').split('\n').filter((l) => l !== '');
  writeFileSync(join(tmp, 'trace-truncated.jsonl'), lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n');
  writeFileSync(join(tmp, 'trace-empty.jsonl'), '');
}
