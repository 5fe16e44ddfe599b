/**
 * InitProducerId with a transactional id, on its coordinator: a new id gets a fresh producer id at epoch 0; a
 * known idle one gets its epoch bumped, which fences every older instance; an open transaction is first fenced
 * and aborted by the coordinator, and the caller answers CONCURRENT_TRANSACTIONS so the client retries (and bumps
 * again). [src: core/.../transaction/TransactionCoordinator.scala `handleInitProducerId`, `prepareInitProducerIdTransit`]
 */
import { NO_PRODUCER_EPOCH } from '../../records';
import { refuse, type CoordinatorDecision } from './coordinatorDecision';
import { decideEndTxn } from './endTxn';
import {
  isEpochExhausted,
  newTransactionMetadata,
  prepareFenceProducerEpoch,
  prepareIncrementProducerEpoch,
  prepareProducerIdRotation,
  type TransactionMetadata,
  type TransactionVersion,
} from './transactionMetadata';

export interface InitProducerIdInput {
  readonly transactionalId: string;
  readonly metadata: TransactionMetadata | undefined;
  readonly transactionTimeoutMs: number;
  /** `transaction.max.timeout.ms`. */
  readonly maxTransactionTimeoutMs: number;
  /** KIP-360: the id and epoch of a producer re-initialising after an abortable error; undefined for a new instance. */
  readonly expected?: { readonly producerId: number; readonly epoch: number };
  readonly nowMs: number;
  /** The cluster's `transaction.version`: the coordinator's own abort of an open transaction uses it. */
  readonly serverTransactionVersion: TransactionVersion;
  readonly generateProducerId: () => number;
}

/** The timeout must be positive and at most transaction.max.timeout.ms. [src: TransactionCoordinator.scala `isValidTransactionTimeout`] */
export function isValidTransactionTimeout(timeoutMs: number, maxMs: number): boolean {
  return timeoutMs > 0 && timeoutMs <= maxMs;
}

export function decideInitProducerId(input: InitProducerIdInput): CoordinatorDecision {
  if (input.transactionalId === '') return refuse('INVALID_REQUEST');
  if (!isValidTransactionTimeout(input.transactionTimeoutMs, input.maxTransactionTimeoutMs)) return refuse('INVALID_TRANSACTION_TIMEOUT');
  const m =
    input.metadata ??
    newTransactionMetadata(input.transactionalId, input.generateProducerId(), input.transactionTimeoutMs, input.nowMs, input.serverTransactionVersion);
  const expected = input.expected;
  // A given id/epoch is accepted from a fresh entry, for the current id, or for the previous id after an
  // exhausted epoch (a retry of a bump whose answer was lost).
  const validExpected =
    expected === undefined ||
    m.producerEpoch === NO_PRODUCER_EPOCH ||
    expected.producerId === m.producerId ||
    (expected.producerId === m.prevProducerId && isEpochExhausted(expected.epoch));
  if (m.pendingState !== undefined) return refuse('CONCURRENT_TRANSACTIONS');
  if (!validExpected) return refuse('PRODUCER_FENCED');
  switch (m.state) {
    case 'PrepareAbort':
    case 'PrepareCommit':
      return refuse('CONCURRENT_TRANSACTIONS');
    case 'CompleteAbort':
    case 'CompleteCommit':
    case 'Empty': {
      if (isEpochExhausted(m.producerEpoch) && (expected === undefined || expected.epoch === m.producerEpoch)) {
        return { kind: 'write', ...prepareProducerIdRotation(m, input.generateProducerId(), input.transactionTimeoutMs, input.nowMs, expected !== undefined) };
      }
      const bumped = prepareIncrementProducerEpoch(m, input.transactionTimeoutMs, expected?.epoch, input.nowMs);
      return 'error' in bumped ? refuse(bumped.error) : { kind: 'write', ...bumped };
    }
    case 'Ongoing': {
      // Fence the open transaction and abort it with the fenced epoch; that epoch is never returned.
      const fence = prepareFenceProducerEpoch(m);
      const abort = decideEndTxn({
        metadata: fence.metadata,
        producerId: fence.transit.producerId,
        producerEpoch: fence.transit.producerEpoch,
        result: 'ABORT',
        isFromClient: false,
        clientTransactionVersion: input.serverTransactionVersion,
        nowMs: input.nowMs,
        generateProducerId: input.generateProducerId,
      });
      return abort.kind === 'write' ? { ...abort, fencedOngoing: true } : abort;
    }
    case 'Dead':
    case 'PrepareEpochFence':
      throw new Error(`Found transactionalId ${input.transactionalId} with state ${m.state}. This is illegal as we should never have transitioned to this state.`);
  }
}
