import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';
import { hasTransactions } from '../../../sim/scenario/transactions';

const BASE: ScenarioSpec = {
  id: 'txn-validation',
  duration: '10s',
  topics: [{ name: 'orders', partitions: 2, replicationFactor: 3 }],
  producers: [{ id: 'p1', config: { 'transactional.id': 'app' }, workload: { topic: 'orders', rate: 10, transactionSize: 5, abortProbability: 0.2 } }],
};

function refused(spec: Partial<ScenarioSpec>, re: RegExp): void {
  let caught: unknown;
  try {
    validateScenario({ ...BASE, ...spec });
  } catch (e) {
    caught = e;
  }
  expect(caught, `accepted: ${JSON.stringify(spec).slice(0, 200)}`).toBeInstanceOf(ValidationError);
  expect((caught as Error).message).toMatch(re);
}

describe('transactions in the scenario language', () => {
  it('a transactional producer, its transaction size, abort probability and a later start are read', () => {
    const s = validateScenario({ ...BASE, producers: [{ ...BASE.producers![0]!, start: '4s' }] });
    expect(hasTransactions(s)).toBe(true);
    expect(s.producers[0]!.config['transactional.id']).toBe('app');
    expect(s.producers[0]!.config['transaction.timeout.ms']).toBe(60_000);
    expect(s.producers[0]!.workloads[0]).toMatchObject({ transactionSize: 5, abortProbability: 0.2 });
    expect(s.producers[0]!.startUs).toBe(4_000_000);
    expect(hasTransactions(validateScenario({ ...BASE, producers: [{ id: 'p1', workload: { topic: 'orders', rate: 10 } }] }))).toBe(false);
  });

  it('refuses transaction settings a non-transactional producer cannot use, and bad values', () => {
    refused({ producers: [{ id: 'p1', workload: { topic: 'orders', rate: 10, transactionSize: 5 } }] }, /producers\[0\]\.workload\.transactionSize: 5 .*transactional\.id/);
    refused({ producers: [{ id: 'p1', config: { 'transactional.id': 'app' }, workload: { topic: 'orders', rate: 10, abortProbability: 0.5 } }] }, /abortProbability.*a transactionSize beside it/);
    refused({ producers: [{ id: 'p1', config: { 'transactional.id': 'app' }, workload: { topic: 'orders', rate: 10, transactionSize: 5, abortProbability: 2 } }] }, /abortProbability/);
    refused({ producers: [{ id: 'p1', config: { 'transactional.id': 'app' }, workload: { topic: 'orders', rate: 10, transactionSize: 0 } }] }, /transactionSize/);
    refused(
      { producers: [{ id: 'p1', config: { 'transactional.id': 'app' }, workload: [{ topic: 'orders', rate: 10 }, { topic: 'orders', rate: 5 }] }] },
      /one workload for a transactional producer/,
    );
    refused({ producers: [{ id: 'p1', config: { 'transactional.id': 'app', 'enable.idempotence': false }, workload: { topic: 'orders', rate: 10 } }] }, /transactional\.id needs enable\.idempotence=true/);
    refused({ producers: [{ ...BASE.producers![0]!, start: '11s' }] }, /producers\[0\]\.start/);
  });
});

describe('a consume-transform-produce application in the scenario language', () => {
  const TWO: Partial<ScenarioSpec> = {
    topics: [
      { name: 'orders', partitions: 2, replicationFactor: 3 },
      { name: 'orders-out', partitions: 2, replicationFactor: 3 },
    ],
    producers: [{ id: 'p1', workload: { topic: 'orders', rate: 10 } }],
  };
  const app = (transform: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...TWO, consumers: [{ id: 'copier', group: 'copier', topics: ['orders'], transform, ...extra }] }) as unknown as Partial<ScenarioSpec>;

  it('exactly_once_v2 gets a transactional producer beside it, read_committed input and no auto-commit', () => {
    const s = validateScenario({ ...BASE, ...app({ topic: 'orders-out', guarantee: 'exactly_once_v2' }) });
    const c = s.consumers[0]!;
    expect(c.transform).toMatchObject({ topic: 'orders-out', guarantee: 'exactly_once_v2', producerId: 'copier-producer' });
    expect(c.transform!.producerConfig['transactional.id']).toBe('copier');
    expect([c.config['isolation.level'], c.config['enable.auto.commit']]).toEqual(['read_committed', false]);
    expect(hasTransactions(s)).toBe(true);
    const alo = validateScenario({ ...BASE, ...app({ topic: 'orders-out' }) });
    expect([alo.consumers[0]!.transform!.guarantee, alo.consumers[0]!.transform!.producerConfig['transactional.id'], hasTransactions(alo)]).toEqual(['at_least_once', null, false]);
  });

  it('refuses an unknown output topic, the input topic, no group, auto-commit and a transactional.id at least once', () => {
    refused(app({ topic: 'nowhere' }), /transform\.topic.*a topic of this scenario/);
    refused(app({ topic: 'orders' }), /a topic the application does not read/);
    refused({ ...TWO, consumers: [{ id: 'copier', topics: ['orders'], transform: { topic: 'orders-out' } }] } as Partial<ScenarioSpec>, /a group/);
    refused(app({ topic: 'orders-out' }, { config: { 'enable.auto.commit': true } }), /enable\.auto\.commit/);
    refused(app({ topic: 'orders-out', producer: { 'transactional.id': 'x' } }), /no transactional\.id with guarantee at_least_once/);
    refused(app({ topic: 'orders-out', guarantee: 'exactly_once' }), /guarantee/);
  });
});

describe('cluster.features.transaction.version', () => {
  it('is 2 unless set; 1 with partition verification on (the default) or off', () => {
    expect(validateScenario(BASE).cluster.transactionVersion).toBe(2);
    const tv1 = validateScenario({ ...BASE, cluster: { features: { 'transaction.version': 1 }, broker: { 'transaction.partition.verification.enable': false } } });
    expect(tv1.cluster.transactionVersion).toBe(1);
    expect(validateScenario({ ...BASE, cluster: { features: { 'transaction.version': 1 } } }).cluster.transactionVersion).toBe(1);
    refused({ cluster: { features: { 'transaction.version': 3 as 2 } } }, /cluster\.features\.transaction\.version.*1 or 2/);
    refused({ cluster: { features: { 'metadata.version': 1 } as unknown as { 'transaction.version': 2 } } }, /cluster\.features/);
  });
});
