/**
 * AddPartitionsToTxn (and AddOffsetsToTxn, which adds the group's `__consumer_offsets` partition): the
 * partitions join the open transaction, starting it if none is open. With transaction version 2 the partition
 * leader sends it on the producer's behalf (implicit add); with version 1 and partition verification the leader
 * only asks whether the partition is already in the transaction.
 * [src: core/.../transaction/TransactionCoordinator.scala `handleAddPartitionsToTransaction`, `handleVerifyPartitionsInTransaction`]
 */
import type { KafkaError } from '../../errors';
import { refuse, type CoordinatorDecision } from './coordinatorDecision';
import { prepareAddPartitions, type TransactionMetadata, type TransactionVersion } from './transactionMetadata';
import { isPreparing } from './transactionState';

export interface AddPartitionsInput {
  readonly metadata: TransactionMetadata | undefined;
  readonly producerId: number;
  readonly producerEpoch: number;
  /** `topic-partition` keys. */
  readonly partitions: readonly string[];
  readonly clientTransactionVersion: TransactionVersion;
  readonly nowMs: number;
}

function identityError(m: TransactionMetadata | undefined, producerId: number, producerEpoch: number): KafkaError | undefined {
  if (m === undefined || m.producerId !== producerId) return 'INVALID_PRODUCER_ID_MAPPING';
  if (m.producerEpoch !== producerEpoch) return 'PRODUCER_FENCED';
  if (m.pendingState !== undefined || isPreparing(m.state)) return 'CONCURRENT_TRANSACTIONS';
  return undefined;
}

export function decideAddPartitions(input: AddPartitionsInput): CoordinatorDecision {
  const m = input.metadata;
  const error = identityError(m, input.producerId, input.producerEpoch);
  if (error !== undefined || m === undefined) return refuse(error ?? 'INVALID_PRODUCER_ID_MAPPING');
  if (m.state === 'Ongoing' && input.partitions.every((p) => m.topicPartitions.includes(p))) {
    // Already in the transaction: answer at once, write nothing.
    return { kind: 'answer', producerId: m.producerId, producerEpoch: m.producerEpoch };
  }
  return { kind: 'write', ...prepareAddPartitions(m, input.partitions, input.nowMs, input.clientTransactionVersion) };
}

/**
 * Verify-only (KIP-890 part 1): per partition NONE if it is in the open transaction, else TRANSACTION_ABORTABLE
 * (the write would start a transaction the coordinator does not know); or one error for all.
 */
export function verifyPartitionsInTransaction(
  m: TransactionMetadata | undefined,
  producerId: number,
  producerEpoch: number,
  partitions: readonly string[],
): { readonly error: KafkaError } | { readonly perPartition: ReadonlyMap<string, KafkaError> } {
  const error = identityError(m, producerId, producerEpoch);
  if (error !== undefined || m === undefined) return { error: error ?? 'INVALID_PRODUCER_ID_MAPPING' };
  const perPartition = new Map<string, KafkaError>();
  for (const p of partitions) perPartition.set(p, m.state === 'Ongoing' && m.topicPartitions.includes(p) ? 'NONE' : 'TRANSACTION_ABORTABLE');
  return { perPartition };
}
