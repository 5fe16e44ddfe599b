import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { cli } from '../../support/cli';
import { scratch } from '../../support/scratch';

/*
 * Three values Kafka accepts froze the simulated clock (a timer re-armed with delay 0 at one instant), and some
 * stopped the cluster from booting with a raw Error. Now each runs as Kafka treats it, or the run says which
 * config keeps the cluster from starting.
 */
const BASE: ScenarioSpec = {
  id: 'freeze',
  duration: '5s',
  quiet: '1s',
  topics: [{ name: 't', partitions: 1, replicationFactor: 3, config: { 'cleanup.policy': 'compact', 'segment.bytes': 2048, 'min.cleanable.dirty.ratio': 0.01 } }],
  producers: [{ id: 'p1', workload: { topic: 't', rate: 50, keys: { kind: 'uniform', count: 5 } } }],
};

const run = (spec: Partial<ScenarioSpec>, full = false) => runScenario(validateScenario({ ...BASE, ...spec, ...(full && { trace: 'full' }) }), { hash: false });

describe('configs that froze the clock run as Kafka treats them', () => {
  it('log.cleaner.backoff.ms=0: the cleaner re-checks without pausing, so it cleans within seconds where 15 s of backoff do not', () => {
    const eager = run({ cluster: { broker: { 'log.cleaner.backoff.ms': 0 } } });
    expect(eager.simulatedMs).toBe(6000);
    const cleaned = eager.trace.filter((e) => e.kind === 'log.clean');
    expect(cleaned.length).toBeGreaterThan(0);
    expect(run({}).trace.filter((e) => e.kind === 'log.clean')).toHaveLength(0);
  });

  it('consumer metadata.max.age.ms=0: metadata is refreshed every retry.backoff.ms (Metadata.timeToAllowUpdate)', () => {
    const consumers = (config: Record<string, unknown>) => [{ id: 'c1', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest', ...config } }];
    const metadataRequests = (config: Record<string, unknown>) =>
      run({ consumers: consumers(config) }, true).trace.filter((e) => e.kind === 'net.send' && e.node === 'c1' && e.type === 'Metadata').length;
    const zero = metadataRequests({ 'metadata.max.age.ms': 0 });
    // 6 s of scenario (the boot before it aside) at one refresh per 100 ms.
    expect(zero).toBeGreaterThanOrEqual(55);
    expect(zero).toBeLessThanOrEqual(70);
    expect(metadataRequests({ 'metadata.max.age.ms': 0, 'retry.backoff.ms': 500 })).toBeLessThanOrEqual(zero / 4);
    expect(metadataRequests({})).toBeLessThan(5);
  });

  it('metadata.max.idle.interval.ms=1: the cluster boots although its metadata log grows every millisecond', () => {
    expect(run({ cluster: { broker: { 'metadata.max.idle.interval.ms': 1 } } }).simulatedMs).toBe(6000);
  });
});

describe('configs with which the cluster cannot boot say so', () => {
  const refused = (broker: Record<string, unknown>): ValidationError => {
    try {
      run({ cluster: { broker } });
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return e as ValidationError;
    }
    throw new Error('the run booted');
  };

  it('controller.quorum.fetch.timeout.ms=1 (Kafka allows 0 and up): the quorum never keeps a leader', () => {
    expect(refused({ 'controller.quorum.fetch.timeout.ms': 1 }).message).toBe(
      'cluster.broker: "controller.quorum.fetch.timeout.ms=1" is not allowed; expected broker configs with which the cluster can start (the cluster did not boot within 120 s of simulated time: brokers did not all register and unfence; controller.quorum.fetch.timeout.ms=1 leaves the controller quorum no time for a round trip, so it never keeps a leader)',
    );
  });

  it('broker.session.timeout.ms=1: brokers are fenced between heartbeats', () => {
    expect(refused({ 'broker.session.timeout.ms': 1 }).message).toMatch(/broker\.session\.timeout\.ms=1 is not longer than broker\.heartbeat\.interval\.ms=2000, so a broker is fenced between two heartbeats/);
  });

  it('a network slower than the controller request timeout says so (fuzz seed 841543435: it was an internal error)', () => {
    const slow = (controllers: number, crossZoneLatencyMs: number) => () => run({ cluster: { controllers, zones: ['a', 'b', 'c'], network: { crossZoneLatencyMs } } });
    expect(slow(1, 1100)).toThrow(
      'cluster: "cluster.network.crossZoneLatencyMs=1100" is not allowed; expected settings with which the cluster can start (the cluster did not boot within 120 s of simulated time: brokers did not all register and unfence; a network round trip of 2200 ms is not shorter than controller.quorum.request.timeout.ms=2000, so requests to the controllers time out)',
    );
    // Just below it one controller boots; three, which must also keep a quorum across zones, do not.
    expect(slow(1, 900)).not.toThrow();
    expect(slow(3, 900)).toThrow(/^cluster: "cluster\.network\.crossZoneLatencyMs=900" is not allowed; .*so one of cluster\.network\.crossZoneLatencyMs=900 prevents it\)$/);
  });

  it('on the command line: exit 2 and one line', async () => {
    const { file } = scratch('freeze');
    const f = file('session.json', JSON.stringify({ ...BASE, cluster: { broker: { 'broker.session.timeout.ms': 1 } } }));
    const r = await cli(['run', f]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^kafkasim: cluster\.broker: "broker\.session\.timeout\.ms=1" is not allowed; expected broker configs with which the cluster can start/);
    expect(r.err.trimEnd()).not.toContain('\n');
  });
});
