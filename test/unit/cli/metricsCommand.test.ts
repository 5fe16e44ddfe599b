import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';

const tmp = mkdtempSync(join(tmpdir(), 'kafkasim-metrics-'));
const SPEC = {
  id: 'small',
  duration: '4s',
  quiet: '1s',
  topics: [{ name: 't', partitions: 2, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 50 } }],
};

describe('kafkasim metrics', () => {
  let trace = '';
  beforeAll(async () => {
    const spec = join(tmp, 'small.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    trace = join(tmp, 'small.jsonl');
    expect((await cli(['run', spec, '--trace', trace])).code).toBe(0);
  });

  it('summarises every series of every actor over the run', async () => {
    const r = await cli(['metrics', trace, '--series', 'LeaderCount', '--series', 'ActiveControllerCount']);
    expect(r.code).toBe(0);
    const rows = r.out.split('\n').filter((l) => /^(LeaderCount|ActiveControllerCount)/.test(l));
    expect(rows.map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ...['broker-1', 'broker-2', 'broker-3'].map((b) => ['LeaderCount', b, '5']),
      ...['controller-1', 'controller-2', 'controller-3'].map((c) => ['ActiveControllerCount', c, '5']),
    ]);
    expect(r.out).toMatch(/5 samples from 1\.000s to 5\.000s/);
  });

  it('gives one moment per role with --at, and exports CSV and the Prometheus text format', async () => {
    const at = await cli(['metrics', trace, '--at', '2.5s', '--actor', 'controller-1', '--series', '*Count']);
    expect(at.out).toMatch(/^Sampled at 2\.000s:/);
    expect(at.out).toMatch(/\nActiveControllerCount\s+[01]\n/);
    expect(at.out).not.toMatch(/broker-1/);
    const csv = (await cli(['metrics', trace, '--csv', '--series', 'record-send-rate'])).out.trim().split('\n');
    expect(csv[0]).toBe('time_ms,actor,role,series,mbean,value');
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 4).join(','))).toEqual([1000, 2000, 3000, 4000, 5000].map((t) => `${t},p1,producer,record-send-rate`));
    expect(csv[1]).toMatch(/"kafka\.producer:type=producer-metrics,client-id=p1",\d/);
    const prom = (await cli(['metrics', trace, '--prometheus', '--series', 'UnderReplicatedPartitions'])).out.split('\n');
    expect(prom[0]).toMatch(/^# HELP kafka_server_replicamanager_underreplicatedpartitions /);
    expect(prom[1]).toBe('# TYPE kafka_server_replicamanager_underreplicatedpartitions gauge');
    expect(prom.filter((l) => l.startsWith('kafka_server_replicamanager_underreplicatedpartitions{instance="broker-1"} '))).toHaveLength(5);
    expect(prom[2]).toMatch(/^kafka_server_replicamanager_underreplicatedpartitions\{instance="broker-1"\} 0 1000$/);
    const scrape = (await cli(['metrics', trace, '--prometheus', '--at', '3s', '--series', 'OfflinePartitionsCount'])).out;
    expect(scrape.split('\n').filter((l) => !l.startsWith('#') && l)).toEqual(['controller-1', 'controller-2', 'controller-3'].map((c) => `kafka_controller_kafkacontroller_offlinepartitionscount{instance="${c}"} 0`));
  });

  it('says what is wrong in one line (exit 2)', async () => {
    const bad = async (...args: string[]) => {
      const r = await cli(['metrics', ...args]);
      expect(r.code).toBe(2);
      return r.err.trim();
    };
    expect(await bad(trace, '--series', 'UnderReplicated')).toMatch(/--series: "UnderReplicated" matches no series of this trace/);
    expect(await bad(trace, '--actor', 'broker-9')).toMatch(/--actor: "broker-9" was never sampled; the actors are: /);
    expect(await bad(trace, '--csv', '--prometheus')).toMatch(/two formats/);
    expect(await bad(trace, '--at', 'soon')).toMatch(/--at: "soon" is not a time/);
    expect(await bad()).toMatch(/metrics needs exactly one trace file/);
    const minimal = join(tmp, 'minimal.json');
    writeFileSync(minimal, JSON.stringify({ ...SPEC, trace: 'minimal' }));
    const mt = join(tmp, 'minimal.jsonl');
    await cli(['run', minimal, '--trace', mt]);
    expect(await bad(mt)).toMatch(/the trace has no metrics samples/);
  });
});
