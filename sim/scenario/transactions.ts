import type { TopicToCreate } from '../kafka/admin';
import type { BrokerConfig } from '../kafka/config/configs';
import type { Broker, BrokerExtension } from '../kafka/broker/broker';
import { GroupCoordinatorService } from '../kafka/broker/groupCoordinatorService';
import { TransactionCoordinatorService, composeExtensions } from '../kafka/broker/transactionCoordinatorService';
import { TRANSACTION_STATE_TOPIC } from '../kafka/coordinator/transaction/transactionStateTopic';
import type { TransactionVersion } from '../kafka/coordinator/transaction/transactionMetadata';
import type { Scenario } from './validate';

/** Whether any producer of the scenario is transactional (then brokers run the transaction coordinator). */
export function hasTransactions(s: Pick<Scenario, 'producers' | 'consumers'>): boolean {
  return s.producers.some((p) => p.config['transactional.id'] !== null) || s.consumers.some((c) => c.transform?.producerConfig['transactional.id'] != null);
}

/** The brokers' coordinators: groups when asked for, transactions when a producer is transactional. */
export function brokerExtensionsFor(groups: boolean, transactions: boolean, config: BrokerConfig, transactionVersion: TransactionVersion = 2): ((b: Broker) => BrokerExtension) | undefined {
  if (!groups && !transactions) return undefined;
  return (b) => {
    const exts: BrokerExtension[] = [];
    const txn = transactions
      ? new TransactionCoordinatorService(b, {
          numPartitions: config['transaction.state.log.num.partitions'],
          maxTimeoutMs: config['transaction.max.timeout.ms'],
          abortIntervalMs: config['transaction.abort.timed.out.transaction.cleanup.interval.ms'],
          transactionVersion,
          partitionVerification: config['transaction.partition.verification.enable'],
        })
      : undefined;
    if (txn) exts.push(txn);
    // The group coordinator answers FindCoordinator for groups; the transaction service only for transactional ids.
    if (groups) exts.push(new GroupCoordinatorService(b, txn));
    return exts.length === 1 ? exts[0]! : composeExtensions(...exts);
  };
}

/**
 * `__transaction_state` as the coordinator creates it: compacted, transaction.state.log.replication.factor
 * replicas and min.insync.replicas transaction.state.log.min.isr. As in Kafka it cannot be created on fewer
 * brokers than its replication factor: then no transactional id finds a coordinator (COORDINATOR_NOT_AVAILABLE).
 * [src: TransactionStateManager.scala `transactionTopicConfigs`; AutoTopicCreationManager]
 */
export function transactionTopics(config: BrokerConfig): TopicToCreate[] {
  return [
    {
      name: TRANSACTION_STATE_TOPIC,
      numPartitions: config['transaction.state.log.num.partitions'],
      replicationFactor: config['transaction.state.log.replication.factor'],
      configs: {
        'cleanup.policy': 'compact',
        'min.insync.replicas': String(config['transaction.state.log.min.isr']),
        'segment.bytes': String(config['transaction.state.log.segment.bytes']),
      },
      internal: true,
    },
  ];
}
