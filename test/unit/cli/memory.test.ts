import { describe, expect, it } from 'vitest';
import { checkRunFits } from '../../../sim/cli/memory';
import { BASE_BYTES, BYTES_PER_PARTITION_REPLICA, BYTES_PER_RECORD, BYTES_PER_RECORD_REPLICA, BYTES_PER_SIMULATED_SECOND, estimateRunMemory } from '../../../sim/scenario/memoryEstimate';
import { validateScenario } from '../../../sim/scenario/validate';
import { cli } from '../../support/cli';
import { scratch } from '../../support/scratch';

const spec = (duration: string, workload: Record<string, unknown>) => ({
  id: 'mem',
  duration,
  quiet: '0s',
  topics: [{ name: 't', partitions: 3, replicationFactor: 3 }, { name: 'u', partitions: 1, replicationFactor: 1 }],
  producers: [{ id: 'p', workload: [{ topic: 't', ...workload }, { topic: 'u', at: ['1s', '2s'] }] }],
});

describe('the memory a run will need, said before it starts', () => {
  it('counts the records each workload sends (rate over its window, send times, maxRecords) and what each costs', () => {
    const e = estimateRunMemory(validateScenario(spec('10s', { rate: 200, start: '2s', stop: '7s' })));
    expect(e.records).toBe(1000 + 2);
    expect(e.bytes).toBe(
      BASE_BYTES +
        10 * BYTES_PER_SIMULATED_SECOND +
        (3 * 3 + 1 * 1) * BYTES_PER_PARTITION_REPLICA + // t: 3 partitions x RF 3, u: 1 x 1
        1000 * (BYTES_PER_RECORD + 3 * BYTES_PER_RECORD_REPLICA) +
        2 * (BYTES_PER_RECORD + BYTES_PER_RECORD_REPLICA),
    );
    expect(estimateRunMemory(validateScenario(spec('10s', { rate: 200, maxRecords: 50 }))).records).toBe(52);
  });

  it('refuses a run that would not fit in the heap, in one line with the figures', async () => {
    const s = validateScenario(spec('10s', { rate: 1000 }));
    expect(() => checkRunFits(s, 4 * 2 ** 30)).not.toThrow();
    expect(() => checkRunFits(s, 32 * 2 ** 20)).toThrow(/^mem would not fit in memory: about 10,002 records, about 72 MB of heap, and Node's heap limit here is 32 MB; .* NODE_OPTIONS=--max-old-space-size=85$/);
    // The issue's case: 24 h at 200 records/s, which died of V8's out-of-memory report about two simulated hours in.
    const { file } = scratch('memory');
    const r = await cli(['run', file('day.json', JSON.stringify(spec('24h', { rate: 200 })))]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^kafkasim: mem would not fit in memory: about 17,280,002 records, about [\d,]+ MB of heap, and Node's heap limit here is [\d,]+ MB/);
    expect(r.err.trimEnd()).not.toContain('\n');
  });
});

describe('run streams its trace', () => {
  it('prints the topic and group tables from the final state it folded, the same as check prints from the saved trace', async () => {
    const { dir } = scratch('stream');
    const trace = `${dir}/t.jsonl`;
    const ran = await cli(['run', 'consumer-lag-restart', '--trace', trace]);
    const checked = await cli(['check', trace]);
    const tables = (out: string) => out.slice(out.indexOf('TOPIC  ')).split('\n\nAll expectations')[0]!.trimEnd();
    expect(tables(ran.out)).toContain('GROUP');
    expect(tables(ran.out)).toBe(tables(checked.out));
  });
});
