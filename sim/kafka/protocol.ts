import type { KafkaError } from './errors';
import type { RecordBatch } from './records';

/**
 * The requests and responses that cross the simulated network between brokers, controllers and clients,
 * named as Kafka's RPCs. Every request carries a correlation id that its response echoes. Bodies are
 * simplified to the fields whose behaviour the simulator models.
 */

export interface Req<T extends string> {
  readonly type: T;
  readonly correlationId: number;
}

// One TopicPartition and one key builder for the whole simulator (topicPartition.ts); requests name them from here too.
import type { TopicPartition } from './topicPartition';

export { partitionKeyMemo, tpKey, type TopicPartition } from './topicPartition';

/**
 * Whether a message is a response. One that reaches a node's request dispatch was not claimed by any of its
 * clients (its request timed out and the client moved on): it is dropped, never answered.
 */
export function isResponse(type: string): boolean {
  return type.endsWith('Response');
}

// ---- ApiVersions (the first request on a new client connection) ----

export type ApiVersionsRequest = Req<'ApiVersions'>;
export interface ApiVersionsResponse extends Req<'ApiVersionsResponse'> {
  readonly error: KafkaError;
}

// ---- Metadata (clients learn leaders) ----

export interface MetadataRequest extends Req<'Metadata'> {
  /** null = all topics. */
  readonly topics: readonly string[] | null;
}
export interface PartitionMetadata {
  readonly partition: number;
  readonly error: KafkaError;
  /** Broker id, or -1 when leaderless. */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly elr: readonly number[];
}
export interface MetadataResponse extends Req<'MetadataResponse'> {
  readonly brokers: readonly { id: number; rack: string | null }[];
  readonly controllerId: number;
  /** `topicId` (v10+) lets a KIP-848 member resolve the topic ids of its assignment; absent from older brokers and fakes. */
  readonly topics: readonly { name: string; topicId?: string; error: KafkaError; partitions: readonly PartitionMetadata[] }[];
}

// ---- Produce ----

export interface ProducePartitionData {
  readonly topic: string;
  readonly partition: number;
  readonly batch: RecordBatch;
}
export interface ProduceRequest extends Req<'Produce'> {
  /** -1 = all, 0, 1. */
  readonly acks: -1 | 0 | 1;
  readonly timeoutMs: number;
  readonly partitions: readonly ProducePartitionData[];
  /** A transactional producer's id (the leader verifies its transaction with the coordinator, KIP-890). */
  readonly transactionalId?: string;
  /** Its transaction version (a Produce v12+ client speaks 2), for the errors verification answers. */
  readonly transactionVersion?: 0 | 1 | 2;
}
/** The leader a broker knows for a partition, sent with NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH (KIP-951); -1s when unknown. */
export interface LeaderHint {
  readonly leaderId: number;
  readonly leaderEpoch: number;
}

export interface ProducePartitionResponse {
  readonly topic: string;
  readonly partition: number;
  readonly error: KafkaError;
  readonly baseOffset: number;
  readonly logAppendTimeMs: number;
  readonly logStartOffset: number;
  /** With NOT_LEADER_OR_FOLLOWER: the current leader as this broker knows it (KIP-951). */
  readonly currentLeader?: LeaderHint;
}
export interface ProduceResponse extends Req<'ProduceResponse'> {
  readonly partitions: readonly ProducePartitionResponse[];
  /** KIP-951 NodeEndpoints: the live brokers among the leaders the partitions name. */
  readonly nodeEndpoints?: readonly number[];
}

// ---- Fetch (followers and consumers) ----

