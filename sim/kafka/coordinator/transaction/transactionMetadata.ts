/**
 * What the coordinator knows of one transactional id, and the transitions it prepares. Pure: every `prepare*`
 * returns the metadata with its pending state set plus the target (`TxnTransitMetadata`) to write to
 * `__transaction_state`; `completeTransitionTo` applies a target once that write is committed. Nothing here is
 * applied before it is in the log. [src: transaction-coordinator/.../transaction/TransactionMetadata.java]
 */
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from '../../records';
import { isValidTransition, type TransactionState } from './transactionState';

/** `transaction.version`: 2 bumps the epoch at the end of every transaction (KIP-890 part 2). [src: server-common/.../TransactionVersion.java] */
export type TransactionVersion = 0 | 1 | 2;

/** [src: TransactionVersion.java `supportsEpochBump`] */
export function supportsEpochBump(tv: TransactionVersion): boolean {
  return tv >= 2;
}

/** Short.MAX_VALUE. */
export const MAX_PRODUCER_EPOCH = 32767;

/** A producer id whose epoch reached Short.MAX_VALUE - 1 must be replaced. [src: TransactionMetadata.java `isEpochExhausted`] */
export function isEpochExhausted(producerEpoch: number): boolean {
  return producerEpoch >= MAX_PRODUCER_EPOCH - 1;
}

/** The fields a transactional id's metadata and its log record share. */
interface TxnFields {
  readonly producerId: number;
  /** The producer id of the last committed transaction before an id rotation. */
  readonly prevProducerId: number;
  /** The id a TV2 completion rotates to when the epoch is exhausted, NO_PRODUCER_ID otherwise. */
  readonly nextProducerId: number;
  readonly producerEpoch: number;
  /** The epoch before the last bump: lets a retried InitProducerId/EndTxn be recognised. */
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  /** `topic-partition` keys, sorted. */
  readonly topicPartitions: readonly string[];
  /** When the first partition was added; -1 when no transaction is open. */
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  readonly clientTransactionVersion: TransactionVersion;
}

/** What one `__transaction_state` record holds (the value of key = transactional id). [src: TxnTransitMetadata.java] */
export interface TxnTransitMetadata extends TxnFields {
  readonly txnState: TransactionState;
}

export interface TransactionMetadata extends TxnFields {
  readonly transactionalId: string;
  readonly state: TransactionState;
  /** The state a write to the log is under way for; blocks other transitions (CONCURRENT_TRANSACTIONS). */
  readonly pendingState?: TransactionState;
  /** A fence whose write failed: the next fence does not bump again (the bumped epoch was never returned). */
  readonly hasFailedEpochFence: boolean;
}

/** The metadata InitProducerId creates for an id it has never seen: epoch -1, so the first bump yields 0. [src: TransactionCoordinator.scala `handleInitProducerId`] */
export function newTransactionMetadata(
  transactionalId: string,
  producerId: number,
  txnTimeoutMs: number,
  nowMs: number,
  clientTransactionVersion: TransactionVersion,
): TransactionMetadata {
  return {
    transactionalId,
    producerId,
    prevProducerId: NO_PRODUCER_ID,
    nextProducerId: NO_PRODUCER_ID,
    producerEpoch: NO_PRODUCER_EPOCH,
    lastProducerEpoch: NO_PRODUCER_EPOCH,
    txnTimeoutMs,
    state: 'Empty',
    topicPartitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: nowMs,
    clientTransactionVersion,
    hasFailedEpochFence: false,
  };
}

/** The metadata rebuilt from a `__transaction_state` record when a coordinator loads its partition. */
export function metadataFromTransit(transactionalId: string, t: TxnTransitMetadata): TransactionMetadata {
  const { txnState, ...fields } = t;
  return { transactionalId, state: txnState, ...fields, hasFailedEpochFence: false };
}

export function hasPendingTransition(m: TransactionMetadata): boolean {
  return m.pendingState !== undefined;
}

/** A prepared transition: the metadata to keep in memory meanwhile (pending state set) and what to write. */
export interface PreparedTransition {
  readonly metadata: TransactionMetadata;
  readonly transit: TxnTransitMetadata;
}

function currentTransit(m: TransactionMetadata): TxnTransitMetadata {
  const { transactionalId: _id, state, pendingState: _p, hasFailedEpochFence: _f, ...fields } = m;
  return { ...fields, txnState: state };
}

