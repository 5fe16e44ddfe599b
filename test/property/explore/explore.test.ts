import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { explorePool } from '../../../sim/explore/explorePool';
import type { ExplorePlan } from '../../../sim/explore/plan';
import { noAckedLoss } from '../../../sim/explore/properties/noAckedLoss';
import { runCase } from '../../../sim/explore/runCase';
import { sweep, type Counterexample } from '../../../sim/explore/sweep';
import { applyOverrides } from '../../../sim/scenario/overrides';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import type { FaultEntry } from '../../../sim/world/nemesis';

/**
 * Exploration against settings whose answer is known. Each sweep has a fixed seed, so it is the same
 * every time; the assertions are about what any counterexample for the setting must look like (few faults,
 * the right kind, gone when the unsafe setting is undone), not about the particular one the seed finds.
 *
 * The steady cluster: 3 controllers, 3 brokers, one partition with replication factor 3 and
 * min.insync.replicas=2, a keyed producer at 50 records/s, 20 s of faults and 45 s to heal. Followers
 * leave the ISR after 5 s behind (replica.lag.time.max.ms=5000) so ISR changes fit in a short run.
 *
 * Fault verbs: crash, power loss, isolate, partition and one-way cuts. Pause and slow disk are left out
 * here: they once set off a message storm (a late response answered as an unknown request, since fixed and
 * tested in test/unit/scenario/unclaimedResponses.test.ts), and these fixed-seed sweeps were tuned without them.
 */
const STEADY: ScenarioSpec = {
  id: 'steady',
  duration: '20s',
  quiet: '45s',
  cluster: { controllers: 3, brokers: 3, broker: { 'replica.lag.time.max.ms': 5000 } },
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  producers: [{ id: 'producer-1', workload: { topic: 'orders', rate: 50, keys: { kind: 'uniform', count: 10 } } }],
};
const KINDS = ['crash', 'power-loss', 'isolate', 'partition', 'one-way'] as const;

async function explore(plan: Partial<ExplorePlan> & Pick<ExplorePlan, 'seed' | 'budget'>, runs: number): Promise<Counterexample> {
  const full: ExplorePlan = { property: 'no-acked-loss', base: STEADY, sets: [], kinds: KINDS, shrinkRuns: 100, ...plan };
  const pool = explorePool(full, 2);
  try {
    const r = await sweep(pool, { runs, stopOnFailure: true });
    expect(r.counterexample, `no counterexample in ${runs} runs`).not.toBeNull();
    return r.counterexample!;
  } finally {
    pool.close();
  }
}

/** The host selectors a fault impairs (its targets, or the side of a cut that is not "the cluster"). */
function hit(f: FaultEntry): string[] {
  if (f.targets) return [...f.targets];
  if (f.groups) return [...f.groups[0]!];
  return f.from?.some((s) => s.startsWith('tag:')) ? [...(f.to ?? [])] : [...(f.from ?? [])];
}

/** How many power losses of a run hit the broker that led orders-0 when they struck (from its trace). */
function powerLossesOfTheLeader(spec: ScenarioSpec): number {
  const r = runScenario(validateScenario(spec), { hash: false });
  let leader = -1;
  let hits = 0;
  for (const e of r.trace) {
    if ((e.kind === 'controller.partition' || e.kind === 'controller.election') && e.topic === 'orders' && e.partition === 0) leader = e.leader;
    if (e.kind === 'fault.start' && e.fault === 'power-loss' && e.hosts.includes(`broker-${leader}`)) hits++;
  }
  return hits;
}

/** Runs a counterexample again with some settings changed; true when no acknowledged write is lost. */
function holdsWith(spec: ScenarioSpec, sets: string[]): boolean {
  return runCase(applyOverrides(spec, sets), noAckedLoss, {}).ok;
}