export interface FetchPartition {
  readonly topic: string;
  readonly partition: number;
  readonly fetchOffset: number;
  /** Epoch of the last batch the fetcher has (KIP-595 style divergence check), -1 if unknown. */
  readonly lastFetchedEpoch: number;
  /** The fetcher's view of the leader epoch (KIP-320); -1 skips the check. */
  readonly currentLeaderEpoch: number;
  readonly logStartOffset: number;
  readonly maxBytes: number;
}
export interface FetchRequest extends Req<'Fetch'> {
  /** The follower's broker id, or -1 for a consumer. */
  readonly replicaId: number;
  readonly replicaEpoch: number;
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly isolationLevel: 'read_uncommitted' | 'read_committed';
  /** The fetch session (KIP-227): 0 for none. */
  readonly sessionId: number;
  /** 0 for a full request (a new session), -1 to close it, else the session's epoch. */
  readonly sessionEpoch: number;
  /** A full request: every partition; an incremental one: those new or changed since the last request. */
  readonly partitions: readonly FetchPartition[];
  /** Partitions to remove from the session. */
  readonly forgottenTopicsData: readonly TopicPartition[];
}
export interface FetchPartitionResponse {
  readonly topic: string;
  readonly partition: number;
  readonly error: KafkaError;
  readonly highWatermark: number;
  readonly logStartOffset: number;
  /** The leader's log end offset before the read. */
  readonly logEndOffset: number;
  readonly divergingEpoch: { readonly epoch: number; readonly endOffset: number } | null;
  readonly batches: readonly RecordBatch[];
  /** The current leader as this broker knows it, when the error is about leadership (KIP-951). */
  readonly currentLeader: LeaderHint | null;
  /** To a consumer: the partition's LSO (min(HW, first unstable offset)); absent means = HW. */
  readonly lastStableOffset?: number;
  /** To a read_committed consumer: the aborted transactions overlapping the returned batches. [src: FetchResponse AbortedTransactions] */
  readonly abortedTransactions?: readonly { readonly producerId: number; readonly firstOffset: number }[];
}
export interface FetchResponse extends Req<'FetchResponse'> {
  /** A session error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH) comes with no partitions. */
  readonly error: KafkaError;
  /** The session this response belongs to (0: none, or none could be created). */
  readonly sessionId: number;
  /** To a full request every partition; to an incremental one those with something new for the fetcher. */
  readonly partitions: readonly FetchPartitionResponse[];
  /** KIP-951 NodeEndpoints: the live brokers among the leaders the partitions name. */
  readonly nodeEndpoints?: readonly number[];
}

// ---- ListOffsets (earliest / latest) ----

export const EARLIEST_TIMESTAMP = -2;
export const LATEST_TIMESTAMP = -1;

export interface ListOffsetsRequest extends Req<'ListOffsets'> {
  readonly isolationLevel: 'read_uncommitted' | 'read_committed';
  readonly partitions: readonly { topic: string; partition: number; timestamp: number; currentLeaderEpoch: number }[];
}
export interface ListOffsetsResponse extends Req<'ListOffsetsResponse'> {
  readonly partitions: readonly { topic: string; partition: number; error: KafkaError; offset: number; leaderEpoch: number }[];
}

// ---- OffsetsForLeaderEpoch (consumer position validation, KIP-320) ----

export interface OffsetsForLeaderEpochRequest extends Req<'OffsetsForLeaderEpoch'> {
  readonly partitions: readonly { topic: string; partition: number; currentLeaderEpoch: number; leaderEpoch: number }[];
}
export interface OffsetsForLeaderEpochResponse extends Req<'OffsetsForLeaderEpochResponse'> {
  readonly partitions: readonly { topic: string; partition: number; error: KafkaError; leaderEpoch: number; endOffset: number }[];
}

// ---- InitProducerId ----

export interface InitProducerIdRequest extends Req<'InitProducerId'> {
  readonly transactionalId: string | null;
  /** With a transactional id: the producer's transaction.timeout.ms. */
  readonly transactionTimeoutMs?: number;
  /** KIP-360: the id and epoch of a producer re-initialising after an abortable error (-1 otherwise). */
  readonly producerId?: number;
  readonly producerEpoch?: number;
}
export interface InitProducerIdResponse extends Req<'InitProducerIdResponse'> {
  readonly error: KafkaError;
  readonly producerId: number;
  readonly producerEpoch: number;
}

// ---- Transactions (producer or partition leader -> transaction coordinator) ----

/**
 * AddPartitionsToTxn: from a transaction.version 1 producer before it first writes to a partition; from a
 * partition leader verifying (KIP-890 part 1, `verifyOnly`) or, with version 2, adding the partition for the
 * producer (part 2).
 */
export interface AddPartitionsToTxnRequest extends Req<'AddPartitionsToTxn'> {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly partitions: readonly TopicPartition[];
  readonly verifyOnly: boolean;
  /** The client's transaction version (2 when the leader adds for a TV2 producer). */
  readonly transactionVersion: 0 | 1 | 2;
}
export interface AddPartitionsToTxnResponse extends Req<'AddPartitionsToTxnResponse'> {
  /** A top-level error answers for every partition. */
  readonly error: KafkaError;
  readonly results: readonly { readonly topic: string; readonly partition: number; readonly error: KafkaError }[];
}
/** sendOffsetsToTransaction, first half: the group's __consumer_offsets partition joins the transaction. */
export interface AddOffsetsToTxnRequest extends Req<'AddOffsetsToTxn'> {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly groupId: string;
  readonly transactionVersion: 0 | 1 | 2;
}
export interface AddOffsetsToTxnResponse extends Req<'AddOffsetsToTxnResponse'> {
  readonly error: KafkaError;
}
export interface EndTxnRequest extends Req<'EndTxn'> {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly transactionVersion: 0 | 1 | 2;
}
export interface EndTxnResponse extends Req<'EndTxnResponse'> {
  readonly error: KafkaError;
  /** With transaction version 2: the producer id and (bumped) epoch for the next transaction. */
  readonly producerId: number;
  readonly producerEpoch: number;
}

