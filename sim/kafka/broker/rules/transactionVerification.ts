import type { KafkaError } from '../../errors';

/**
 * KIP-890 part 1 (transaction.partition.verification.enable): before a leader appends the first transactional
 * batch of a producer's transaction to a partition it asks the transaction coordinator whether that partition is
 * in the producer's ongoing transaction (AddPartitionsToTxn, verifyOnly). A late batch of a transaction already
 * ended (a straggler) is then refused instead of opening a transaction nobody will ever end.
 * KIP-890 part 2 (a transaction.version 2 client, Produce v12+): the client no longer adds its partitions; the
 * leader adds the partition itself (AddPartitionsToTxn, verifyOnly false), whatever the verification config.
 */

/**
 * Whether the leader adds the partition on the client's behalf (ADD_PARTITION) rather than only verifying: a
 * transaction.version 2 client (Produce v12+, TxnOffsetCommit v5+) no longer sends AddPartitionsToTxn itself.
 * [src: server/.../transaction/AddPartitionsToTxnManager.java `produceRequestVersionToTransactionSupportedOperation`, `TransactionSupportedOperation.supportsEpochBump`]
 */
export function leaderAddsPartition(clientTransactionVersion: number): boolean {
  return clientTransactionVersion >= 2;
}

/**
 * Whether the leader talks to the coordinator at all before appending: always to add (part 2), to verify only
 * when transaction.partition.verification.enable is on (part 1).
 * [src: core/.../server/ReplicaManager.scala `maybeSendPartitionsToTransactionCoordinator` (skip unless supportsEpochBump or verification enabled)]
 */
export function leaderAsksCoordinator(addsPartition: boolean, verificationEnabled: boolean): boolean {
  return addsPartition || verificationEnabled;
}

/** add.partitions.to.txn.retry.backoff.ms / .max.ms (Kafka's defaults; not settable here). [src: server/.../config/AddPartitionsToTxnConfig.java] */
export const ADD_PARTITIONS_RETRY_BACKOFF_MS = 20;
export const ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS = 100;

/**
 * A leader adding a partition for a Produce retries CONCURRENT_TRANSACTIONS (the previous transaction's markers
 * are still being written, common right after an EndTxn under version 2) every 20 ms for up to
 * min(add.partitions.to.txn.retry.backoff.max.ms, request.timeout.ms), rather than send the error back: a
 * produce is expensive to retry. Verify-only and TxnOffsetCommit adds pass it to the client at once.
 * [src: core/.../server/ReplicaManager.scala `handleProduceAppend` (maybeRetryOnConcurrentTransactions)]
 */
export function retryAddOnConcurrent(errors: Iterable<KafkaError>, elapsedMs: number, requestTimeoutMs: number): boolean {
  if (elapsedMs >= Math.min(ADD_PARTITIONS_RETRY_BACKOFF_MAX_MS, requestTimeoutMs)) return false;
  for (const e of errors) if (e === 'CONCURRENT_TRANSACTIONS') return true;
  return false;
}

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

/**
 * What a Produce of this version lets the leader do about a transaction: a client before KIP-890 (v10 and older)
 * knows only the old errors (DEFAULT_ERROR); v11 knows TRANSACTION_ABORTABLE (GENERIC_ERROR_SUPPORTED); v12, sent
 * under transaction.version 2, lets the leader add the partition itself (ADD_PARTITION).
 * [src: server/.../transaction/AddPartitionsToTxnManager.java `produceRequestVersionToTransactionSupportedOperation`]
 */
export type TransactionSupportedOperation = 'DEFAULT_ERROR' | 'GENERIC_ERROR_SUPPORTED' | 'ADD_PARTITION';
export function produceSupportedOperation(produceVersion: number): TransactionSupportedOperation {
  if (produceVersion > 11) return 'ADD_PARTITION';
  if (produceVersion > 10) return 'GENERIC_ERROR_SUPPORTED';
  return 'DEFAULT_ERROR';
}

/**
 * The Produce version our (Kafka 4.x) producer sends a transactional batch with: 12 under transaction.version 2,
 * capped at 11 under version 1.
 * [src: clients/.../requests/ProduceRequest.java `Builder` (useTransactionV1Version caps at v11)]
 */
export function transactionalProduceVersion(clientTransactionVersion: number): number {
  return clientTransactionVersion >= 2 ? 12 : 11;
}

/** Errors of a verification that could not be done; the producer retries on NOT_ENOUGH_REPLICAS (no metadata refresh). */
const UNVERIFIABLE: ReadonlySet<KafkaError> = new Set<KafkaError>(['NETWORK_EXCEPTION', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR']);

/**
 * The produce error for a partition the coordinator did not verify. PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH
 * (what a producer expects from a Produce); "not in the transaction" (TRANSACTION_ABORTABLE) stays so for any
 * client that knows the error (Produce v11+, every 4.x producer whatever its transaction.version) and is
 * INVALID_TXN_STATE only for a client before KIP-890; a verification that could not be done (coordinator unknown,
 * moving or loading; the request lost) is the retriable NOT_ENOUGH_REPLICAS, and so is CONCURRENT_TRANSACTIONS
 * unless the leader was adding the partition (v12, which retries it itself and then tells the client as is).
 * [src: server/.../transaction/AddPartitionsToTxnManager.java `AddPartitionsToTxnHandler.onComplete`; core/.../server/ReplicaManager.scala `postVerificationCallback`]
 */
export function produceErrorOfVerification(coordinatorError: KafkaError, operation: TransactionSupportedOperation): KafkaError {
  if (coordinatorError === 'PRODUCER_FENCED') return 'INVALID_PRODUCER_EPOCH';
  if (coordinatorError === 'TRANSACTION_ABORTABLE') return operation === 'DEFAULT_ERROR' ? 'INVALID_TXN_STATE' : 'TRANSACTION_ABORTABLE';
  if (UNVERIFIABLE.has(coordinatorError)) return 'NOT_ENOUGH_REPLICAS';
  if (coordinatorError === 'CONCURRENT_TRANSACTIONS' && operation !== 'ADD_PARTITION') return 'NOT_ENOUGH_REPLICAS';
  return coordinatorError;
}
