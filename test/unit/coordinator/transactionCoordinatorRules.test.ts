import { describe, expect, it } from 'vitest';
import { decideAddPartitions, verifyPartitionsInTransaction } from '../../../sim/kafka/coordinator/transaction/addPartitionsToTxn';
import type { CoordinatorDecision } from '../../../sim/kafka/coordinator/transaction/coordinatorDecision';
import { decideEndTxn, type EndTxnInput } from '../../../sim/kafka/coordinator/transaction/endTxn';
import { decideInitProducerId, type InitProducerIdInput } from '../../../sim/kafka/coordinator/transaction/initProducerId';
import {
  completeTransitionTo,
  prepareComplete,
  type TransactionMetadata,
  type TransactionVersion,
} from '../../../sim/kafka/coordinator/transaction/transactionMetadata';
import { isTimedOut, shouldExpire, timedOutTransactions } from '../../../sim/kafka/coordinator/transaction/transactionExpiry';
import {
  isValidTransition,
  TRANSACTION_STATE_ID,
  TRANSACTION_STATES,
  transactionStateFromId,
  type TransactionState,
} from '../../../sim/kafka/coordinator/transaction/transactionState';
import { partitionForTransactionalId } from '../../../sim/kafka/coordinator/transaction/transactionStateTopic';
import { BROKER_CONFIGS } from '../../../sim/kafka/config/configs';
import { resolveConfig } from '../../../sim/kafka/config/def';
import { transactionTopics } from '../../../sim/scenario/transactions';

/** Apply a write decision as the coordinator does once the log write commits. */
function commit(d: CoordinatorDecision): TransactionMetadata {
  if (d.kind !== 'write') throw new Error(`expected a write, got ${JSON.stringify(d)}`);
  return completeTransitionTo(d.metadata, d.transit);
}

let nextPid = 1000;
function init(over: Partial<InitProducerIdInput> = {}): CoordinatorDecision {
  return decideInitProducerId({
    transactionalId: 'txn-1',
    metadata: undefined,
    transactionTimeoutMs: 60_000,
    maxTransactionTimeoutMs: 900_000,
    nowMs: 0,
    serverTransactionVersion: 2,
    generateProducerId: () => nextPid++,
    ...over,
  });
}

function end(m: TransactionMetadata | undefined, over: Partial<EndTxnInput>): CoordinatorDecision {
  return decideEndTxn({
    metadata: m,
    producerId: m?.producerId ?? 1,
    producerEpoch: m?.producerEpoch ?? 0,
    result: 'COMMIT',
    isFromClient: true,
    clientTransactionVersion: m?.clientTransactionVersion ?? 2,
    nowMs: 10,
    generateProducerId: () => nextPid++,
    ...over,
  });
}

/** A fresh id initialised, then a transaction with one partition added. */
function ongoing(tv: TransactionVersion, partitions = ['out-0']): TransactionMetadata {
  const m = commit(init({ serverTransactionVersion: tv }));
  return commit(decideAddPartitions({ metadata: m, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions, clientTransactionVersion: tv, nowMs: 5 }));
}

function errorOf(d: CoordinatorDecision): string {
  return d.kind === 'error' ? d.error : d.kind;
}

describe('transaction states (TransactionState.java)', () => {
  it('has Kafka ids and the valid predecessors, including the TV2 aborts from Empty and Complete*', () => {
    expect(TRANSACTION_STATES.map((s) => TRANSACTION_STATE_ID[s])).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(transactionStateFromId(7)).toBe('PrepareEpochFence');
    expect(() => transactionStateFromId(8)).toThrow(/Unknown transaction state id 8/);
    const allowed = (to: TransactionState) => TRANSACTION_STATES.filter((from) => isValidTransition(from, to));
    expect(allowed('PrepareCommit')).toEqual(['Ongoing']);
    expect(allowed('CompleteCommit')).toEqual(['PrepareCommit']);
    expect(allowed('CompleteAbort')).toEqual(['PrepareAbort']);
    expect(allowed('PrepareAbort').sort()).toEqual(['CompleteAbort', 'CompleteCommit', 'Empty', 'Ongoing', 'PrepareEpochFence']);
    expect(allowed('PrepareEpochFence')).toEqual(['Ongoing']);
    expect(allowed('Dead').sort()).toEqual(['CompleteAbort', 'CompleteCommit', 'Empty']);
    expect(isValidTransition('PrepareCommit', 'Ongoing')).toBe(false);
  });
});