// ---- WriteTxnMarkers (transaction coordinator -> partition leaders) ----

export interface WritableTxnMarker {
  readonly producerId: number;
  /** The epoch the coordinator ended the transaction with (bumped with transaction.version 2). */
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly transactionResult: 'COMMIT' | 'ABORT';
  readonly partitions: readonly TopicPartition[];
}
export interface WriteTxnMarkersRequest extends Req<'WriteTxnMarkers'> {
  readonly markers: readonly WritableTxnMarker[];
}
export interface WriteTxnMarkersResponse extends Req<'WriteTxnMarkersResponse'> {
  readonly markers: readonly { readonly producerId: number; readonly partitions: readonly { topic: string; partition: number; error: KafkaError }[] }[];
}

// ---- Broker <-> controller ----

export interface BrokerRegistrationRequest extends Req<'BrokerRegistration'> {
  readonly brokerId: number;
  readonly incarnationId: string;
  readonly rack: string | null;
  /** The broker epoch from the clean-shutdown file, -1 when the last shutdown was not clean (KIP-966). */
  readonly previousBrokerEpoch: number;
}
export interface BrokerRegistrationResponse extends Req<'BrokerRegistrationResponse'> {
  readonly error: KafkaError;
  readonly brokerEpoch: number;
}

export interface BrokerHeartbeatRequest extends Req<'BrokerHeartbeat'> {
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly currentMetadataOffset: number;
  readonly wantFence: boolean;
  readonly wantShutDown: boolean;
}
export interface BrokerHeartbeatResponse extends Req<'BrokerHeartbeatResponse'> {
  readonly error: KafkaError;
  readonly isCaughtUp: boolean;
  readonly isFenced: boolean;
  readonly inControlledShutdown: boolean;
  readonly shouldShutDown: boolean;
}

export interface AlterPartitionRequest extends Req<'AlterPartition'> {
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly newIsr: readonly { brokerId: number; brokerEpoch: number }[];
}
export interface AlterPartitionResponse extends Req<'AlterPartitionResponse'> {
  readonly error: KafkaError;
  readonly topic: string;
  readonly partition: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly partitionEpoch: number;
}

export interface AllocateProducerIdsRequest extends Req<'AllocateProducerIds'> {
  readonly brokerId: number;
  readonly brokerEpoch: number;
}
export interface AllocateProducerIdsResponse extends Req<'AllocateProducerIdsResponse'> {
  readonly error: KafkaError;
  readonly producerIdStart: number;
  readonly producerIdLen: number;
}

/** A controller's answer when it is not the active one, naming the leader it knows. */
export interface NotControllerResponse {
  readonly type: string;
  readonly correlationId: number;
  readonly error: 'NOT_CONTROLLER';
  readonly leaderHint: string | null;
}

export interface CreateTopicsRequest extends Req<'CreateTopics'> {
  readonly topics: readonly {
    name: string;
    numPartitions: number;
    replicationFactor: number;
    configs: Readonly<Record<string, string>>;
    /** A manual replica assignment per partition (numPartitions and replicationFactor are then -1). */
    assignments?: readonly (readonly number[])[];
  }[];
}
export interface CreateTopicsResponse extends Req<'CreateTopicsResponse'> {
  readonly topics: readonly { name: string; error: KafkaError; message: string }[];
}

// ---- Operator APIs (kafka-reassign-partitions, kafka-leader-election, kafka-configs) ----

export interface AlterPartitionReassignmentsRequest extends Req<'AlterPartitionReassignments'> {
  /** replicas null cancels the partition's reassignment. */
  readonly partitions: readonly { topic: string; partition: number; replicas: readonly number[] | null }[];
}
export interface AlterPartitionReassignmentsResponse extends Req<'AlterPartitionReassignmentsResponse'> {
  readonly partitions: readonly { topic: string; partition: number; error: KafkaError; message: string }[];
}

export type ListPartitionReassignmentsRequest = Req<'ListPartitionReassignments'>;
export interface ListPartitionReassignmentsResponse extends Req<'ListPartitionReassignmentsResponse'> {
  readonly reassignments: readonly { topic: string; partition: number; replicas: readonly number[]; addingReplicas: readonly number[]; removingReplicas: readonly number[] }[];
}