describe('exploration finds and shrinks counterexamples for known-unsafe settings', () => {
  it('acks=1: one failure of the leader loses acknowledged writes', async () => {
    const c = await explore({ seed: 2, budget: 'one-at-a-time', sets: ['producer.acks=1'] }, 60);
    const faults = c.spec.faults ?? [];
    expect(faults).toHaveLength(1);
    expect(hit(faults[0]!)).toEqual(['leader:orders/0']);
    expect(c.outcome.verdict.examples[0]).toMatch(/acks=1\) is not in the final log/);
    // The same schedule with acks=all loses nothing: the acknowledgement is what was unsafe.
    expect(holdsWith(c.spec, ['producer.acks=all'])).toBe(true);
  });

  it('acks=all with min.insync.replicas=1: a cut and a power loss of the leader lose acknowledged writes that min.insync.replicas=2 keeps', async () => {
    // Power losses never overlap (no correlated power loss) and no process crashes: with crashes, every
    // replica can restart uncleanly at once and KIP-966's last-known-leader rule loses data at any min ISR.
    const c = await explore(
      {
        seed: 1,
        budget: 'no-correlated-power-loss',
        kinds: ['power-loss', 'isolate', 'partition', 'one-way'],
        sets: ['topic.min.insync.replicas=1'],
        maxFaultMs: 10_000,
        base: { ...STEADY, duration: '25s' },
      },
      400,
    );
    const faults = c.spec.faults ?? [];
    expect(faults.length).toBeGreaterThanOrEqual(2);
    expect(faults.length).toBeLessThanOrEqual(4);
    // Without fsync, acknowledged records live in page caches: the leader's power loss is what loses them
    // (whichever selector named it: leader:orders/0, or the broker that led the partition at that moment).
    expect(powerLossesOfTheLeader(c.spec)).toBeGreaterThan(0);
    expect(holdsWith(c.spec, ['topic.min.insync.replicas=2'])).toBe(true);
  });

  it('unclean leader election: process crashes alone (no disk loses a byte) lose acknowledged writes', async () => {
    const c = await explore(
      { seed: 3, budget: 'no-correlated-power-loss', kinds: ['crash'], sets: ['topic.unclean.leader.election.enable=true'], maxFaultMs: 10_000, base: { ...STEADY, duration: '25s' }, shrinkRuns: 150 },
      60,
    );
    const faults = c.spec.faults ?? [];
    expect(faults.length).toBeLessThanOrEqual(4);
    expect(faults.every((f) => f.fault === 'crash')).toBe(true);
    const r = runScenario(validateScenario(c.spec), { hash: false });
    expect(r.trace.some((e) => e.kind === 'controller.election' && e.source === 'UNCLEAN')).toBe(true);
    expect(r.checks['lost-write']!.count).toBeGreaterThan(0);
    expect(holdsWith(c.spec, ['topic.unclean.leader.election.enable=false'])).toBe(true);
  });

  it('correlated power loss without fsync: one power loss of several replicas loses acknowledged writes', async () => {
    const c = await explore({ seed: 1, budget: 'none', kinds: ['power-loss'], base: { ...STEADY, duration: '15s' }, shrinkRuns: 60 }, 40);
    const faults = c.spec.faults ?? [];
    expect(faults).toHaveLength(1);
    expect(faults[0]!.fault).toBe('power-loss');
    // Several replicas at once: the whole ISR or every broker.
    expect(hit(faults[0]!).some((s) => s.startsWith('follower:') || s === 'tag:broker')).toBe(true);
    // With an fsync per message (flush.messages=1) the same power loss loses nothing.
    expect(holdsWith(c.spec, ['topic.flush.messages=1'])).toBe(true);
  });
});

