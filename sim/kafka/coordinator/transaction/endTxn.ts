/**
 * EndTxn on the coordinator (also the abort it starts itself after an epoch fence): which transition to write,
 * or which answer. Transaction version 1 insists on the exact epoch; version 2 bumps the epoch at every end, so a
 * retried EndTxn carries the epoch one below the stored one and is recognised as such.
 * [src: core/.../transaction/TransactionCoordinator.scala `endTransaction`, `endTransactionWithTV1`]
 */
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from '../../records';
import { refuse, type CoordinatorDecision } from './coordinatorDecision';
import {
  MAX_PRODUCER_EPOCH,
  isEpochExhausted,
  prepareAbortOrCommit,
  supportsEpochBump,
  type TransactionMetadata,
  type TransactionVersion,
} from './transactionMetadata';

export type TransactionResult = 'COMMIT' | 'ABORT';

export interface EndTxnInput {
  /** undefined: the coordinator has no metadata for the id. */
  readonly metadata: TransactionMetadata | undefined;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly result: TransactionResult;
  /** false for the coordinator's own abort (timeout, or InitProducerId of a new instance). */
  readonly isFromClient: boolean;
  readonly clientTransactionVersion: TransactionVersion;
  readonly nowMs: number;
  /** Called only when a TV2 end must rotate an exhausted producer id. */
  readonly generateProducerId: () => number;
}

export function decideEndTxn(input: EndTxnInput): CoordinatorDecision {
  const m = input.metadata;
  if (m === undefined) return refuse('INVALID_PRODUCER_ID_MAPPING');
  return supportsEpochBump(input.clientTransactionVersion) ? endTxnV2(m, input) : endTxnV1(m, input);
}

/** The fence prepared by `prepareFenceProducerEpoch` is folded into the abort: pending cleared, epoch taken. */
function withFenceApplied(m: TransactionMetadata, fencedEpoch: number): TransactionMetadata {
  const { pendingState: _p, ...rest } = m;
  return { ...rest, producerEpoch: fencedEpoch, lastProducerEpoch: NO_PRODUCER_EPOCH };
}

function invalidTxnState(): CoordinatorDecision {
  return refuse('INVALID_TXN_STATE');
}

