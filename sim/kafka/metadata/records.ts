/**
 * The records of the cluster metadata log (`__cluster_metadata`), named and shaped as Kafka's
 * metadata/src/main/resources/common/metadata/*.json define them, as plain JSON-serialisable objects.
 * Only the fields whose behaviour the simulator models are kept (no listeners, features ranges, log dirs).
 *
 * The active controller appends these; every controller and broker replays the committed ones, in
 * order, into its own MetadataImage.
 */

/** No leader: the partition is offline (LeaderConstants.NO_LEADER). */
export const NO_LEADER = -1;

/** Kafka's LeaderRecoveryState: RECOVERING after an unclean election until the leader has recovered (KIP-704). */
export type LeaderRecoveryState = 'RECOVERED' | 'RECOVERING';

/** TopicRecord (apiKey 2). */
export interface TopicRecord {
  readonly type: 'TopicRecord';
  readonly name: string;
  readonly topicId: string;
}

/** PartitionRecord (apiKey 3): the full registration of a new partition. */
export interface PartitionRecord {
  readonly type: 'PartitionRecord';
  readonly topicId: string;
  readonly partitionId: number;
  /** The assignment in order; the first is the preferred replica. */
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly removingReplicas?: readonly number[];
  readonly addingReplicas?: readonly number[];
  /** A broker id, or NO_LEADER. */
  readonly leader: number;
  readonly leaderRecoveryState: LeaderRecoveryState;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly eligibleLeaderReplicas: readonly number[];
  readonly lastKnownElr: readonly number[];
}

/**
 * PartitionChangeRecord (apiKey 5): only the fields that change are present. A present `leader` (even the
 * same broker, even NO_LEADER) bumps the leader epoch on replay; any PartitionChangeRecord bumps the
 * partition epoch [PartitionRegistration.merge].
 */
export interface PartitionChangeRecord {
  readonly type: 'PartitionChangeRecord';
  readonly topicId: string;
  readonly partitionId: number;
  readonly isr?: readonly number[];
  /** The new leader, or NO_LEADER; absent = no leader change (Kafka's NO_LEADER_CHANGE, -2). */
  readonly leader?: number;
  readonly replicas?: readonly number[];
  readonly removingReplicas?: readonly number[];
  readonly addingReplicas?: readonly number[];
  readonly leaderRecoveryState?: LeaderRecoveryState;
  readonly eligibleLeaderReplicas?: readonly number[];
  readonly lastKnownElr?: readonly number[];
}

/** RegisterBrokerRecord (apiKey 0). A new registration is fenced until the broker catches up. */
export interface RegisterBrokerRecord {
  readonly type: 'RegisterBrokerRecord';
  readonly brokerId: number;
  readonly incarnationId: string;
  readonly brokerEpoch: number;
  readonly rack: string | null;
  readonly fenced: boolean;
  readonly inControlledShutdown: boolean;
}

/** UnregisterBrokerRecord (apiKey 1). */
export interface UnregisterBrokerRecord {
  readonly type: 'UnregisterBrokerRecord';
  readonly brokerId: number;
  readonly brokerEpoch: number;
}

/**
 * BrokerRegistrationChangeRecord (apiKey 17). Kafka encodes the changes as int8 (FENCE=1, UNFENCE=-1,
 * NONE=0; IN_CONTROLLED_SHUTDOWN=1, NONE=0); here: `fenced` true = FENCE, false = UNFENCE, absent = NONE.
 */
export interface BrokerRegistrationChangeRecord {
  readonly type: 'BrokerRegistrationChangeRecord';
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly fenced?: boolean;
  readonly inControlledShutdown?: true;
}

export type ConfigResourceType = 'TOPIC' | 'BROKER' | 'GROUP';

/**
 * ConfigRecord (apiKey 4). resourceName '' with BROKER is the cluster-wide default; a broker id as a string
 * is that broker's dynamic config; GROUP configs belong to a consumer group (consumer.session.timeout.ms, ...,
 * KIP-848). value null deletes the config.
 */
export interface ConfigRecord {
  readonly type: 'ConfigRecord';
  readonly resourceType: ConfigResourceType;
  readonly resourceName: string;
  readonly name: string;
  readonly value: string | null;
}

/** FeatureLevelRecord (apiKey 12), e.g. eligible.leader.replicas.version = 1. Level 0 = off. */
export interface FeatureLevelRecord {
  readonly type: 'FeatureLevelRecord';
  readonly name: string;
  readonly featureLevel: number;
}

/** ClearElrRecord (apiKey 28): clears ELR and LastKnownELR of one topic, or of all topics when topicName is ''. */
export interface ClearElrRecord {
  readonly type: 'ClearElrRecord';
  readonly topicName: string;
}

/** NoOpRecord (apiKey 20): written when the controller is idle, so observers see the log advance. */
export interface NoOpRecord {
  readonly type: 'NoOpRecord';
}

