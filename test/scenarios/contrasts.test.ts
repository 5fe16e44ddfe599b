import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../sim/scenario/overrides';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';
import { alertReports } from '../../sim/check/alertChecks';

// Each library scenario that teaches by contrast, run again with the other setting: the opposite outcome
// must follow. The library test already holds each scenario to its own expectations for seeds 1 to 5.

const SEEDS = [1, 2];

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(process.cwd(), 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

function run(spec: ScenarioSpec, seed: number): RunResult {
  return runScenario(validateScenario(spec), { seed, hash: false });
}

function withSets(id: string, ...sets: string[]): ScenarioSpec {
  return applyOverrides(library(id), sets);
}

const count = (r: RunResult, check: string): number => r.checks[check]?.count ?? 0;

describe('contrasts: the same schedule with the other setting', () => {
  it('acks1-leader-crash with acks=all loses nothing: those writes were never acknowledged', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('acks1-leader-crash', 'producer.acks=all'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      expect(count(r, 'acked'), `seed ${seed}`).toBeGreaterThan(0);
    }
  });

  it('acks0-broker-failure with acks=all loses nothing: the producer times out, finds the new leader and retries', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('acks0-broker-failure', 'producer.acks=all', 'producer.enable.idempotence=true'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      expect(count(r, 'send-failed'), `seed ${seed}`).toBe(0);
    }
  });

  it('correlated-power-loss-no-fsync with flush.messages=1 loses nothing: every acknowledged record was on disk', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('correlated-power-loss-no-fsync', 'topic.flush.messages=1'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      expect(count(r, 'acked-unflushed'), `seed ${seed}`).toBe(0);
      expect(count(r, 'acked'), `seed ${seed}`).toBeGreaterThan(0);
    }
  });

  it('elr-last-replica-standing without ELR loses acknowledged records: the truncated last ISR member leads again', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('elr-last-replica-standing', 'cluster.eligibleLeaderReplicas=false'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBeGreaterThan(0);
      // Not an unclean election: the old leader was still the ISR's only member.
      expect(count(r, 'elected-outside-isr'), `seed ${seed}`).toBe(0);
    }
  });

  it('kip101-legacy-truncation-loss with leader epochs loses nothing and the replicas agree', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('kip101-legacy-truncation-loss', 'cluster.legacyHighWatermarkTruncation=false'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      expect(count(r, 'replicas.diverged'), `seed ${seed}`).toBe(0);
      expect(count(r, 'inconsistent-offsets'), `seed ${seed}`).toBe(0);
    }
  });

  it('kip101-legacy-divergence with leader epochs converges: the returning replica truncates to the leader', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('kip101-legacy-divergence', 'cluster.legacyHighWatermarkTruncation=false'), seed);
      expect(count(r, 'replicas.diverged'), `seed ${seed}`).toBe(0);
      // Both replicas lost their page cache at once, so records are lost with either rule (KIP-101 calls that
      // loss within the contract); only what no replica had on disk may be missing, and the logs agree.
      expect(count(r, 'lost-write'), `seed ${seed}`).toBeLessThanOrEqual(count(r, 'acked-unflushed'));
    }
  });

  it('unclean-election-loss with unclean election off waits for a former ISR member instead of losing writes', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('unclean-election-loss', 'topic.unclean.leader.election.enable=false'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      // The stale broker is back at 20 s, yet the partition stays leaderless until a former ISR member returns at 30 s.
      expect(count(r, 'partition.offline-ms'), `seed ${seed}`).toBeGreaterThan(5000);
    }
  });

  it('acks-all-min-isr-1-isr-shrink-loss with min.insync.replicas=2 loses nothing: the lone leader cannot commit', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('acks-all-min-isr-1-isr-shrink-loss', 'topic.min.insync.replicas=2'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
    }
  });

  it('jepsen-2013-isr-shrink with min.insync.replicas=2 loses nothing: the lone leader cannot commit', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('jepsen-2013-isr-shrink', 'topic.min.insync.replicas=2'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
    }
  });

  it('hw-frozen-below-min-isr with acks=all is not acknowledged while the high watermark is frozen', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('hw-frozen-below-min-isr', 'producer.acks=all'), seed);
      expect(count(r, 'unavailability.longest-ms'), `seed ${seed}`).toBeGreaterThan(15000);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
    }
  });

  it('zone-outage-without-rack-awareness with broker.rack set to the zone loses nothing and keeps every partition led', () => {
    const spec = library('zone-outage-without-rack-awareness');
    const zones = spec.cluster!.zones!;
    const racked: ScenarioSpec = { ...spec, cluster: { ...spec.cluster, racks: zones } };
    for (const seed of SEEDS) {
      const r = run(racked, seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      expect(count(r, 'partition.offline-ms'), `seed ${seed}`).toBe(0);
      expect(count(r, 'errors.NOT_ENOUGH_REPLICAS'), `seed ${seed}`).toBe(0);
    }
  });

  it('rolling-restart-careful with acks=1 still loses writes: a graceful leader move drops what the old leader acknowledged after its successor last fetched', () => {
    let lost = 0;
    for (const seed of [1, 2, 3]) {
      const r = run(withSets('rolling-restart-careful', 'producer.acks=1'), seed);
      lost += count(r, 'lost-write');
      // The careful roll keeps its availability whatever acks says.
      expect(count(r, 'unavailability.longest-ms'), `seed ${seed}`).toBeLessThan(2000);
    }
    expect(lost).toBeGreaterThan(0);
  });

  it('reassign-hot-partition: the throttle trades catch-up time for produce latency', () => {
    const catchUp = (r: RunResult): number => {
      const steps = r.trace.filter((e) => e.kind === 'operator.reassign');
      return (steps.find((e) => e.step === 'completed')!.t - steps.find((e) => e.step === 'submitted')!.t) / 1000;
    };
    for (const seed of SEEDS) {
      const free = runScenario(validateScenario(library('reassign-hot-partition-unthrottled')), { seed, hash: false });
      const throttled = runScenario(validateScenario(library('reassign-hot-partition-throttled')), { seed, hash: false });
      expect(catchUp(free), `seed ${seed}`).toBeLessThan(2000);
      expect(catchUp(throttled), `seed ${seed}`).toBeGreaterThan(2 * catchUp(free));
      expect(count(throttled, 'latency.p99-ms'), `seed ${seed}`).toBeLessThan(count(free, 'latency.p99-ms'));
    }
  });

  it('alert-under-min-isr-before-loss: the under-min-ISR alert fires before the power loss, the offline one after; with ELR the offline one never fires', () => {
    for (const seed of SEEDS) {
      const r = run(library('alert-under-min-isr-before-loss'), seed);
      const start = r.trace.find((e) => e.kind === 'scenario.start')!.t;
      const powerLoss = r.trace.find((e) => e.kind === 'fault.start' && e.fault === 'power-loss')!.t - start;
      const alerts = new Map(alertReports(r.trace, start).map((a) => [a.name, a.firings]));
      const underMin = alerts.get('under-min-isr')!;
      const offline = alerts.get('offline')!;
      expect(underMin.length, `seed ${seed}`).toBe(1);
      expect(underMin[0]!.firedUs, `seed ${seed}`).toBeLessThan(powerLoss);
      expect(offline.length, `seed ${seed}`).toBeGreaterThan(0);
      expect(offline[0]!.firedUs, `seed ${seed}`).toBeGreaterThan(powerLoss);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBeGreaterThan(0);

      const elr = run(withSets('alert-under-min-isr-before-loss', 'cluster.eligibleLeaderReplicas=true'), seed);
      expect(elr.checks['alert.offline']!.count, `seed ${seed}`).toBe(0);
      expect(elr.checks['alert.under-min-isr']!.count, `seed ${seed}`).toBe(1);
      expect(count(elr, 'lost-write'), `seed ${seed}`).toBeGreaterThan(0);
    }
  });

  it('rolling-restart-careless with acks=all loses nothing, and still stalls for a session timeout', () => {
    for (const seed of SEEDS) {
      const r = run(withSets('rolling-restart-careless', 'producer.acks=all'), seed);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      expect(count(r, 'unavailability.longest-ms'), `seed ${seed}`).toBeGreaterThan(9000);
    }
  });

  it('txn-exactly-once-consume-transform-produce with at_least_once writes the re-read inputs\' outputs twice', () => {
    for (const seed of SEEDS) {
      const spec = library('txn-exactly-once-consume-transform-produce');
      const alo: ScenarioSpec = {
        ...spec,
        consumers: spec.consumers!.map((c) => (c.transform ? { ...c, transform: { ...c.transform, guarantee: 'at_least_once' as const } } : c)),
      };
      const r = run(alo, seed);
      // The crash lands after some outputs of a poll were written and before its commitSync: read again, written again.
      expect(count(r, 'output-duplicates'), `seed ${seed}`).toBeGreaterThan(0);
      // At least once: twice, never lost (the offsets are committed only after the outputs are acknowledged).
      expect(count(r, 'output-lost'), `seed ${seed}`).toBe(0);
      expect(count(r, 'transactions.committed'), `seed ${seed}`).toBe(0);
      expect(count(r, 'lost-write'), `seed ${seed}`).toBe(0);
      // The duplicate's story: the input, both reads and their outputs (outside any transaction), the crash, the commit it was re-read from.
      const story = r.checks['output-duplicates']!.stories![0]!;
      expect(story[0], `seed ${seed}`).toMatch(/^Input shop:\d+ \(orders-\d@\d+\) has 2 outputs in the committed output: orders-enriched-\d@\d+, orders-enriched-\d@\d+\.$/);
      expect(story.filter((l) => l.startsWith('enricher read it at')), `seed ${seed}`).toHaveLength(2);
      expect(story.filter((l) => l.includes('outside any transaction, acknowledged')), `seed ${seed}`).toHaveLength(2);
      expect(story, `seed ${seed}`).toContain('Fault at 4.000s: crash of enricher.');
      expect(story.some((l) => l.startsWith('Until 4.000s no commit of orders-') && l.includes('with OffsetCommit')), `seed ${seed}`).toBe(true);
    }
  });

  it('txn-read-committed-hides-aborted with transaction.version 1: the same outcome, one producer epoch for every transaction', () => {
    const epochs = (r: RunResult) => r.trace.filter((e) => e.kind === 'producer.txn').map((e) => (e as unknown as { producerEpoch: number }).producerEpoch);
    for (const seed of SEEDS) {
      const spec = library('txn-read-committed-hides-aborted');
      const tv1: ScenarioSpec = {
        ...spec,
        cluster: { ...spec.cluster, features: { 'transaction.version': 1 }, broker: { ...spec.cluster?.broker, 'transaction.partition.verification.enable': false } },
      };
      const r1 = run(tv1, seed);
      const r2 = run(spec, seed);
      expect(r1.expectations.filter((e) => !e.ok).map((e) => e.description), `seed ${seed}`).toEqual([]);
      // Version 2 bumps the epoch at every EndTxn (KIP-890 part 2); version 1 keeps the one InitProducerId gave.
      expect(new Set(epochs(r1)).size, `seed ${seed}`).toBe(1);
      expect(new Set(epochs(r2)).size, `seed ${seed}`).toBe(epochs(r2).length);
      expect(epochs(r2).length, `seed ${seed}`).toBeGreaterThan(5);
    }
  });
});
