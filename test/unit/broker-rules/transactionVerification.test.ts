import { describe, expect, it } from 'vitest';
import { leaderAddsPartition, leaderAsksCoordinator, needsVerification, produceErrorOfVerification, produceSupportedOperation, retryAddOnConcurrent, transactionalProduceVersion } from '../../../sim/kafka/broker/rules/transactionVerification';
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
  const V10 = produceSupportedOperation(10);
  const V11 = produceSupportedOperation(transactionalProduceVersion(1));
  const V12 = produceSupportedOperation(transactionalProduceVersion(2));
  it('a 4.x producer sends v11 under transaction.version 1 and v12 under 2; only v12 lets the leader add', () => {
    expect([V10, V11, V12]).toEqual(['DEFAULT_ERROR', 'GENERIC_ERROR_SUPPORTED', 'ADD_PARTITION']);
  });
  it('PRODUCER_FENCED is told as INVALID_PRODUCER_EPOCH, whatever the version', () => {
    for (const op of [V10, V11, V12]) expect(produceErrorOfVerification('PRODUCER_FENCED', op)).toBe('INVALID_PRODUCER_EPOCH');
  });
  it('not in the transaction: TRANSACTION_ABORTABLE for any client that knows it (v11+), INVALID_TXN_STATE before KIP-890', () => {
    expect(produceErrorOfVerification('TRANSACTION_ABORTABLE', V12)).toBe('TRANSACTION_ABORTABLE');
    expect(produceErrorOfVerification('TRANSACTION_ABORTABLE', V11)).toBe('TRANSACTION_ABORTABLE');
    expect(produceErrorOfVerification('TRANSACTION_ABORTABLE', V10)).toBe('INVALID_TXN_STATE');
  });
  it('a verification that could not be done is the retriable NOT_ENOUGH_REPLICAS; CONCURRENT_TRANSACTIONS unless the leader was adding', () => {
    for (const e of ['COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR', 'COORDINATOR_LOAD_IN_PROGRESS', 'NETWORK_EXCEPTION'] as const) expect(produceErrorOfVerification(e, V12)).toBe('NOT_ENOUGH_REPLICAS');
    expect(produceErrorOfVerification('CONCURRENT_TRANSACTIONS', V10)).toBe('NOT_ENOUGH_REPLICAS');
    expect(produceErrorOfVerification('CONCURRENT_TRANSACTIONS', V11)).toBe('NOT_ENOUGH_REPLICAS');
    expect(produceErrorOfVerification('CONCURRENT_TRANSACTIONS', V12)).toBe('CONCURRENT_TRANSACTIONS');
  });
});

describe('KIP-890 part 2: the leader adds the partition for a version 2 client', () => {
  it('a version 2 client (Produce v12+) has its partition added; older ones are only verified', () => {
    expect([leaderAddsPartition(2), leaderAddsPartition(1), leaderAddsPartition(0)]).toEqual([true, false, false]);
  });
  it('with verification off the leader still adds for version 2, and asks nothing for version 1', () => {
    expect(leaderAsksCoordinator(true, false)).toBe(true);
    expect(leaderAsksCoordinator(false, false)).toBe(false);
    expect(leaderAsksCoordinator(false, true)).toBe(true);
  });
  it('CONCURRENT_TRANSACTIONS is retried for up to min(100 ms, request.timeout.ms); other errors are not', () => {
    expect(retryAddOnConcurrent(['NONE', 'CONCURRENT_TRANSACTIONS'], 0, 30_000)).toBe(true);
    expect(retryAddOnConcurrent(['CONCURRENT_TRANSACTIONS'], 99, 30_000)).toBe(true);
    expect(retryAddOnConcurrent(['CONCURRENT_TRANSACTIONS'], 100, 30_000)).toBe(false);
    expect(retryAddOnConcurrent(['CONCURRENT_TRANSACTIONS'], 50, 40)).toBe(false);
    expect(retryAddOnConcurrent(['PRODUCER_FENCED', 'NONE'], 0, 30_000)).toBe(false);
  });
});

/** A verifier whose coordinator answers when the test says so; timers run when the test calls `tick`. */
function harness(entries: Record<string, { producerEpoch: number; currentTxnFirstOffset?: number } | undefined> = {}, enabled = true) {
  const asked: Omit<AddPartitionsToTxnRequest, 'correlationId'>[] = [];
  const answers: ((r: AddPartitionsToTxnResponse | { error: KafkaError; results: [] }) => void)[] = [];
  const traced: string[] = [];
  let now = 0;
  const timers: { at: number; fn: () => void }[] = [];
  const tick = (toMs: number): void => {
    now = toMs;
    for (const t of timers.splice(0).filter((x) => x.at <= toMs || (timers.push(x), false))) t.fn();
  };
  const host: VerifierHost = {
    nowMs: () => now,
    setTimer: (delay, fn) => void timers.push({ at: now + delay / 1000, fn }),
    requestTimeoutMs: 30_000,
    brokerId: 1,
    nodeId: 'broker-1',
    trace: { emit: (_k, _n, e) => void traced.push(`${e.topic}-${e.partition} ${e.error}`) },
    producerAt: (topic, partition) => entries[`${topic}-${partition}`],
    askCoordinator: (_id, request, done) => {
      asked.push(request);
      answers.push(done);
    },
  };
  return { verifier: new TransactionVerifier(host, enabled), asked, answers, traced, tick };
}