export interface ElectLeadersRequest extends Req<'ElectLeaders'> {
  readonly electionType: 'PREFERRED' | 'UNCLEAN';
  /** null = every partition (kafka-leader-election --all-topic-partitions). */
  readonly partitions: readonly TopicPartition[] | null;
}
export interface ElectLeadersResponse extends Req<'ElectLeadersResponse'> {
  readonly partitions: readonly { topic: string; partition: number; error: KafkaError }[];
}

export interface IncrementalAlterConfigsRequest extends Req<'IncrementalAlterConfigs'> {
  /** value null deletes the config; resourceName '' with BROKER is the cluster default. */
  readonly changes: readonly { resourceType: 'TOPIC' | 'BROKER'; resourceName: string; name: string; value: string | null }[];
}
export interface IncrementalAlterConfigsResponse extends Req<'IncrementalAlterConfigsResponse'> {
  readonly error: KafkaError;
  readonly message: string;
}

// ---- Group coordination (classic protocol; FindCoordinator and offsets serve both protocols) ----

export interface FindCoordinatorRequest extends Req<'FindCoordinator'> {
  readonly key: string;
  readonly keyType: 'GROUP' | 'TRANSACTION';
}
export interface FindCoordinatorResponse extends Req<'FindCoordinatorResponse'> {
  readonly error: KafkaError;
  readonly nodeId: number;
}

export interface JoinGroupProtocol {
  readonly name: string;
  /** The member's subscription, as the assignor needs it. */
  readonly topics: readonly string[];
  readonly ownedPartitions: readonly TopicPartition[];
  readonly generation: number;
}
export interface JoinGroupRequest extends Req<'JoinGroup'> {
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly protocolType: 'consumer';
  readonly protocols: readonly JoinGroupProtocol[];
  readonly reason: string;
}
export interface JoinGroupMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly metadata: JoinGroupProtocol;
}
export interface JoinGroupResponse extends Req<'JoinGroupResponse'> {
  readonly error: KafkaError;
  readonly generationId: number;
  readonly protocolName: string | null;
  readonly leader: string;
  readonly skipAssignment: boolean;
  readonly memberId: string;
  readonly members: readonly JoinGroupMember[];
}

export interface SyncGroupRequest extends Req<'SyncGroup'> {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly assignments: readonly { memberId: string; partitions: readonly TopicPartition[] }[];
}
export interface SyncGroupResponse extends Req<'SyncGroupResponse'> {
  readonly error: KafkaError;
  readonly partitions: readonly TopicPartition[];
}

export interface HeartbeatRequest extends Req<'Heartbeat'> {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}
export interface HeartbeatResponse extends Req<'HeartbeatResponse'> {
  readonly error: KafkaError;
}

export interface LeaveGroupRequest extends Req<'LeaveGroup'> {
  readonly groupId: string;
  readonly members: readonly { memberId: string; groupInstanceId: string | null; reason: string }[];
}
export interface LeaveGroupResponse extends Req<'LeaveGroupResponse'> {
  readonly error: KafkaError;
}

export interface OffsetCommitRequest extends Req<'OffsetCommit'> {
  readonly groupId: string;
  /** GenerationIdOrMemberEpoch (v9+): the classic generation, or the member epoch of a consumer-protocol member. */
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly offsets: readonly { topic: string; partition: number; offset: number; leaderEpoch: number; metadata: string }[];
}
export interface OffsetCommitResponse extends Req<'OffsetCommitResponse'> {
  readonly error: KafkaError;
  readonly partitions: readonly { topic: string; partition: number; error: KafkaError }[];
}

/**
 * sendOffsetsToTransaction, second half: the consumed positions, written to the group's __consumer_offsets
 * partition as part of the producer's transaction; visible only once its COMMIT marker is written. The
 * generation and member id (KIP-447) let the group coordinator fence a zombie consumer's producer.
 */
export interface TxnOffsetCommitRequest extends Req<'TxnOffsetCommit'> {
  readonly transactionalId: string;
  readonly groupId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly offsets: readonly { topic: string; partition: number; offset: number; leaderEpoch: number; metadata: string }[];
  /** The client's transaction version: 2 (TxnOffsetCommit v5+) sent no AddOffsetsToTxn, the group coordinator adds its partition (KIP-890 part 2). */
  readonly transactionVersion?: 0 | 1 | 2;
}
export interface TxnOffsetCommitResponse extends Req<'TxnOffsetCommitResponse'> {
  readonly partitions: readonly { topic: string; partition: number; error: KafkaError }[];
}