/**
 * Kafka's `prepareTransitionTo`: a transition is only prepared from a valid previous state and while no other is
 * pending; anything else is a coordinator bug (IllegalStateException), so it throws.
 */
function prepareTransitionTo(m: TransactionMetadata, changes: Partial<TxnTransitMetadata> & { txnState: TransactionState }): PreparedTransition {
  if (m.pendingState !== undefined) {
    throw new Error(`TransactionalId ${m.transactionalId} failed transition to state ${changes.txnState} while it already has a pending state ${m.pendingState}`);
  }
  if (!isValidTransition(m.state, changes.txnState)) {
    throw new Error(`TransactionalId ${m.transactionalId} failed transition to state ${changes.txnState} due to unexpected metadata: state ${m.state}`);
  }
  return { metadata: { ...m, pendingState: changes.txnState }, transit: { ...currentTransit(m), ...changes } };
}

/**
 * InitProducerId on an idle id: bump the epoch (fencing older instances). With `expectedEpoch` (a producer
 * recovering from an abortable error, KIP-360): the current or no epoch bumps; the previous epoch is a retry of a
 * bump that succeeded (no second bump); anything else is a fenced producer. [src: TransactionMetadata.java `prepareIncrementProducerEpoch`]
 */
export function prepareIncrementProducerEpoch(
  m: TransactionMetadata,
  newTxnTimeoutMs: number,
  expectedEpoch: number | undefined,
  nowMs: number,
): PreparedTransition | { readonly error: 'PRODUCER_FENCED' } {
  if (isEpochExhausted(m.producerEpoch)) throw new Error(`Cannot allocate any more producer epochs for producerId ${m.producerId}`);
  const bumped = m.producerEpoch + 1;
  let producerEpoch: number;
  let lastProducerEpoch: number;
  if (expectedEpoch === undefined) {
    producerEpoch = bumped;
    lastProducerEpoch = NO_PRODUCER_EPOCH;
  } else if (m.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === m.producerEpoch) {
    producerEpoch = bumped;
    lastProducerEpoch = m.producerEpoch;
  } else if (expectedEpoch === m.lastProducerEpoch) {
    producerEpoch = m.producerEpoch;
    lastProducerEpoch = m.lastProducerEpoch;
  } else {
    return { error: 'PRODUCER_FENCED' };
  }
  return prepareTransitionTo(m, {
    txnState: 'Empty',
    producerEpoch,
    lastProducerEpoch,
    txnTimeoutMs: newTxnTimeoutMs,
    topicPartitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: nowMs,
  });
}

/** A new producer id with epoch 0, when the epoch of the old one is exhausted. [src: TransactionMetadata.java `prepareProducerIdRotation`] */
export function prepareProducerIdRotation(m: TransactionMetadata, newProducerId: number, newTxnTimeoutMs: number, nowMs: number, recordLastEpoch: boolean): PreparedTransition {
  return prepareTransitionTo(m, {
    txnState: 'Empty',
    producerId: newProducerId,
    producerEpoch: 0,
    lastProducerEpoch: recordLastEpoch ? m.producerEpoch : NO_PRODUCER_EPOCH,
    txnTimeoutMs: newTxnTimeoutMs,
    topicPartitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: nowMs,
  });
}

/**
 * The epoch fence before the coordinator aborts an open transaction itself (InitProducerId of a new instance,
 * or the transaction timeout). It is not written: the abort that follows carries the bumped epoch.
 * A fence whose write failed does not bump again. [src: TransactionMetadata.java `prepareFenceProducerEpoch`]
 */
export function prepareFenceProducerEpoch(m: TransactionMetadata): PreparedTransition {
  const bumped = m.hasFailedEpochFence || m.producerEpoch === MAX_PRODUCER_EPOCH ? m.producerEpoch : m.producerEpoch + 1;
  return prepareTransitionTo(m, { txnState: 'PrepareEpochFence', producerEpoch: bumped });
}

/** Partitions join the transaction; the first one starts its clock. [src: TransactionMetadata.java `prepareAddPartitions`] */
export function prepareAddPartitions(m: TransactionMetadata, added: readonly string[], nowMs: number, clientTransactionVersion: TransactionVersion): PreparedTransition {
  const starting = m.state === 'Empty' || m.state === 'CompleteAbort' || m.state === 'CompleteCommit';
  const topicPartitions = [...new Set([...m.topicPartitions, ...added])].sort();
  return prepareTransitionTo(m, {
    txnState: 'Ongoing',
    topicPartitions,
    txnStartTimestamp: starting ? nowMs : m.txnStartTimestamp,
    txnLastUpdateTimestamp: nowMs,
    clientTransactionVersion,
  });
}