function endTxnV1(m: TransactionMetadata, input: EndTxnInput): CoordinatorDecision {
  const { producerId, producerEpoch, result, isFromClient } = input;
  if (m.producerId !== producerId) return refuse('INVALID_PRODUCER_ID_MAPPING');
  // Strict equality for clients: a v1 client never bumps its epoch without the coordinator.
  if ((isFromClient && producerEpoch !== m.producerEpoch) || producerEpoch < m.producerEpoch) return refuse('PRODUCER_FENCED');
  if (m.pendingState !== undefined && m.pendingState !== 'PrepareEpochFence') return refuse('CONCURRENT_TRANSACTIONS');
  const done: CoordinatorDecision = { kind: 'answer', producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
  switch (m.state) {
    case 'Ongoing': {
      const next = result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort';
      const base = next === 'PrepareAbort' && m.pendingState === 'PrepareEpochFence' ? withFenceApplied(m, producerEpoch) : m;
      return { kind: 'write', ...prepareAbortOrCommit(base, next, 0, NO_PRODUCER_ID, input.nowMs, false) };
    }
    case 'CompleteCommit':
      return result === 'COMMIT' ? done : invalidTxnState();
    case 'CompleteAbort':
      return result === 'ABORT' ? done : invalidTxnState();
    case 'PrepareCommit':
      return result === 'COMMIT' ? refuse('CONCURRENT_TRANSACTIONS') : invalidTxnState();
    case 'PrepareAbort':
      return result === 'ABORT' ? refuse('CONCURRENT_TRANSACTIONS') : invalidTxnState();
    case 'Empty':
      return invalidTxnState();
    case 'Dead':
    case 'PrepareEpochFence':
      throw new Error(`Found transactionalId ${m.transactionalId} with state ${m.state}. This is illegal as we should never have transitioned to this state.`);
  }
}

/**
 * TV2, for Empty / CompleteAbort / CompleteCommit ("retry" = the request's epoch is the stored one minus one):
 *
 *                   Abort            Commit
 *                   retry  current   retry  current
 *   Empty           PF     bump      PF     ITS
 *   CompleteAbort   NONE   bump      ITS    ITS
 *   CompleteCommit  ITS    bump      NONE   ITS
 *
 * (PF PRODUCER_FENCED, ITS INVALID_TXN_STATE, NONE answer without writing, bump = PrepareAbort with a new epoch.)
 */
function endTxnV2(m: TransactionMetadata, input: EndTxnInput): CoordinatorDecision {
  const { producerId, producerEpoch, result, isFromClient } = input;
  const isEpochFence = m.pendingState === 'PrepareEpochFence';
  const retryOnOverflow = !isEpochFence && m.prevProducerId === producerId && producerEpoch === MAX_PRODUCER_EPOCH - 1 && m.producerEpoch === 0;
  const retryOnEpochBump = !isEpochFence && m.producerEpoch === producerEpoch + 1;
  let isValidEpoch: boolean;
  if (!isEpochFence) {
    switch (m.state) {
      case 'Ongoing':
      case 'Empty':
      case 'Dead':
      case 'PrepareEpochFence':
        isValidEpoch = producerEpoch === m.producerEpoch;
        break;
      case 'PrepareCommit':
      case 'PrepareAbort':
        isValidEpoch = retryOnEpochBump;
        break;
      case 'CompleteCommit':
      case 'CompleteAbort':
        isValidEpoch = retryOnEpochBump || retryOnOverflow || producerEpoch === m.producerEpoch;
        break;
    }
  } else {
    isValidEpoch = (!isFromClient || producerEpoch === m.producerEpoch) && producerEpoch >= m.producerEpoch;
  }
  const isRetry = retryOnEpochBump || retryOnOverflow;

  const complete = (next: 'PrepareCommit' | 'PrepareAbort', noPartitionAdded: boolean): CoordinatorDecision => {
    const nextProducerId = !isEpochFence && isEpochExhausted(m.producerEpoch) ? input.generateProducerId() : NO_PRODUCER_ID;
    const base = next === 'PrepareAbort' && isEpochFence ? withFenceApplied(m, producerEpoch) : m;
    return { kind: 'write', ...prepareAbortOrCommit(base, next, input.clientTransactionVersion, nextProducerId, input.nowMs, noPartitionAdded) };
  };

  if (m.producerId !== producerId && !retryOnOverflow) return refuse('INVALID_PRODUCER_ID_MAPPING');
  if (!isValidEpoch) return refuse('PRODUCER_FENCED');
  if (m.pendingState !== undefined && !isEpochFence) return refuse('CONCURRENT_TRANSACTIONS');
  const done: CoordinatorDecision = { kind: 'answer', producerId: m.producerId, producerEpoch: m.producerEpoch };
  switch (m.state) {
    case 'Ongoing':
      return complete(result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort', false);
    case 'CompleteCommit':
      if (result === 'COMMIT') return isRetry ? done : invalidTxnState();
      return isRetry ? invalidTxnState() : complete('PrepareAbort', true);
    case 'CompleteAbort':
      if (result === 'ABORT') return isRetry ? done : complete('PrepareAbort', true);
      return invalidTxnState();
    case 'PrepareCommit':
      return result === 'COMMIT' ? refuse('CONCURRENT_TRANSACTIONS') : invalidTxnState();
    case 'PrepareAbort':
      return result === 'ABORT' ? refuse('CONCURRENT_TRANSACTIONS') : invalidTxnState();
    case 'Empty':
      return result === 'ABORT' ? complete('PrepareAbort', true) : invalidTxnState();
    case 'Dead':
    case 'PrepareEpochFence':
      throw new Error(`Found transactionalId ${m.transactionalId} with state ${m.state}. This is illegal as we should never have transitioned to this state.`);
  }
}
