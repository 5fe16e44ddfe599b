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