/**
 * EndTxn decided: PrepareCommit or PrepareAbort. With TV2 the epoch is bumped here, so the markers carry the new
 * epoch and any straggler of this transaction is fenced. An abort that added no partition (TV2) starts now.
 * [src: TransactionMetadata.java `prepareAbortOrCommit`]
 */
export function prepareAbortOrCommit(
  m: TransactionMetadata,
  newState: 'PrepareCommit' | 'PrepareAbort',
  clientTransactionVersion: TransactionVersion,
  nextProducerId: number,
  nowMs: number,
  noPartitionAdded: boolean,
): PreparedTransition {
  let producerEpoch = m.producerEpoch;
  let lastProducerEpoch = m.lastProducerEpoch;
  if (supportsEpochBump(clientTransactionVersion)) {
    // An abort at Short.MAX_VALUE goes through without overflowing, so a broken id can recover.
    if (!(m.producerEpoch === MAX_PRODUCER_EPOCH && newState === 'PrepareAbort')) producerEpoch = m.producerEpoch + 1;
    lastProducerEpoch = m.producerEpoch;
  }
  return prepareTransitionTo(m, {
    txnState: newState,
    producerEpoch,
    lastProducerEpoch,
    topicPartitions: noPartitionAdded ? [] : m.topicPartitions,
    txnStartTimestamp: noPartitionAdded ? nowMs : m.txnStartTimestamp,
    nextProducerId,
    txnLastUpdateTimestamp: nowMs,
    clientTransactionVersion,
  });
}

/**
 * Every marker is written: CompleteCommit / CompleteAbort, partitions cleared. A TV2 completion that had to
 * rotate the id moves to the next producer id at epoch 0. [src: TransactionMetadata.java `prepareComplete`]
 */
export function prepareComplete(m: TransactionMetadata, nowMs: number): PreparedTransition {
  const rotate = supportsEpochBump(m.clientTransactionVersion) && m.nextProducerId !== NO_PRODUCER_ID;
  return prepareTransitionTo(
    { ...m, hasFailedEpochFence: false },
    {
      txnState: m.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort',
      producerId: rotate ? m.nextProducerId : m.producerId,
      prevProducerId: rotate ? m.producerId : m.prevProducerId,
      producerEpoch: rotate ? 0 : m.producerEpoch,
      nextProducerId: NO_PRODUCER_ID,
      topicPartitions: [],
      txnLastUpdateTimestamp: nowMs,
    },
  );
}

/** An id idle past `transactional.id.expiration.ms` is removed (a tombstone follows). [src: TransactionMetadata.java `prepareDead`] */
export function prepareDead(m: TransactionMetadata): PreparedTransition {
  return prepareTransitionTo(m, { txnState: 'Dead', topicPartitions: [] });
}

/**
 * The write of `transit` committed: apply it. The target must be the pending state, a valid successor, and its
 * epoch the same, one more, or 0 with a new producer id. A mismatch is a coordinator bug and throws.
 * [src: TransactionMetadata.java `completeTransitionTo`]
 */
export function completeTransitionTo(m: TransactionMetadata, transit: TxnTransitMetadata): TransactionMetadata {
  const to = transit.txnState;
  const epochOk =
    transit.producerEpoch === m.producerEpoch ||
    transit.producerEpoch === m.producerEpoch + 1 ||
    // A rotation restarts at 0 under a new id.
    (transit.producerEpoch === 0 && transit.producerId !== m.producerId);
  if (m.pendingState !== to || !isValidTransition(m.state, to) || !epochOk) {
    throw new Error(
      `TransactionalId ${m.transactionalId} failed transition to state ${to} (pending ${m.pendingState ?? 'none'}, state ${m.state}, epoch ${m.producerEpoch} -> ${transit.producerEpoch})`,
    );
  }
  const { pendingState: _pending, ...rest } = m;
  return { ...rest, ...metadataFromTransit(m.transactionalId, transit), hasFailedEpochFence: m.hasFailedEpochFence };
}

/** A write failed (or the coordinator moved): drop the pending state, keep the metadata as it was. */
export function abortTransition(m: TransactionMetadata): TransactionMetadata {
  const { pendingState: _pending, ...rest } = m;
  return rest;
}