describe('coordinator partition of a transactional id (Utils.abs(hashCode) % 50)', () => {
  it('matches hand-computed Java String.hashCode values', () => {
    // "txn-1".hashCode() = 110810510 -> 10; "my-txn" = -1061187895 -> 45
    expect(partitionForTransactionalId('txn-1')).toBe(10);
    expect(partitionForTransactionalId('my-txn')).toBe(45);
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE: Utils.abs gives 0 (Math.abs would stay negative -> -48)
    expect(partitionForTransactionalId('polygenelubricants')).toBe(0);
    expect(partitionForTransactionalId('txn-1', 7)).toBe(110810510 % 7);
    expect(() => partitionForTransactionalId('x', 0)).toThrow(/integer >= 1/);
  });
  it('creates __transaction_state as Kafka does: 50 partitions, RF 3, min ISR 2, compacted, internal', () => {
    const [t] = transactionTopics(resolveConfig(BROKER_CONFIGS, {}, 'broker'));
    expect(t).toEqual({
      name: '__transaction_state',
      numPartitions: 50,
      replicationFactor: 3,
      configs: { 'cleanup.policy': 'compact', 'min.insync.replicas': '2', 'segment.bytes': '104857600' },
      internal: true,
    });
    expect(transactionTopics(resolveConfig(BROKER_CONFIGS, { 'transaction.state.log.num.partitions': 5 }, 'broker'))[0]!.numPartitions).toBe(5);
  });
});

describe('InitProducerId', () => {
  it('gives a new id epoch 0 and bumps the epoch of a known idle id (fencing the older instance)', () => {
    const first = commit(init());
    expect([first.state, first.producerEpoch]).toEqual(['Empty', 0]);
    const second = commit(init({ metadata: first }));
    expect([second.producerId, second.producerEpoch, second.lastProducerEpoch]).toEqual([first.producerId, 1, -1]);
    // The old instance (epoch 0) is now fenced on the coordinator.
    const m = commit(decideAddPartitions({ metadata: second, producerId: second.producerId, producerEpoch: 1, partitions: ['a-0'], clientTransactionVersion: 2, nowMs: 1 }));
    expect(errorOf(decideAddPartitions({ metadata: m, producerId: m.producerId, producerEpoch: 0, partitions: ['b-0'], clientTransactionVersion: 2, nowMs: 2 }))).toBe('PRODUCER_FENCED');
  });

  it('refuses a timeout above transaction.max.timeout.ms and zero', () => {
    expect(errorOf(init({ transactionTimeoutMs: 900_001 }))).toBe('INVALID_TRANSACTION_TIMEOUT');
    expect(errorOf(init({ transactionTimeoutMs: 0 }))).toBe('INVALID_TRANSACTION_TIMEOUT');
    expect(errorOf(init({ transactionalId: '' }))).toBe('INVALID_REQUEST');
  });

  it('fences an open transaction: epoch fence + abort written, the client is told CONCURRENT_TRANSACTIONS', () => {
    for (const tv of [1, 2] as const) {
      const m = ongoing(tv);
      expect(m.producerEpoch).toBe(0);
      const d = init({ metadata: m, serverTransactionVersion: tv });
      expect(d.kind === 'write' && d.fencedOngoing).toBe(true);
      if (d.kind !== 'write') continue;
      expect(d.transit.txnState).toBe('PrepareAbort');
      // Fence bumps 0 -> 1; with TV2 the abort itself bumps again -> 2.
      expect(d.transit.producerEpoch).toBe(tv === 2 ? 2 : 1);
      expect(d.transit.topicPartitions).toEqual(['out-0']);
      const aborting = completeTransitionTo(d.metadata, d.transit);
      // While the markers are written, a retry of InitProducerId must wait.
      expect(errorOf(init({ metadata: aborting, serverTransactionVersion: tv }))).toBe('CONCURRENT_TRANSACTIONS');
      const done = commit({ kind: 'write', ...prepareComplete(aborting, 20) });
      expect(done.state).toBe('CompleteAbort');
      const reinit = commit(init({ metadata: done, serverTransactionVersion: tv }));
      expect(reinit.producerEpoch).toBe(done.producerEpoch + 1);
    }
  });

  it('KIP-360: a known epoch bumps, the previous epoch is a retry of a bump, any other is fenced', () => {
    const m0 = commit(init());
    const m1 = commit(init({ metadata: m0, expected: { producerId: m0.producerId, epoch: 0 } }));
    expect([m1.producerEpoch, m1.lastProducerEpoch]).toEqual([1, 0]);
    const retry = commit(init({ metadata: m1, expected: { producerId: m0.producerId, epoch: 0 } }));
    expect(retry.producerEpoch).toBe(1);
    const m2 = commit(init({ metadata: m1 }));
    expect(errorOf(init({ metadata: m2, expected: { producerId: m0.producerId, epoch: 0 } }))).toBe('PRODUCER_FENCED');
    expect(errorOf(init({ metadata: m2, expected: { producerId: 424242, epoch: 2 } }))).toBe('PRODUCER_FENCED');
  });

  it('rotates to a new producer id at epoch 0 when the epoch is exhausted', () => {
    const m = { ...commit(init()), producerEpoch: 32766 };
    const d = init({ metadata: m });
    expect(d.kind === 'write' && [d.transit.producerId !== m.producerId, d.transit.producerEpoch]).toEqual([true, 0]);
  });
});