describe('kafkasim explore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-explore-'));
  const base = join(dir, 'steady.json');
  writeFileSync(base, JSON.stringify(STEADY));
  const common = ['--property', 'no-acked-loss', '--scenario', base, '--faults', KINDS.join(','), '--json'];

  it('finds none for acks=all, replication factor 3, min.insync.replicas=2 under the one-at-a-time budget', async () => {
    const r = await cli(['explore', ...common, '--runs', '240', '--seed', '11', '--workers', '2', '--out', join(dir, 'safe')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ property: 'no-acked-loss', runs: 240, failures: 0, seed: 11, counterexample: null });
    // The progress bar went to stderr, ending with every run done.
    expect(r.err).toMatch(/240\/240 runs, [\d.]+ runs\/s, 0 failures/);
  });

  it('writes the smallest counterexample as a scenario file that `kafkasim run` replays to the same violation', async () => {
    const out = join(dir, 'acks1');
    const r = await cli(['explore', ...common, '--set', 'producer.acks=1', '--runs', '40', '--seed', '2', '--workers', '2', '--shrink-runs', '40', '--out', out]);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0]!);
    expect(Object.keys(o)).toEqual(['property', 'runs', 'failures', 'seed', 'counterexample']);
    expect(o).toMatchObject({ property: 'no-acked-loss', runs: 40, seed: 2, counterexample: { faults: 1 } });
    expect(o.failures).toBeGreaterThan(0);
    const file = o.counterexample.file as string;
    expect(existsSync(file)).toBe(true);

    // The file is a plain scenario with the property's expectation: `kafkasim run` exits 1 on it.
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ScenarioSpec;
    expect(doc.expect).toEqual([{ check: 'lost-write', op: '=', value: 0, description: 'no-acked-loss: lost-write = 0' }]);
    const replay = (await cli(['run', file, '--json']));
    expect(replay.code).toBe(1);
    const rep = JSON.parse(replay.out);
    expect(rep.ok).toBe(false);
    expect(rep.checks['lost-write'].count).toBeGreaterThan(0);
    expect(rep.expectations).toEqual([{ description: 'no-acked-loss: lost-write = 0', ok: false }]);

    // `explore --replay` judges the property itself on the file (the way to replay properties no check reports).
    const judged = (await cli(['explore', '--property', 'no-acked-loss', '--replay', file]));
    expect(judged.code).toBe(1);
    expect(judged.out).toMatch(/^✗ no-acked-loss broken \d+ times? in /);

    // The findings streamed as JSON Lines: the sweep, each failing run with its scenario, the counterexample, the end.
    const findings = readFileSync(join(out, 'findings-no-acked-loss-2.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(findings[0]).toMatchObject({ type: 'sweep', property: 'no-acked-loss', seed: 2, runs: 40 });
    const failures = findings.filter((f) => f.type === 'failure');
    expect(failures).toHaveLength(o.failures);
    for (const f of failures) expect(() => validateScenario(f.scenario)).not.toThrow();
    expect(findings.find((f) => f.type === 'counterexample')).toMatchObject({ file, faults: 1 });
    expect(findings[findings.length - 1]).toMatchObject({ type: 'done', runs: 40, failures: o.failures });

    // Run k depends only on (seed, k): one worker finds and shrinks to the very same file.
    const again = (await cli(['explore', ...common, '--set', 'producer.acks=1', '--runs', '40', '--seed', '2', '--workers', '1', '--shrink-runs', '40', '--out', join(dir, 'again')]));
    const o2 = JSON.parse(again.out);
    expect({ ...o2, counterexample: null }).toEqual({ ...o, counterexample: null });
    expect(readFileSync(o2.counterexample.file, 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  it('splits a sweep into shards that together find what the whole sweep finds', async () => {
    const args = [...common, '--set', 'producer.acks=1', '--runs', '30', '--seed', '2', '--workers', '1', '--shrink-runs', '0'];
    const whole = JSON.parse((await cli(['explore', ...args, '--out', join(dir, 'whole')])).out);
    const shards = [];
    for (const i of [1, 2]) shards.push(JSON.parse((await cli(['explore', ...args, '--shard', `${i}/2`, '--out', join(dir, 'shards')])).out));
    expect(shards.map((s) => s.runs)).toEqual([15, 15]);
    expect(shards[0].failures + shards[1].failures).toBe(whole.failures);
    expect(existsSync(join(dir, 'shards', 'findings-no-acked-loss-2-shard1of2.jsonl'))).toBe(true);
  });
});

describe('kafkasim explore with the consumer group protocol', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-explore-kip848-'));
  // Three members of one group on three partitions; faults hit brokers and consumers alike.
  const GROUP: ScenarioSpec = {
    ...STEADY,
    topics: [{ name: 'orders', partitions: 3, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
    consumers: ['c1', 'c2', 'c3'].map((id) => ({ id, group: 'billing', topics: ['orders'], config: { 'auto.offset.reset': 'earliest' } })),
  };
  const base = join(dir, 'group.json');
  writeFileSync(base, JSON.stringify(GROUP));

  it('group-exclusivity holds for KIP-848 groups (--set consumer.group.protocol=consumer), and the runs really use it', async () => {
    const sets = ['--set', 'consumer.group.protocol=consumer'];
    const r = await cli(['explore', '--property', 'group-exclusivity', '--scenario', base, ...sets, '--faults', 'crash,isolate,pause', '--runs', '12', '--seed', '5', '--workers', '2', '--json', '--out', join(dir, 'out')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ property: 'group-exclusivity', runs: 12, failures: 0, seed: 5, counterexample: null });
    const run = runScenario(validateScenario(applyOverrides(GROUP, ['consumer.group.protocol=consumer'])), { hash: false });
    expect(run.trace.filter((e) => e.kind === 'consumer.join').every((e) => e.protocol === 'consumer')).toBe(true);
    expect(run.trace.some((e) => e.kind === 'group.consumer.target')).toBe(true);
  });
});
