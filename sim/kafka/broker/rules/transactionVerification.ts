import type { KafkaError } from '../../errors';

/**
 * KIP-890 part 1 (transaction.partition.verification.enable): before a leader appends the first transactional
 * batch of a producer's transaction to a partition it asks the transaction coordinator whether that partition is
 * in the producer's ongoing transaction (AddPartitionsToTxn, verifyOnly). A late batch of a transaction already
 * ended (a straggler) is then refused instead of opening a transaction nobody will ever end.
 */

/** What the leader knows of the producer at this partition: its last entry in the producer state. */
export interface ProducerAtPartition {
  readonly producerEpoch: number;
  /** Set while the producer has a transaction open at this partition. */
  readonly currentTxnFirstOffset?: number;
}

/**
 * A transactional batch needs verifying unless the producer already has a transaction open here with the same
 * epoch (then an earlier batch of this transaction was verified, and its marker has not come yet).
 * [src: storage/.../log/UnifiedLog.java `hasOngoingTransaction`; ReplicaManager.scala `appendRecords` (transactionalBatches filter)]
 */
export function needsVerification(batch: { readonly isTransactional: boolean; readonly producerEpoch: number }, entry: ProducerAtPartition | undefined): boolean {
  if (!batch.isTransactional) return false;
  return !(entry !== undefined && entry.currentTxnFirstOffset !== undefined && entry.producerEpoch === batch.producerEpoch);
}

/** Errors of a verification that could not be done; the producer retries on NOT_ENOUGH_REPLICAS (no metadata refresh). */
const UNVERIFIABLE: ReadonlySet<KafkaError> = new Set<KafkaError>(['NETWORK_EXCEPTION', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR']);

/**
 * The produce error for a partition the coordinator did not verify. PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH
 * (what a producer expects from a Produce); "not in the transaction" (TRANSACTION_ABORTABLE) stays so for a
 * transaction.version 2 client and is INVALID_TXN_STATE for an older one, which does not know that error; a
 * verification that could not be done (coordinator unknown, moving or loading; the request lost) is the retriable
 * NOT_ENOUGH_REPLICAS, and so is CONCURRENT_TRANSACTIONS for a version 1 client (a version 2 one is told as is).
 * [src: core/.../server/AddPartitionsToTxnManager.scala `AddPartitionsToTxnHandler.onComplete`; ReplicaManager.scala `appendRecords` (verification error conversion)]
 */
export function produceErrorOfVerification(coordinatorError: KafkaError, clientTransactionVersion: number): KafkaError {
  if (coordinatorError === 'PRODUCER_FENCED') return 'INVALID_PRODUCER_EPOCH';
  if (coordinatorError === 'TRANSACTION_ABORTABLE') return clientTransactionVersion < 2 ? 'INVALID_TXN_STATE' : 'TRANSACTION_ABORTABLE';
  if (UNVERIFIABLE.has(coordinatorError)) return 'NOT_ENOUGH_REPLICAS';
  if (coordinatorError === 'CONCURRENT_TRANSACTIONS' && clientTransactionVersion < 2) return 'NOT_ENOUGH_REPLICAS';
  return coordinatorError;
}