describe('AddPartitionsToTxn and verification', () => {
  it('starts the transaction clock with the first partition only, answers at once for known partitions', () => {
    const m = ongoing(2, ['a-0']);
    expect([m.state, m.txnStartTimestamp]).toEqual(['Ongoing', 5]);
    const again = decideAddPartitions({ metadata: m, producerId: m.producerId, producerEpoch: 0, partitions: ['a-0'], clientTransactionVersion: 2, nowMs: 9 });
    expect(again.kind).toBe('answer');
    const more = commit(decideAddPartitions({ metadata: m, producerId: m.producerId, producerEpoch: 0, partitions: ['b-1'], clientTransactionVersion: 2, nowMs: 9 }));
    expect([more.topicPartitions, more.txnStartTimestamp]).toEqual([['a-0', 'b-1'], 5]);
  });
  it('refuses an unknown id, a foreign producer id, a pending write and a preparing transaction', () => {
    const m = ongoing(2);
    const add = (md: TransactionMetadata | undefined, pid = m.producerId) =>
      errorOf(decideAddPartitions({ metadata: md, producerId: pid, producerEpoch: 0, partitions: ['z-0'], clientTransactionVersion: 2, nowMs: 9 }));
    expect(add(undefined)).toBe('INVALID_PRODUCER_ID_MAPPING');
    expect(add(m, 7)).toBe('INVALID_PRODUCER_ID_MAPPING');
    expect(add({ ...m, pendingState: 'Ongoing' })).toBe('CONCURRENT_TRANSACTIONS');
    expect(add({ ...m, state: 'PrepareCommit' })).toBe('CONCURRENT_TRANSACTIONS');
  });
  it('verify-only (KIP-890 part 1): a partition outside the open transaction is TRANSACTION_ABORTABLE', () => {
    const m = ongoing(1, ['a-0']);
    const r = verifyPartitionsInTransaction(m, m.producerId, 0, ['a-0', 'b-0']);
    expect('perPartition' in r && Object.fromEntries(r.perPartition)).toEqual({ 'a-0': 'NONE', 'b-0': 'TRANSACTION_ABORTABLE' });
    expect(verifyPartitionsInTransaction(m, m.producerId, 1, ['a-0'])).toEqual({ error: 'PRODUCER_FENCED' });
  });
});

