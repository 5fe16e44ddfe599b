import { readFileSync } from 'node:fs';
import { ofKind } from '../../sim/core/trace';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../sim/scenario/overrides';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import type { ConsumerSpec, ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// The consumer scenarios of the library that teach by contrast, run again with the other setting: the opposite
// outcome must follow. The library test already holds each scenario to its own expectations for seeds 1 to 5.

const SEEDS = [1, 2];

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(process.cwd(), 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

function run(spec: ScenarioSpec, seed: number): RunResult {
  return runScenario(validateScenario(spec), { seed, hash: false });
}

/** The scenario with each consumer changed by `f` (settings --set cannot express: processing, one consumer's config). */
function withConsumers(id: string, f: (c: ConsumerSpec) => ConsumerSpec): ScenarioSpec {
  const s = library(id);
  return { ...s, consumers: (s.consumers ?? []).map(f) };
}

const count = (r: RunResult, check: string): number => r.checks[check]?.count ?? 0;

describe('contrasts: the consumer scenarios with the other setting', () => {
  it('auto-commit-async-at-most-once with processing on the polling thread loses nothing: the crash replays records instead', () => {
    const spec = withConsumers('auto-commit-async-at-most-once', (c) => {
      const { handoff: _handoff, ...processing } = c.processing as Record<string, unknown>;
      return { ...c, processing };
    });
    for (const seed of SEEDS) {
      const withHandoff = run(library('auto-commit-async-at-most-once'), seed);
      const r = run(spec, seed);
      expect(count(withHandoff, 'unprocessed.sms-sender'), `seed ${seed}`).toBeGreaterThan(0);
      expect(r.checks['unprocessed.sms-sender']!.examples, `seed ${seed}`).toEqual([]);
      expect(count(r, 'unprocessed'), `seed ${seed}`).toBe(0);
      // The same crash: what was processed but not yet committed is read again (at-least-once).
      expect(count(r, 're-reads.sms-sender'), `seed ${seed}`).toBeGreaterThan(0);
    }
  });

  it('lag-exceeds-retention-skips with auto.offset.reset=earliest resumes at the log start: only what retention deleted is unseen', () => {
    for (const seed of SEEDS) {
      const latest = run(library('lag-exceeds-retention-skips'), seed);
      const earliest = run(applyOverrides(library('lag-exceeds-retention-skips'), ['consumer.auto.offset.reset=earliest']), seed);
      const reset = (r: RunResult) => ofKind(r.trace, 'consumer.offset.reset').find((e) => e.reason === 'offset out of range')!;
      // Both come back to an offset that retention removed ...
      expect(reset(latest).strategy).toBe('latest');
      expect(reset(earliest).strategy).toBe('earliest');
      // ... earliest moves to the log start (what retention left: the first record read afterwards is there) ...
      const firstAfter = ofKind(earliest.trace, 'consumer.poll').find((e) => e.t > reset(earliest).t)!;
      const firstOffset = (firstAfter.records as { offsets: number[] }[])[0]!.offsets[0]!;
      expect(firstOffset).toBe(reset(earliest).to);
      expect(reset(earliest).to as number).toBeLessThan(reset(latest).to as number);
      // ... so it reads hundreds of records that latest skips, and fewer are unseen.
      expect(count(earliest, 'records-read.reports') - count(latest, 'records-read.reports'), `seed ${seed}`).toBeGreaterThan(200);
      expect(count(earliest, 'unseen.reports'), `seed ${seed}`).toBeLessThan(count(latest, 'unseen.reports') - 200);
      // What earliest still misses is exactly what retention deleted between the last record read before the
      // crash and the log start the consumer came back to.
      let lastRead = -1;
      for (const e of earliest.trace) {
        if (e.kind !== 'consumer.poll' || e.t > reset(earliest).t) continue;
        for (const part of e.records as { offsets: number[] }[]) lastRead = Math.max(lastRead, ...part.offsets);
      }
      expect(count(earliest, 'unseen.reports'), `seed ${seed}`).toBe((reset(earliest).to as number) - lastRead - 1);
    }
  });

  it('slow-consumer-rebalance-storm with max.poll.records=50 is stable: each poll\'s work fits in max.poll.interval.ms', () => {
    for (const seed of SEEDS) {
      const r = run(applyOverrides(library('slow-consumer-rebalance-storm'), ['consumer.max.poll.records=50']), seed);
      expect(count(r, 'rebalances.invoices'), `seed ${seed}`).toBe(1);
      expect(count(r, 're-reads.invoices'), `seed ${seed}`).toBe(0);
      expect(count(r, 'lag.final.invoices'), `seed ${seed}`).toBe(0);
      expect(r.trace.filter((e) => e.kind === 'consumer.leave')).toEqual([]);
    }
  });

  it('static-membership-restart with dynamic members: the same restart costs the group a rebalance and every partition pauses', () => {
    const spec = withConsumers('static-membership-restart', (c) => {
      const { 'group.instance.id': _id, ...config } = c.config ?? {};
      return { ...c, config };
    });
    for (const seed of SEEDS) {
      const r = run(spec, seed);
      expect(count(r, 'rebalances.billing'), `seed ${seed}`).toBeGreaterThanOrEqual(2);
      // Every member gave up its partitions while the group waited for the crashed member to time out.
      expect(count(r, 'rebalance.pause-ms.billing'), `seed ${seed}`).toBeGreaterThan(1000);
    }
  });

  it('eager-vs-cooperative-pause with every member on cooperative-sticky: the first group pauses as little as the second', () => {
    for (const seed of SEEDS) {
      const base = run(library('eager-vs-cooperative-pause'), seed);
      const r = run(applyOverrides(library('eager-vs-cooperative-pause'), ['consumer.partition.assignment.strategy=cooperative-sticky']), seed);
      // The difference is the protocol, not the group: with the same one, both groups pause alike.
      expect(count(base, 'rebalance.pause-ms.eager'), `seed ${seed}`).toBeGreaterThan(2 * count(base, 'rebalance.pause-ms.cooperative'));
      expect(count(r, 'rebalance.pause-ms.eager'), `seed ${seed}`).toBeLessThan(1500);
      expect(count(r, 'rebalances.eager'), `seed ${seed}`).toBe(count(r, 'rebalances.cooperative'));
    }
  });

  it('duplicates-after-crash-before-commit committing before processing: no record twice, but records lost (at-most-once)', () => {
    const spec = withConsumers('duplicates-after-crash-before-commit', (c) => ({
      ...c,
      config: { ...c.config, 'enable.auto.commit': false },
      // Slow enough that the crash lands in the middle of a committed batch.
      processing: { ...c.processing, commit: 'before-processing', recordTime: { kind: 'fixed', ms: 20 } },
    }));
    for (const seed of SEEDS) {
      const r = run(spec, seed);
      expect(count(r, 'unprocessed.shipping'), `seed ${seed}`).toBeGreaterThan(0);
      expect(count(r, 'duplicate'), `seed ${seed}`).toBe(0);
    }
  });

  it('sizing-sale-peak with two partitions for the undersized topic too: its lag stays small', () => {
    const s = library('sizing-sale-peak');
    const spec: ScenarioSpec = { ...s, topics: (s.topics ?? []).map((t) => ({ ...t, partitions: 2 })) };
    for (const seed of SEEDS) {
      const r = run(spec, seed);
      expect(count(r, 'lag.max.undersized'), `seed ${seed}`).toBeLessThan(300);
      expect(count(r, 'group.idle-members'), `seed ${seed}`).toBe(0);
    }
  });
});
