import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';

const tmp = mkdtempSync(join(tmpdir(), 'kafkasim-describe-'));
const SPEC = {
  id: 'small',
  duration: '10s',
  quiet: '1s',
  topics: [{ name: 't', partitions: 2, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 50 } }],
  consumers: [{ id: 'c1', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest' } }],
  faults: [{ at: '2s', fault: 'stop', targets: ['leader:t/0'] }],
  alerts: ['UnderReplicatedPartitions > 0', 'OfflinePartitionsCount > 0'],
};

describe('kafkasim describe', () => {
  let trace = '';
  let runOut = '';
  beforeAll(async () => {
    const spec = join(tmp, 'small.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    trace = join(tmp, 'small.jsonl');
    const run = await cli(['run', spec, '--trace', trace]);
    expect(run.code).toBe(0);
    runOut = run.out;
  });

  it('prints the three tools at a moment: a stopped leader has handed its partition over after, not before', async () => {
    const before = await cli(['describe', trace, '--at', '1s', '--exclude-internal']);
    expect(before.code).toBe(0);
    expect(before.out).toMatch(/^At 1\.000s of scenario time:/);
    expect(before.out).toMatch(/\$ kafka-topics --describe\nTOPIC\s+PARTITION\s+LEADER/);
    expect(before.out).not.toMatch(/__consumer_offsets/);
    const row = (out: string) => out.split('\n').find((l) => /^t\s+0\s/.test(l))!.split(/\s+/);
    const [, , leader1, , , isr1] = row(before.out);
    expect(isr1!.split(',')).toHaveLength(3);
    const after = await cli(['describe', trace, '--at', '6s', '--topics', '--json']);
    const d = JSON.parse(after.out) as { atMs: number; topics: { topic: string; partition: number; leader: number; isr: number[] }[]; groups?: unknown };
    expect(d.atMs).toBe(6000);
    expect(d.groups).toBeUndefined();
    const t0 = d.topics.find((p) => p.topic === 't' && p.partition === 0)!;
    expect(t0.leader).not.toBe(Number(leader1));
    expect(t0.isr).not.toContain(Number(leader1));
    const all = await cli(['describe', trace, '--at', '9s']);
    expect(all.out).toMatch(/\$ kafka-consumer-groups --describe --all-groups\nGROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\ng\s+t\s+0\s+\d+/);
    expect(all.out).toMatch(/\$ kafka-metadata-quorum describe --status\nLeaderId:\s+controller-\d\nLeaderEpoch:\s+\d+\nHighWatermark:\s+\d+\nMaxFollowerLag:\s+\d+ \(metrics sample at 9\.000s\)/);
    expect(all.out).toMatch(/CurrentVoters:\s+\[controller-1, controller-2, controller-3\]\nCurrentObservers:\s+\[broker-1, broker-2, broker-3\]/);
  });

  it('run reports each alert: the stopped broker leaves partitions under-replicated, none goes offline', () => {
    expect(runOut).toMatch(/\nAlerts:\n  ● UnderReplicatedPartitions > 0\n      fired at 3\.000s, still firing at the end/);
    expect(runOut).toMatch(/\n  ○ OfflinePartitionsCount > 0 \(never fired\)\n/);
  });

  it('says what is wrong in one line (exit 2)', async () => {
    const bad = async (...args: string[]) => {
      const r = await cli(['describe', ...args]);
      expect(r.code).toBe(2);
      return r.err.trim();
    };
    expect(await bad(trace, '--at', 'soon')).toMatch(/--at: "soon" is not a time/);
    expect(await bad(trace, '--at', '1h')).toMatch(/--at: 3600\.000s is after the end of the trace \(11\.000s\)/);
    expect(await bad()).toMatch(/describe needs exactly one trace file/);
  });
});
