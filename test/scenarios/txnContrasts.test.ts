import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

// The transaction scenarios that teach by contrast, run again with the other setting (the library test holds each
// to its own expectations for seeds 1 to 5).

const SEEDS = [1, 2];

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(process.cwd(), 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

function run(spec: ScenarioSpec, seed: number): RunResult {
  return runScenario(validateScenario(spec), { seed, hash: false });
}

const count = (r: RunResult, check: string): number => r.checks[check]?.count ?? 0;

function withCluster(spec: ScenarioSpec, version: 1 | 2, verification: boolean): ScenarioSpec {
  return {
    ...spec,
    cluster: { ...spec.cluster, features: { 'transaction.version': version }, broker: { ...spec.cluster?.broker, 'transaction.partition.verification.enable': verification } },
  };
}

/** How the leader refused the straggler (KIP-890 part 1's verification), if it did. */
const unverified = (r: RunResult) => r.trace.filter((e) => e.kind === 'txn.unverified').map((e) => (e as unknown as { error: string }).error);
/** Whether the delayed batch (the aborted transaction's last record) was appended by the leader after all. */
const stragglerAppended = (r: RunResult) =>
  r.trace.some((e) => e.kind === 'replica.append' && (e as unknown as { role: string }).role === 'leader' && ((e as unknown as { values?: string[] }).values ?? []).includes('ledger:21'));

describe('contrasts: a straggler of an aborted transaction under each transaction protocol (KIP-890)', () => {
  it('version 1 without verification appends it: a transaction nobody ends pins the LSO and read_committed stalls to the end', () => {
    for (const seed of SEEDS) {
      const r = run(withCluster(library('txn-straggler-transaction-version'), 1, false), seed);
      expect(stragglerAppended(r), `seed ${seed}`).toBe(true);
      // From its arrival (8.15 s) to the end of the run (17 s) the LSO stays at its offset.
      expect(count(r, 'lso-stall-ms'), `seed ${seed}`).toBeGreaterThan(8000);
      expect(count(r, 'unseen.committed'), `seed ${seed}`).toBeGreaterThan(50);
      expect(unverified(r), `seed ${seed}`).toEqual([]);
    }
  });

  it('version 1 with partition verification (KIP-890 part 1): the coordinator does not know the partition, TRANSACTION_ABORTABLE (a 4.x client sends Produce v11)', () => {
    for (const seed of SEEDS) {
      const r = run(withCluster(library('txn-straggler-transaction-version'), 1, true), seed);
      expect(unverified(r), `seed ${seed}`).toEqual(['TRANSACTION_ABORTABLE']);
      expect(stragglerAppended(r), `seed ${seed}`).toBe(false);
      expect(count(r, 'lso-stall-ms'), `seed ${seed}`).toBeLessThan(3000);
      expect(count(r, 'unseen.committed'), `seed ${seed}`).toBe(0);
    }
  });

  it('version 2 without verification: the leader still adds the partition itself (part 2), and the coordinator finds the epoch fenced', () => {
    for (const seed of SEEDS) {
      const r = run(withCluster(library('txn-straggler-transaction-version'), 2, false), seed);
      expect(unverified(r), `seed ${seed}`).toEqual(['INVALID_PRODUCER_EPOCH']);
      expect(stragglerAppended(r), `seed ${seed}`).toBe(false);
      expect(count(r, 'unseen.committed'), `seed ${seed}`).toBe(0);
    }
  });
});

describe('contrasts: the cost of transactions under transaction.version 1 (KIP-890 part 2)', () => {
  it('the client adds its partition itself: AddPartitionsToTxn meets the last transaction\'s markers (CONCURRENT_TRANSACTIONS), 3 requests a transaction, under half the throughput', () => {
    for (const seed of SEEDS) {
      const v2 = run(library('txn-cost-of-transactions'), seed);
      const v1 = run(withCluster(library('txn-cost-of-transactions'), 1, true), seed);
      expect([count(v2, 'transactions.requests-per-transaction'), count(v1, 'transactions.requests-per-transaction')], `seed ${seed}`).toEqual([1, 3]);
      const refusedAdds = v1.trace.filter((e) => e.kind === 'txn.refused' && (e as unknown as { error: string }).error === 'CONCURRENT_TRANSACTIONS').length;
      expect(refusedAdds, `seed ${seed}`).toBe(count(v1, 'transactions.committed'));
      expect(count(v1, 'acked.orders-0'), `seed ${seed}`).toBeLessThan(0.5 * count(v2, 'acked.orders-0'));
      // The same work per transaction otherwise: one batch, one marker.
      expect(count(v1, 'transactions.batches-per-transaction'), `seed ${seed}`).toBe(1);
      expect(count(v1, 'transactions.markers'), `seed ${seed}`).toBe(count(v1, 'transactions.committed'));
    }
  });
});

describe('contrasts: the cost of transactions at another transaction size', () => {
  it('transactionSize 2000: the fixed cost spread over 400 times more records, near the idempotent producer', () => {
    for (const seed of SEEDS) {
      const spec = library('txn-cost-of-transactions');
      const large: ScenarioSpec = {
        ...spec,
        producers: spec.producers!.map((p) => (p.id === 'orders' ? { ...p, workload: { ...p.workload!, transactionSize: 2000 } } : p)),
      };
      const r = run(large, seed);
      // Within 5% of the idempotent producer's acknowledgements, with batches as full as its own.
      expect(count(r, 'acked.orders-0'), `seed ${seed}`).toBeGreaterThan(0.95 * count(r, 'acked.clicks-0'));
      expect(count(r, 'producer.records-per-batch.min'), `seed ${seed}`).toBeGreaterThan(0.9 * count(r, 'producer.records-per-batch.max'));
      expect(count(r, 'transactions.batches-per-transaction'), `seed ${seed}`).toBeGreaterThan(50);
      expect(count(r, 'transactions.markers'), `seed ${seed}`).toBe(count(r, 'transactions.committed'));
      expect(count(r, 'transactions.committed'), `seed ${seed}`).toBeLessThan(6);
    }
  });
});

describe('contrasts: a zombie consume-transform-produce instance (KIP-447)', () => {
  // A version 2 TxnOffsetCommit may meet the leader's add of an output partition (CONCURRENT_TRANSACTIONS): retried, not a fence.
  const refused = (r: RunResult) =>
    r.trace
      .filter((e) => e.kind === 'group.offset.txn' && (e as unknown as { result: string }).result === 'refused')
      .map((e) => (e as unknown as { error: string }).error)
      .filter((e) => e !== 'CONCURRENT_TRANSACTIONS');

  it('exactly_once_v2: the zombie\'s TxnOffsetCommit is refused by its group (its member expired), its transaction aborted', () => {
    for (const seed of SEEDS) {
      const r = run(library('txn-zombie-consumer-fenced'), seed);
      expect(refused(r), `seed ${seed}`).toEqual(['UNKNOWN_MEMBER_ID']);
      expect(count(r, 'transactions.fenced'), `seed ${seed}`).toBe(0); // fenced by the group, not by a producer epoch
    }
  });

  it('at_least_once: the zombie\'s outputs are written anyway and its partition\'s orders are enriched twice', () => {
    for (const seed of SEEDS) {
      const spec = library('txn-zombie-consumer-fenced');
      const alo: ScenarioSpec = {
        ...spec,
        consumers: spec.consumers!.map((c) => (c.transform ? { ...c, transform: { ...c.transform, guarantee: 'at_least_once' as const } } : c)),
      };
      const r = run(alo, seed);
      expect(count(r, 'output-duplicates'), `seed ${seed}`).toBeGreaterThan(0);
      expect(count(r, 'transactions.committed'), `seed ${seed}`).toBe(0);
    }
  });
});