export interface OffsetFetchRequest extends Req<'OffsetFetch'> {
  readonly groupId: string;
  readonly partitions: readonly TopicPartition[] | null;
  /**
   * KIP-447: a partition with transactional offsets not yet committed or aborted is answered
   * UNSTABLE_OFFSET_COMMIT (the consumer retries) rather than with the offset before them.
   */
  readonly requireStable?: boolean;
  /** v9+: a consumer-protocol member says who it is, so a fenced member cannot read (STALE_MEMBER_EPOCH). */
  readonly memberId?: string | null;
  readonly memberEpoch?: number;
}
export interface OffsetFetchResponse extends Req<'OffsetFetchResponse'> {
  readonly error: KafkaError;
  readonly partitions: readonly { topic: string; partition: number; offset: number; leaderEpoch: number; error: KafkaError }[];
}

// ---- The consumer group protocol (KIP-848) ----

/** ConsumerGroupHeartbeatRequest TopicPartitions: partitions of one topic, by topic id. */
export interface ConsumerGroupHeartbeatTopicPartitions {
  readonly topicId: string;
  readonly partitions: readonly number[];
}
/**
 * ConsumerGroupHeartbeat (v1, KIP-1082: the member generates its own id). Fields not sent keep their previous
 * value on the coordinator: null, or -1 for rebalanceTimeoutMs. [clients/src/main/resources/common/message/
 * ConsumerGroupHeartbeatRequest.json]
 */
export interface ConsumerGroupHeartbeatRequest extends Req<'ConsumerGroupHeartbeat'> {
  readonly groupId: string;
  readonly memberId: string;
  /** 0 to join, -1 to leave, -2 for a static member leaving for a while; else the member's epoch. */
  readonly memberEpoch: number;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly subscribedTopicNames: readonly string[] | null;
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  /** What the member owns now; null when unchanged since the last heartbeat. */
  readonly topicPartitions: readonly ConsumerGroupHeartbeatTopicPartitions[] | null;
}
export interface ConsumerGroupHeartbeatResponse extends Req<'ConsumerGroupHeartbeatResponse'> {
  readonly error: KafkaError;
  readonly errorMessage: string | null;
  readonly memberId: string | null;
  readonly memberEpoch: number;
  readonly heartbeatIntervalMs: number;
  /** The member's assignment: sent when it changed, or after a full request; null otherwise. */
  readonly assignment: { readonly topicPartitions: readonly ConsumerGroupHeartbeatTopicPartitions[] } | null;
}

/** Every request type a broker serves. */
export type BrokerRequest =
  | ApiVersionsRequest
  | MetadataRequest
  | ProduceRequest
  | FetchRequest
  | ListOffsetsRequest
  | OffsetsForLeaderEpochRequest
  | InitProducerIdRequest
  | WriteTxnMarkersRequest
  | AddPartitionsToTxnRequest
  | AddOffsetsToTxnRequest
  | EndTxnRequest
  | FindCoordinatorRequest
  | JoinGroupRequest
  | SyncGroupRequest
  | HeartbeatRequest
  | LeaveGroupRequest
  | OffsetCommitRequest
  | TxnOffsetCommitRequest
  | OffsetFetchRequest
  | ConsumerGroupHeartbeatRequest;

/** Any response (clients route them by correlation id). */
export type AnyResponse =
  | ApiVersionsResponse
  | MetadataResponse
  | ProduceResponse
  | FetchResponse
  | ListOffsetsResponse
  | OffsetsForLeaderEpochResponse
  | InitProducerIdResponse
  | WriteTxnMarkersResponse
  | AddPartitionsToTxnResponse
  | AddOffsetsToTxnResponse
  | EndTxnResponse
  | BrokerRegistrationResponse
  | BrokerHeartbeatResponse
  | AlterPartitionResponse
  | CreateTopicsResponse
  | AllocateProducerIdsResponse
  | FindCoordinatorResponse
  | JoinGroupResponse
  | SyncGroupResponse
  | HeartbeatResponse
  | LeaveGroupResponse
  | OffsetCommitResponse
  | TxnOffsetCommitResponse
  | OffsetFetchResponse
  | ConsumerGroupHeartbeatResponse;

/** Bytes of a request or response on the wire, roughly: a header plus the record batches it carries. */
export const REQUEST_HEADER_BYTES = 64;

export function batchesBytes(batches: readonly RecordBatch[]): number {
  let n = 0;
  // Indexed: this runs for every partition of every fetch (an iterator per call shows up in the allocations).
  for (let i = 0; i < batches.length; i++) n += batches[i]!.sizeInBytes;
  return n;
}
