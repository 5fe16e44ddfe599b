/**
 * The schema of a simulator trace: every kind any layer emits, gathered from the blocks declared beside their
 * emitters. `parseTrace(text, TRACE_SCHEMA)` validates a saved trace against it; the compile-time check below
 * keeps it complete (a kind added to TraceKinds without a block here does not compile).
 */
import type { TraceKind } from '../core/trace';
import { DISK_KINDS } from '../world/disk';
import { HOST_KINDS } from '../world/host';
import { FAULT_EVENT_KINDS } from '../world/nemesis';
import { NETWORK_KINDS } from '../world/network';
import { ADMIN_KINDS } from '../kafka/admin';
import { BROKER_KINDS } from '../kafka/broker/broker';
import { PARTITION_KINDS } from '../kafka/broker/partition';
import { FETCHER_KINDS } from '../kafka/broker/replicaFetcher';
import { CONSUMER_KINDS } from '../kafka/client/consumer/consumerHistory';
import { PRODUCER_KINDS } from '../kafka/client/producer/producer';
import { SENDER_KINDS } from '../kafka/client/producer/sender';
import { TRANSACTIONAL_PRODUCER_KINDS } from '../kafka/client/producer/transactionalProducer';
import { CLUSTER_KINDS } from '../kafka/cluster';
import { CONTROLLER_KINDS } from '../kafka/controller/controller';
import { GROUP_KINDS } from '../kafka/coordinator/groupCoordinator';
import { CONSUMER_GROUP_KINDS } from '../kafka/coordinator/consumerGroupManager';
import { TXN_KINDS } from '../kafka/coordinator/transaction/transactionCoordinator';
import { TRANSACTION_VERIFICATION_KINDS } from '../kafka/broker/transactionVerifier';
import { SHARE_KINDS } from '../kafka/share/shareEvents';
import { LOG_KINDS } from '../kafka/log/logEvents';
import { RAFT_KINDS } from '../kafka/raft/raftTrace';
import { WIRE_KINDS } from '../kafka/wire/wireEvents';
import { RUN_KINDS } from '../check/history/runEvents';
import { METRICS_KINDS } from '../kafka/metrics/sampler';
import { SCENARIO_KINDS } from './scenarioKinds';
import { OPERATOR_KINDS } from './rollingRestart';
import { REASSIGN_KINDS } from './reassignPartitions';

export const TRACE_SCHEMA = {
  ...HOST_KINDS,
  ...DISK_KINDS,
  ...NETWORK_KINDS,
  ...FAULT_EVENT_KINDS,
  ...CLUSTER_KINDS,
  ...CONTROLLER_KINDS,
  ...RAFT_KINDS,
  ...BROKER_KINDS,
  ...PARTITION_KINDS,
  ...FETCHER_KINDS,
  ...LOG_KINDS,
  ...GROUP_KINDS,
  ...TXN_KINDS,
  ...TRANSACTION_VERIFICATION_KINDS,
  ...CONSUMER_GROUP_KINDS,
  ...SHARE_KINDS,
  ...ADMIN_KINDS,
  ...PRODUCER_KINDS,
  ...SENDER_KINDS,
  ...TRANSACTIONAL_PRODUCER_KINDS,
  ...CONSUMER_KINDS,
  ...WIRE_KINDS,
  ...METRICS_KINDS,
  ...RUN_KINDS,
  ...SCENARIO_KINDS,
  ...OPERATOR_KINDS,
  ...REASSIGN_KINDS,
} as const;

/** Kinds TraceKinds declares that have no schema here: must stay empty (the assertion fails to compile otherwise). */
type Unschematised = Exclude<TraceKind, keyof typeof TRACE_SCHEMA>;
type AssertEmpty<T extends never> = T;
export type EveryKindHasASchema = AssertEmpty<Unschematised>;

/** The kind that closes a complete run's trace. */
export const END_KIND = 'scenario.end' satisfies TraceKind;
