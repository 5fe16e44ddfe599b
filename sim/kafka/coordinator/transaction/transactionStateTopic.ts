/**
 * `__transaction_state`: where a transactional id's coordinator lives and how the topic is made, with Kafka's
 * defaults. The coordinator of an id is the leader of partition `Utils.abs(id.hashCode()) % 50` — the rule the
 * group coordinator uses on `__consumer_offsets`.
 * [src: core/.../transaction/TransactionStateManager.scala `partitionFor`; transaction-coordinator/.../TransactionLogConfig.java,
 * TransactionStateManagerConfig.java]
 */
import { javaStringHashCode, kafkaAbs } from '../groupCoordinatorPartition';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** Broker configs of the transaction coordinator, Kafka 4.x defaults. */
export const TRANSACTION_COORDINATOR_DEFAULTS = {
  'transaction.state.log.num.partitions': 50,
  'transaction.state.log.replication.factor': 3,
  'transaction.state.log.min.isr': 2,
  'transaction.state.log.segment.bytes': 104_857_600,
  'transaction.max.timeout.ms': 900_000,
  'transactional.id.expiration.ms': 604_800_000,
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': 10_000,
  'transaction.remove.expired.transaction.cleanup.interval.ms': 3_600_000,
  'transaction.partition.verification.enable': true,
} as const;

/** `Utils.abs(transactionalId.hashCode()) % transaction.state.log.num.partitions`. */
export function partitionForTransactionalId(
  transactionalId: string,
  numPartitions: number = TRANSACTION_COORDINATOR_DEFAULTS['transaction.state.log.num.partitions'],
): number {
  if (!(Number.isInteger(numPartitions) && numPartitions >= 1)) {
    throw new RangeError(`partitionForTransactionalId: partition count must be an integer >= 1, got ${numPartitions}`);
  }
  return kafkaAbs(javaStringHashCode(transactionalId)) % numPartitions;
}