/** ProducerIdsRecord (apiKey 15): a block of producer ids handed to a broker. */
export interface ProducerIdsRecord {
  readonly type: 'ProducerIdsRecord';
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly nextProducerId: number;
}

/** RemoveTopicRecord (apiKey 9): the topic is deleted, with its partitions and its configs. */
export interface RemoveTopicRecord {
  readonly type: 'RemoveTopicRecord';
  readonly topicId: string;
}

export type MetadataRecord =
  | TopicRecord
  | RemoveTopicRecord
  | PartitionRecord
  | PartitionChangeRecord
  | RegisterBrokerRecord
  | UnregisterBrokerRecord
  | BrokerRegistrationChangeRecord
  | ConfigRecord
  | FeatureLevelRecord
  | ClearElrRecord
  | NoOpRecord
  | ProducerIdsRecord;

export type MetadataRecordType = MetadataRecord['type'];

// ---- sizes ----

/** Per record: the Raft record framing plus the ApiMessageAndVersion header (frame version, api key, version). */
const RECORD_OVERHEAD = 12;
const UUID = 16;
const INT32 = 4;
const INT64 = 8;
/** A tagged field: tag and size varints. */
const TAG = 2;

function uvarintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function stringSize(s: string): number {
  // Metadata strings are topic names, config keys and values: ASCII in practice.
  return uvarintSize(s.length + 1) + s.length;
}

function int32ArraySize(a: readonly number[]): number {
  return uvarintSize(a.length + 1) + INT32 * a.length;
}

function taggedArraySize(a: readonly number[] | undefined): number {
  return a === undefined ? 0 : TAG + int32ArraySize(a);
}

/**
 * Estimated bytes of a record in the metadata log, following the compact (flexible-version) encoding of
 * Kafka's generated message classes: fixed-width ints, UUIDs of 16 bytes, compact arrays and strings,
 * tagged fields only when present. Good to within a few bytes; used for batch and segment sizes.
 */
export function metadataRecordBytes(r: MetadataRecord): number {
  switch (r.type) {
    case 'TopicRecord':
      return RECORD_OVERHEAD + stringSize(r.name) + UUID + 1;
    case 'RemoveTopicRecord':
      return RECORD_OVERHEAD + UUID + 1;
    case 'PartitionRecord':
      return (
        RECORD_OVERHEAD +
        INT32 +
        UUID +
        int32ArraySize(r.replicas) +
        int32ArraySize(r.isr) +
        int32ArraySize(r.removingReplicas ?? []) +
        int32ArraySize(r.addingReplicas ?? []) +
        INT32 +
        1 +
        INT32 +
        INT32 +
        taggedArraySize(r.eligibleLeaderReplicas.length > 0 ? r.eligibleLeaderReplicas : undefined) +
        taggedArraySize(r.lastKnownElr.length > 0 ? r.lastKnownElr : undefined) +
        1
      );
    case 'PartitionChangeRecord':
      return (
        RECORD_OVERHEAD +
        INT32 +
        UUID +
        taggedArraySize(r.isr) +
        (r.leader === undefined ? 0 : TAG + INT32) +
        taggedArraySize(r.replicas) +
        taggedArraySize(r.removingReplicas) +
        taggedArraySize(r.addingReplicas) +
        (r.leaderRecoveryState === undefined ? 0 : TAG + 1) +
        taggedArraySize(r.eligibleLeaderReplicas) +
        taggedArraySize(r.lastKnownElr) +
        1
      );
    case 'RegisterBrokerRecord':
      // Listeners and supported features are not modelled; a typical registration carries ~60 bytes of them.
      return RECORD_OVERHEAD + INT32 + 1 + UUID + INT64 + 60 + stringSize(r.rack ?? '') + 1 + 1 + 1;
    case 'UnregisterBrokerRecord':
      return RECORD_OVERHEAD + INT32 + INT64 + 1;
    case 'BrokerRegistrationChangeRecord':
      return RECORD_OVERHEAD + INT32 + INT64 + (r.fenced === undefined ? 0 : TAG + 1) + (r.inControlledShutdown ? TAG + 1 : 0) + 1;
    case 'ConfigRecord':
      return RECORD_OVERHEAD + 1 + stringSize(r.resourceName) + stringSize(r.name) + (r.value === null ? 1 : stringSize(r.value)) + 1;
    case 'FeatureLevelRecord':
      return RECORD_OVERHEAD + stringSize(r.name) + 2 + 1;
    case 'ClearElrRecord':
      return RECORD_OVERHEAD + stringSize(r.topicName) + 1;
    case 'NoOpRecord':
      return RECORD_OVERHEAD + 1;
    case 'ProducerIdsRecord':
      return RECORD_OVERHEAD + INT32 + INT64 + INT64 + 1;
  }
}
