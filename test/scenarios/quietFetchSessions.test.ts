import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../sim/core/trace';
import { ReplicaManager } from '../../sim/kafka/broker/replicaManager';
import { CachedPartition } from '../../sim/kafka/broker/fetchSession';
import type { Partition } from '../../sim/kafka/broker/partition';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// A leader's incremental fetch session skips its quiet partitions (KIP-227: an unchanged partition is left out of
// the answer). Every skip is checked here against a real read of the same partition at that moment: it must
// return nothing and carry no metadata the fetcher was not already told. The check must not change the run.

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(process.cwd(), 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

interface Seen {
  skips: number;
  followerSkips: number;
  committedSkips: number;
  wrong: string[];
}

/** What a real read of a quiet partition returns now (the completing-read kind: it records no follower fetch). */
function checkSkip(seen: Seen, p: Partition, cp: CachedPartition, replicaId: number, committed: boolean): void {
  seen.skips++;
  if (replicaId >= 0) seen.followerSkips++;
  if (committed) seen.committedSkips++;
  const copy = new CachedPartition(cp.topic, cp.partition, cp);
  const r = p.fetchAsLeader(copy, replicaId, -1, Number.MAX_SAFE_INTEGER, committed ? 'read_committed' : 'read_uncommitted', false, null, true);
  const where = `${cp.topic}-${cp.partition} for ${replicaId} at ${cp.fetchOffset}`;
  if (r !== null) seen.wrong.push(`${where}: a real read returned ${r.error} with ${r.batches.length} batches`);
  else if (cp.changed(p.readHighWatermark, p.readLogStartOffset)) seen.wrong.push(`${where}: HW ${p.readHighWatermark} / log start ${p.readLogStartOffset} not yet sent`);
  // A follower outside the ISR may be added to it by its fetch: never quiet.
  if (replicaId >= 0 && !p.isr.includes(replicaId)) seen.wrong.push(`${where}: follower outside the ISR ${p.isr.join(',')}`);
}

function run(spec: ScenarioSpec, checked: boolean) {
  const seen: Seen = { skips: 0, followerSkips: 0, committedSkips: 0, wrong: [] };
  const kinds = new Map<string, number>();
  const count = (k: string) => kinds.set(k, (kinds.get(k) ?? 0) + 1);
  const sink = {
    event(e: TraceEvent) {
      if (e.kind === 'replica.alter-isr') count(`alter-isr.${(e as unknown as { change: string }).change}`);
      if (e.kind === 'replica.role' && (e as unknown as { role: string }).role === 'leader') count('became-leader');
      if (e.kind === 'replica.lso') count('lso');
    },
  };
  ReplicaManager.onQuietChecked = checked ? (p, cp, replicaId, committed) => checkSkip(seen, p, cp, replicaId, committed) : null;
  const r = runScenario(validateScenario(spec), { keepEvents: false, sinks: [sink] });
  ReplicaManager.onQuietChecked = null;
  return { seen, kinds, hash: r.traceHash };
}

afterEach(() => {
  ReplicaManager.onQuietChecked = null;
});

describe('quiet partitions of a fetch session', () => {
  it('ISR shrink and expansion, then the leader isolated (a new leader): every skipped read would have returned nothing', () => {
    const spec = library('jepsen-2013-isr-shrink');
    const checked = run(spec, true);
    expect(checked.seen.wrong.slice(0, 5)).toEqual([]);
    expect(checked.seen.followerSkips).toBeGreaterThan(100);
    expect(checked.kinds.get('alter-isr.shrink') ?? 0).toBeGreaterThan(0);
    expect(checked.kinds.get('alter-isr.expand') ?? 0).toBeGreaterThan(0);
    expect(checked.kinds.get('became-leader') ?? 0).toBeGreaterThan(1);
    // The real reads beside the skips change nothing.
    expect(checked.hash).toBe(run(spec, false).hash);
  }, 300_000);

  it('rolling restarts move every leadership around: every skipped read would have returned nothing', () => {
    const spec = library('rolling-restart-careful');
    const checked = run(spec, true);
    expect(checked.seen.wrong.slice(0, 5)).toEqual([]);
    expect(checked.seen.followerSkips).toBeGreaterThan(10_000);
    // Consumers' sessions too.
    expect(checked.seen.skips - checked.seen.followerSkips).toBeGreaterThan(1000);
    expect(checked.kinds.get('became-leader') ?? 0).toBeGreaterThan(3);
    expect(checked.kinds.get('alter-isr.expand') ?? 0).toBeGreaterThan(0);
    expect(checked.hash).toBe(run(spec, false).hash);
  }, 300_000);

  it('read_committed consumers behind open transactions (the LSO): every skipped read would have returned nothing', () => {
    const spec = library('txn-read-committed-hides-aborted');
    const checked = run(spec, true);
    expect(checked.seen.wrong.slice(0, 5)).toEqual([]);
    expect(checked.seen.committedSkips).toBeGreaterThan(0);
    expect(checked.hash).toBe(run(spec, false).hash);
  }, 300_000);
});
