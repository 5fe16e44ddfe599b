import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../sim/scenario/overrides';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// The share-group scenarios of the library run again with another setting: the outcome a Kafka expert predicts
// must follow. (The library test holds each to its own expectations for seeds 1 to 5.)

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(process.cwd(), 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

const run = (spec: ScenarioSpec, seed: number): RunResult => runScenario(validateScenario(spec), { seed, hash: false });
const count = (r: RunResult, check: string): number => r.checks[check]?.count ?? 0;

/** The scenario with its share consumers' processing changed. */
function withShareProcessing(spec: ScenarioSpec, change: (p: Record<string, unknown>) => Record<string, unknown>): ScenarioSpec {
  return { ...spec, shareConsumers: (spec.shareConsumers ?? []).map((c) => ({ ...c, processing: change({ ...(c.processing ?? {}) }) })) };
}

describe('share groups: the same schedule with the other setting', () => {
  it('share-group-poison-pill with group.share.delivery.count.limit=3 delivers the pill three times', () => {
    const r = run(applyOverrides(library('share-group-poison-pill'), ['broker.group.share.delivery.count.limit=3']), 2);
    expect(count(r, 'share.deliveries.max')).toBe(3);
    expect(count(r, 'share.archived')).toBe(1);
    expect(count(r, 'share.unfinished')).toBe(0);
  });

  it('share-group-poison-pill acknowledging the pill with REJECT archives it on its first delivery', () => {
    const spec = withShareProcessing(library('share-group-poison-pill'), (p) => ({ ...p, failures: [{ valuePrefix: 'bad-schema:', times: 'always', ack: 'reject' }] }));
    const r = run(spec, 1);
    expect(count(r, 'share.deliveries.max')).toBe(1);
    expect(count(r, 'share.archived')).toBe(1);
    expect(count(r, 'share.redelivered')).toBe(0);
  });

  it('share-consumer-crash-redelivery without its faults delivers every job once: no lock expires, nothing is refused', () => {
    const r = run({ ...library('share-consumer-crash-redelivery'), faults: [] }, 1);
    expect(count(r, 'share.lock-expired')).toBe(0);
    expect(count(r, 'share.deliveries.max')).toBe(1);
    expect(count(r, 'share.acks-refused')).toBe(0);
    expect(count(r, 'share.unfinished')).toBe(0);
  });

  it('share-group-key-order-lost with a single share consumer keeps each key in order', () => {
    const spec = library('share-group-key-order-lost');
    const one = { ...spec, consumers: [], shareConsumers: (spec.shareConsumers ?? []).map((c) => ({ ...c, count: 1, processing: { recordTime: { kind: 'fixed', ms: 10 } } })) };
    const r = run(one, 1);
    expect(count(r, 'share.order-breaks')).toBe(0);
    expect(count(r, 'share.unfinished')).toBe(0);
  });

  it('share-consumer-long-processing-renew without RENEW: locks expire mid-job, jobs are done again and the late ACCEPTs refused', () => {
    const spec = withShareProcessing(library('share-consumer-long-processing-renew'), (p) => {
      const { renew: _renew, ...rest } = p;
      return rest;
    });
    const r = run(spec, 1);
    expect(count(r, 'share.lock-expired')).toBeGreaterThan(0);
    expect(count(r, 'share.deliveries.max')).toBeGreaterThanOrEqual(2);
    expect(count(r, 'share.acks-refused')).toBeGreaterThan(0);
    expect(count(r, 'share.acked-by-non-holder')).toBe(0);
  });

  it('share-group-in-flight-cap with the broker default (2000 record locks) lets the window grow past 100', () => {
    const spec = library('share-group-in-flight-cap');
    const r = run({ ...spec, groups: [{ id: 'reports', config: { 'share.auto.offset.reset': 'earliest' } }] }, 1);
    expect(count(r, 'share.in-flight.max')).toBeGreaterThan(100);
    expect(count(r, 'share.unfinished')).toBe(0);
  });

  it('share-group-poison-pill-dead-letter at share.version 1 (no DLQ support) archives the pill without writing it anywhere', () => {
    const spec = library('share-group-poison-pill-dead-letter');
    const r = run({ ...spec, cluster: { ...spec.cluster, features: { 'share.version': 1 } } }, 1);
    expect(count(r, 'share.deliveries.max')).toBe(5);
    expect(count(r, 'share.archived')).toBe(1);
    expect(count(r, 'share.dead-lettered')).toBe(0);
    expect(count(r, 'records-read.dlq-audit')).toBe(0);
  });

  it('share-group-poison-pill-dead-letter without its DLQ topic (and no auto-create) fails the DLQ write and archives the pill anyway', () => {
    const spec = library('share-group-poison-pill-dead-letter');
    const r = run({ ...spec, topics: (spec.topics ?? []).filter((t) => t.name !== 'dlq.payments'), consumers: [], expect: [] }, 1);
    expect(count(r, 'share.dead-lettered')).toBe(0);
    expect(count(r, 'share.dead-letter-failed')).toBe(1);
    expect(count(r, 'share.archived')).toBe(1);
    expect(count(r, 'share.unfinished')).toBe(0);
  });

  it('share-group-poison-pill-dead-letter without its DLQ topic but with errors.deadletterqueue.auto.create.topics.enable creates it and writes the pill', () => {
    const spec = library('share-group-poison-pill-dead-letter');
    const noTopic = { ...spec, topics: (spec.topics ?? []).filter((t) => t.name !== 'dlq.payments'), consumers: [], expect: [] };
    const r = run(applyOverrides(noTopic, ['broker.errors.deadletterqueue.auto.create.topics.enable=true']), 1);
    expect(count(r, 'share.dead-lettered')).toBe(1);
    expect(count(r, 'share.dead-letter-failed')).toBe(0);
    expect(r.trace.some((e) => e.kind === 'share.dead-letter' && (e as unknown as { dlqTopic: string }).dlqTopic === 'dlq.payments')).toBe(true);
  });

  it('share-group-poison-pill-dead-letter acknowledging the pill with REJECT dead-letters it on its first delivery', () => {
    const spec = withShareProcessing(library('share-group-poison-pill-dead-letter'), (p) => ({ ...p, failures: [{ valuePrefix: 'bad-schema:', times: 'always', ack: 'reject' }] }));
    const r = run(spec, 1);
    expect(count(r, 'share.deliveries.max')).toBe(1);
    expect(count(r, 'share.dead-lettered')).toBe(1);
    expect(r.checks['share.dead-lettered']?.examples[0]).toMatch(/rejected/);
  });
});