describe('EndTxn', () => {
  it('TV2 bumps the epoch at PrepareCommit; the markers and the next transaction use it', () => {
    const m = ongoing(2);
    const d = end(m, { result: 'COMMIT' });
    expect(d.kind === 'write' && [d.transit.txnState, d.transit.producerEpoch, d.transit.lastProducerEpoch]).toEqual(['PrepareCommit', 1, 0]);
    const preparing = commit(d);
    // A retry of the same EndTxn (old epoch 0) while the markers are written: CONCURRENT_TRANSACTIONS.
    expect(errorOf(end(preparing, { producerEpoch: 0 }))).toBe('CONCURRENT_TRANSACTIONS');
    const done = commit({ kind: 'write', ...prepareComplete(preparing, 30) });
    expect([done.state, done.producerEpoch, done.topicPartitions]).toEqual(['CompleteCommit', 1, []]);
    // The retry after completion (epoch + 1 stored) succeeds without writing.
    expect(end(done, { producerEpoch: 0 })).toEqual({ kind: 'answer', producerId: done.producerId, producerEpoch: 1 });
    // The same epoch committing again is not a retry: INVALID_TXN_STATE; aborting it is allowed (no partitions).
    expect(errorOf(end(done, { producerEpoch: 1, result: 'COMMIT' }))).toBe('INVALID_TXN_STATE');
    const abortEmpty = end(done, { producerEpoch: 1, result: 'ABORT' });
    expect(abortEmpty.kind === 'write' && [abortEmpty.transit.txnState, abortEmpty.transit.topicPartitions, abortEmpty.transit.producerEpoch]).toEqual(['PrepareAbort', [], 2]);
  });

  it('TV2 table for Empty: abort with the current epoch bumps, commit is INVALID_TXN_STATE, retry epoch is fenced', () => {
    const m = commit(init());
    expect(errorOf(end(m, { result: 'ABORT' }))).toBe('write');
    expect(errorOf(end(m, { result: 'COMMIT' }))).toBe('INVALID_TXN_STATE');
    const m1 = commit(init({ metadata: m }));
    expect(errorOf(end(m1, { producerEpoch: 0, result: 'ABORT' }))).toBe('PRODUCER_FENCED');
  });

  it('TV1 keeps the epoch, accepts only the exact epoch, and answers NONE for a repeated end of the same result', () => {
    const m = ongoing(1);
    const preparing = commit(end(m, { result: 'ABORT', clientTransactionVersion: 1 }));
    expect([preparing.state, preparing.producerEpoch]).toEqual(['PrepareAbort', 0]);
    const done = commit({ kind: 'write', ...prepareComplete(preparing, 30) });
    expect(end(done, { result: 'ABORT', clientTransactionVersion: 1 }).kind).toBe('answer');
    expect(errorOf(end(done, { result: 'COMMIT', clientTransactionVersion: 1 }))).toBe('INVALID_TXN_STATE');
    expect(errorOf(end(done, { producerEpoch: 1, clientTransactionVersion: 1 }))).toBe('PRODUCER_FENCED');
    expect(errorOf(end(commit(init({ metadata: done, serverTransactionVersion: 1 })), { result: 'ABORT', clientTransactionVersion: 1, producerEpoch: 1 }))).toBe('INVALID_TXN_STATE');
  });

  it('a zombie (older epoch) cannot end the new instance\'s transaction, nor can a foreign producer id', () => {
    const m = ongoing(2);
    const bumped = { ...m, producerEpoch: 3 };
    expect(errorOf(end(bumped, { producerEpoch: 1 }))).toBe('PRODUCER_FENCED');
    expect(errorOf(end(m, { producerId: 55 }))).toBe('INVALID_PRODUCER_ID_MAPPING');
    expect(errorOf(end(undefined, {}))).toBe('INVALID_PRODUCER_ID_MAPPING');
  });
});

describe('timeouts and expiry (TransactionStateManager)', () => {
  it('an Ongoing transaction times out strictly after start + timeout, and only without a pending write', () => {
    const m = ongoing(2); // started at 5, timeout 60000
    expect(isTimedOut(m, 60_005)).toBe(false);
    expect(isTimedOut(m, 60_006)).toBe(true);
    expect(isTimedOut({ ...m, pendingState: 'PrepareCommit' }, 70_000)).toBe(false);
    const idle = commit(init({ transactionalId: 'b' }));
    expect(timedOutTransactions([{ ...m, transactionalId: 'z' }, idle, { ...m, transactionalId: 'a' }], 70_000).map((x) => x.transactionalId)).toEqual(['a', 'z']);
  });
  it('the coordinator abort of a timed-out transaction fences the epoch (PrepareAbort, zombie refused)', () => {
    const m = ongoing(2);
    const d = init({ metadata: m }); // the same fence + abort the sweep writes
    const aborting = commit(d);
    expect(errorOf(end(aborting, { producerEpoch: 0, result: 'COMMIT' }))).toBe('PRODUCER_FENCED');
  });
  it('an idle id expires after transactional.id.expiration.ms, an open one never', () => {
    const idle = commit(init({ nowMs: 1000 }));
    expect(shouldExpire(idle, 1000 + 604_800_000, 604_800_000)).toBe(true);
    expect(shouldExpire(idle, 1000 + 604_799_999, 604_800_000)).toBe(false);
    expect(shouldExpire(ongoing(2), 10 ** 12, 604_800_000)).toBe(false);
  });
  it('completeTransitionTo refuses a target that is not the pending state', () => {
    const m = ongoing(2);
    const d = end(m, {});
    if (d.kind !== 'write') throw new Error('expected write');
    expect(() => completeTransitionTo(m, d.transit)).toThrow(/failed transition to state PrepareCommit/);
  });
});