const produce = (topic: string, epoch = 0, transactional = true, transactionVersion: 1 | 2 = 1): ProduceRequest => ({
  type: 'Produce',
  correlationId: 1,
  acks: -1,
  timeoutMs: 30_000,
  transactionalId: 'ledger-1',
  transactionVersion,
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

  it('version 2: the leader adds the partition (verifyOnly false), even with partition verification off', () => {
    const h = harness({}, false);
    const done: string[] = [];
    h.verifier.verify('ledger', produce('a', 4, true, 2), (refused) => done.push([...refused.values()].join(',')));
    expect(h.asked.map((r) => [r.verifyOnly, r.transactionVersion, r.producerEpoch])).toEqual([[false, 2, 4]]);
    h.answers[0]!(answer('a', 'NONE'));
    expect(done).toEqual(['']);
    // Version 1 with verification off: nothing is asked.
    h.verifier.verify('other', produce('b', 0, true, 1), (refused) => done.push(`b${refused.size}`));
    expect([h.asked.length, done]).toEqual([1, ['', 'b0']]);
  });

  it('version 2: CONCURRENT_TRANSACTIONS is retried every 20 ms while the connection stays muted, then given to the client', () => {
    const h = harness();
    const order: string[] = [];
    h.verifier.verify('ledger', produce('a', 4, true, 2), (refused) => order.push(`a ${[...refused.values()].join(',')}`));
    h.verifier.verify('ledger', produce('b', 4, false, 2), () => order.push('b'));
    for (let i = 0; i < 5; i++) {
      h.answers[i]!(answer('a', 'CONCURRENT_TRANSACTIONS'));
      expect(order).toEqual([]);
      h.tick((i + 1) * 20);
    }
    // Asked at 0, 20, ..., 100 ms: the sixth answer comes at the 100 ms cap and goes to the client as is (version 2).
    expect(h.asked.length).toBe(6);
    h.answers[5]!(answer('a', 'CONCURRENT_TRANSACTIONS'));
    expect(order).toEqual(['a CONCURRENT_TRANSACTIONS', 'b']);
  });

  it('version 2: a retry that the coordinator then accepts appends', () => {
    const h = harness();
    const done: string[] = [];
    h.verifier.verify('ledger', produce('a', 4, true, 2), (refused) => done.push(`${refused.size}`));
    h.answers[0]!(answer('a', 'CONCURRENT_TRANSACTIONS'));
    h.tick(20);
    h.answers[1]!(answer('a', 'NONE'));
    expect(done).toEqual(['0']);
  });

  it('version 1: CONCURRENT_TRANSACTIONS of a verification is not retried: the retriable NOT_ENOUGH_REPLICAS', () => {
    const h = harness();
    const refused: string[] = [];
    h.verifier.verify('ledger', produce('a', 4, true, 1), (r) => refused.push(...r.values()));
    h.answers[0]!(answer('a', 'CONCURRENT_TRANSACTIONS'));
    expect([h.asked.length, refused]).toEqual([1, ['NOT_ENOUGH_REPLICAS']]);
  });

  it('a group coordinator adds its offsets partition for a version 2 TxnOffsetCommit; a fenced epoch is INVALID_PRODUCER_EPOCH', () => {
    const h = harness();
    const errors: string[] = [];
    h.verifier.addOffsetsPartition('ledger-1', 7, 2, { topic: '__consumer_offsets', partition: 9 }, (e) => errors.push(e));
    h.verifier.addOffsetsPartition('ledger-1', 7, 1, { topic: '__consumer_offsets', partition: 9 }, (e) => errors.push(e));
    expect(h.asked.map((r) => [r.verifyOnly, r.partitions])).toEqual([
      [false, [{ topic: '__consumer_offsets', partition: 9 }]],
      [false, [{ topic: '__consumer_offsets', partition: 9 }]],
    ]);
    h.answers[0]!({ type: 'AddPartitionsToTxnResponse', correlationId: 0, error: 'NONE', results: [{ topic: '__consumer_offsets', partition: 9, error: 'NONE' }] });
    h.answers[1]!({ type: 'AddPartitionsToTxnResponse', correlationId: 0, error: 'NONE', results: [{ topic: '__consumer_offsets', partition: 9, error: 'PRODUCER_FENCED' }] });
    expect(errors).toEqual(['NONE', 'INVALID_PRODUCER_EPOCH']);
  });
});
