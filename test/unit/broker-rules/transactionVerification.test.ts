import { describe, expect, it } from 'vitest';
import { needsVerification, produceErrorOfVerification } from '../../../sim/kafka/broker/rules/transactionVerification';
import { TransactionVerifier, type VerifierHost } from '../../../sim/kafka/broker/transactionVerifier';
import type { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ProduceRequest } from '../../../sim/kafka/protocol';
import type { KafkaError } from '../../../sim/kafka/errors';
import { buildBatch } from '../../../sim/kafka/records';

describe('KIP-890 part 1: which transactional batches the leader verifies', () => {
  const txn = { isTransactional: true, producerEpoch: 3 };
  it('the first batch of a transaction at the partition (no entry, or no transaction open there)', () => {
    expect(needsVerification(txn, undefined)).toBe(true);
    expect(needsVerification(txn, { producerEpoch: 3 })).toBe(true);
  });
  it('not a later batch of a transaction open here with the same epoch', () => {
    expect(needsVerification(txn, { producerEpoch: 3, currentTxnFirstOffset: 40 })).toBe(false);
  });
  it('a batch with another epoch than the open transaction (a fenced or a newer instance) is verified', () => {
    expect(needsVerification(txn, { producerEpoch: 2, currentTxnFirstOffset: 40 })).toBe(true);
  });
  it('never a non-transactional batch', () => {
    expect(needsVerification({ isTransactional: false, producerEpoch: 3 }, undefined)).toBe(false);
  });
});

describe('the produce error for an unverified partition', () => {
  it('PRODUCER_FENCED is told as INVALID_PRODUCER_EPOCH, whatever the version', () => {
    expect(produceErrorOfVerification('PRODUCER_FENCED', 1)).toBe('INVALID_PRODUCER_EPOCH');
    expect(produceErrorOfVerification('PRODUCER_FENCED', 2)).toBe('INVALID_PRODUCER_EPOCH');
  });
  it('not in the transaction: TRANSACTION_ABORTABLE for a version 2 client, INVALID_TXN_STATE before', () => {
    expect(produceErrorOfVerification('TRANSACTION_ABORTABLE', 2)).toBe('TRANSACTION_ABORTABLE');
    expect(produceErrorOfVerification('TRANSACTION_ABORTABLE', 1)).toBe('INVALID_TXN_STATE');
  });
  it('a verification that could not be done is the retriable NOT_ENOUGH_REPLICAS; CONCURRENT_TRANSACTIONS only for version 1', () => {
    for (const e of ['COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR', 'COORDINATOR_LOAD_IN_PROGRESS', 'NETWORK_EXCEPTION'] as const) expect(produceErrorOfVerification(e, 2)).toBe('NOT_ENOUGH_REPLICAS');
    expect(produceErrorOfVerification('CONCURRENT_TRANSACTIONS', 1)).toBe('NOT_ENOUGH_REPLICAS');
    expect(produceErrorOfVerification('CONCURRENT_TRANSACTIONS', 2)).toBe('CONCURRENT_TRANSACTIONS');
  });
});

/** A verifier whose coordinator answers when the test says so. */
function harness(entries: Record<string, { producerEpoch: number; currentTxnFirstOffset?: number } | undefined> = {}) {
  const asked: Omit<AddPartitionsToTxnRequest, 'correlationId'>[] = [];
  const answers: ((r: AddPartitionsToTxnResponse | { error: KafkaError; results: [] }) => void)[] = [];
  const traced: string[] = [];
  const host: VerifierHost = {
    brokerId: 1,
    nodeId: 'broker-1',
    trace: { emit: (_k, _n, e) => void traced.push(`${e.topic}-${e.partition} ${e.error}`) },
    producerAt: (topic, partition) => entries[`${topic}-${partition}`],
    askCoordinator: (_id, request, done) => {
      asked.push(request);
      answers.push(done);
    },
  };
  return { verifier: new TransactionVerifier(host, true), asked, answers, traced };
}

const produce = (topic: string, epoch = 0, transactional = true): ProduceRequest => ({
  type: 'Produce',
  correlationId: 1,
  acks: -1,
  timeoutMs: 30_000,
  transactionalId: 'ledger-1',
  transactionVersion: 2,
  partitions: [{ topic, partition: 0, batch: buildBatch([{ key: null, value: 'v', timestamp: 0 }], { producerId: 7, producerEpoch: epoch, baseSequence: 0, isTransactional: transactional }) }],
});

const answer = (topic: string, error: KafkaError): AddPartitionsToTxnResponse => ({ type: 'AddPartitionsToTxnResponse', correlationId: 0, error: 'NONE', results: [{ topic, partition: 0, error }] });

describe('TransactionVerifier', () => {
  it('asks verify-only for the first batch, and appends it once the coordinator says the partition is in the transaction', () => {
    const h = harness();
    const done: string[] = [];
    h.verifier.verify('ledger', produce('a'), (refused) => done.push(`a ${[...refused.values()].join(',')}`));
    expect(h.asked.map((r) => [r.verifyOnly, r.producerId, r.producerEpoch, r.partitions.map((p) => p.topic)])).toEqual([[true, 7, 0, ['a']]]);
    expect(done).toEqual([]);
    h.answers[0]!(answer('a', 'NONE'));
    expect(done).toEqual(['a ']);
  });

  it('does not ask for a batch of a transaction already open at the partition', () => {
    const h = harness({ 'a-0': { producerEpoch: 0, currentTxnFirstOffset: 5 } });
    const done: number[] = [];
    h.verifier.verify('ledger', produce('a'), (refused) => done.push(refused.size));
    expect([h.asked.length, done]).toEqual([0, [0]]);
  });

  it('refuses what the coordinator does not know, mapped for the client (fenced epoch -> INVALID_PRODUCER_EPOCH)', () => {
    const h = harness();
    const refused: string[] = [];
    h.verifier.verify('ledger', produce('a'), (r) => refused.push(...r.values()));
    h.answers[0]!(answer('a', 'PRODUCER_FENCED'));
    expect(refused).toEqual(['INVALID_PRODUCER_EPOCH']);
    expect(h.traced).toEqual(['a-0 INVALID_PRODUCER_EPOCH']);
  });

  it('a marker written while the coordinator was asked voids the verification: INVALID_TXN_STATE', () => {
    const h = harness();
    const refused: string[] = [];
    h.verifier.verify('ledger', produce('a'), (r) => refused.push(...r.values()));
    h.verifier.onMarker('a', 0, 7);
    h.answers[0]!(answer('a', 'NONE'));
    expect(refused).toEqual(['INVALID_TXN_STATE']);
  });

  it('mutes the connection: a later Produce on it waits for the one being verified, then goes in order', () => {
    const h = harness();
    const order: string[] = [];
    h.verifier.verify('ledger', produce('a'), () => order.push('a'));
    h.verifier.verify('ledger', produce('b', 0, false), () => order.push('b'));
    h.verifier.verify('other', produce('c', 0, false), () => order.push('c'));
    expect(order).toEqual(['c']);
    h.answers[0]!(answer('a', 'NONE'));
    expect(order).toEqual(['c', 'a', 'b']);
  });
});
