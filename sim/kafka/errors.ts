/**
 * Kafka's protocol error names and codes (org.apache.kafka.common.protocol.Errors), the subset the
 * simulator produces or handles, with whether clients treat them as retriable.
 */
export const KAFKA_ERRORS = {
  UNKNOWN_SERVER_ERROR: { code: -1, retriable: false },
  NONE: { code: 0, retriable: false },
  OFFSET_OUT_OF_RANGE: { code: 1, retriable: false },
  CORRUPT_MESSAGE: { code: 2, retriable: true },
  UNKNOWN_TOPIC_OR_PARTITION: { code: 3, retriable: true },
  INVALID_FETCH_SIZE: { code: 4, retriable: false },
  LEADER_NOT_AVAILABLE: { code: 5, retriable: true },
  NOT_LEADER_OR_FOLLOWER: { code: 6, retriable: true },
  REQUEST_TIMED_OUT: { code: 7, retriable: true },
  MESSAGE_TOO_LARGE: { code: 10, retriable: false },
  NETWORK_EXCEPTION: { code: 13, retriable: true },
  COORDINATOR_LOAD_IN_PROGRESS: { code: 14, retriable: true },
  COORDINATOR_NOT_AVAILABLE: { code: 15, retriable: true },
  NOT_COORDINATOR: { code: 16, retriable: true },
  INVALID_TOPIC_EXCEPTION: { code: 17, retriable: false },
  RECORD_LIST_TOO_LARGE: { code: 18, retriable: false },
  NOT_ENOUGH_REPLICAS: { code: 19, retriable: true },
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: { code: 20, retriable: true },
  INVALID_REQUIRED_ACKS: { code: 21, retriable: false },
  ILLEGAL_GENERATION: { code: 22, retriable: false },
  INCONSISTENT_GROUP_PROTOCOL: { code: 23, retriable: false },
  INVALID_GROUP_ID: { code: 24, retriable: false },
  UNKNOWN_MEMBER_ID: { code: 25, retriable: false },
  INVALID_SESSION_TIMEOUT: { code: 26, retriable: false },
  REBALANCE_IN_PROGRESS: { code: 27, retriable: false },
  INVALID_COMMIT_OFFSET_SIZE: { code: 28, retriable: false },
  INVALID_TIMESTAMP: { code: 32, retriable: false },
  UNSUPPORTED_VERSION: { code: 35, retriable: false },
  TOPIC_ALREADY_EXISTS: { code: 36, retriable: false },
  INVALID_PARTITIONS: { code: 37, retriable: false },
  INVALID_REPLICATION_FACTOR: { code: 38, retriable: false },
  INVALID_REPLICA_ASSIGNMENT: { code: 39, retriable: false },
  INVALID_CONFIG: { code: 40, retriable: false },
  NOT_CONTROLLER: { code: 41, retriable: true },
  INVALID_REQUEST: { code: 42, retriable: false },
  UNSUPPORTED_FOR_MESSAGE_FORMAT: { code: 43, retriable: false },
  OUT_OF_ORDER_SEQUENCE_NUMBER: { code: 45, retriable: false },
  DUPLICATE_SEQUENCE_NUMBER: { code: 46, retriable: false },
  INVALID_PRODUCER_EPOCH: { code: 47, retriable: false },
  INVALID_TXN_STATE: { code: 48, retriable: false },
  INVALID_PRODUCER_ID_MAPPING: { code: 49, retriable: false },
  INVALID_TRANSACTION_TIMEOUT: { code: 50, retriable: false },
  CONCURRENT_TRANSACTIONS: { code: 51, retriable: true },
  TRANSACTION_COORDINATOR_FENCED: { code: 52, retriable: false },
  OPERATION_NOT_ATTEMPTED: { code: 55, retriable: false },
  KAFKA_STORAGE_ERROR: { code: 56, retriable: true },
  UNKNOWN_PRODUCER_ID: { code: 59, retriable: false },
  GROUP_ID_NOT_FOUND: { code: 69, retriable: false },
  FETCH_SESSION_ID_NOT_FOUND: { code: 70, retriable: true },
  INVALID_FETCH_SESSION_EPOCH: { code: 71, retriable: true },
  TOPIC_DELETION_DISABLED: { code: 73, retriable: false },
  FENCED_LEADER_EPOCH: { code: 74, retriable: true },
  UNKNOWN_LEADER_EPOCH: { code: 75, retriable: true },
  UNSUPPORTED_COMPRESSION_TYPE: { code: 76, retriable: false },
  STALE_BROKER_EPOCH: { code: 77, retriable: false },
  OFFSET_NOT_AVAILABLE: { code: 78, retriable: true },
  MEMBER_ID_REQUIRED: { code: 79, retriable: false },
  PREFERRED_LEADER_NOT_AVAILABLE: { code: 80, retriable: true },
  GROUP_MAX_SIZE_REACHED: { code: 81, retriable: false },
  FENCED_INSTANCE_ID: { code: 82, retriable: false },
  ELIGIBLE_LEADERS_NOT_AVAILABLE: { code: 83, retriable: true },
  ELECTION_NOT_NEEDED: { code: 84, retriable: false },
  NO_REASSIGNMENT_IN_PROGRESS: { code: 85, retriable: false },
  INVALID_RECORD: { code: 87, retriable: false },
  UNSTABLE_OFFSET_COMMIT: { code: 88, retriable: true },
  PRODUCER_FENCED: { code: 90, retriable: false },
  INCONSISTENT_VOTER_SET: { code: 94, retriable: false },
  INVALID_UPDATE_VERSION: { code: 95, retriable: false },
  UNKNOWN_TOPIC_ID: { code: 100, retriable: true },
  DUPLICATE_BROKER_REGISTRATION: { code: 101, retriable: false },
  BROKER_ID_NOT_REGISTERED: { code: 102, retriable: false },
  INCONSISTENT_TOPIC_ID: { code: 103, retriable: true },
  INELIGIBLE_REPLICA: { code: 107, retriable: false },
  NEW_LEADER_ELECTED: { code: 108, retriable: false },
  FENCED_MEMBER_EPOCH: { code: 110, retriable: false },
  UNRELEASED_INSTANCE_ID: { code: 111, retriable: false },
  UNSUPPORTED_ASSIGNOR: { code: 112, retriable: false },
  STALE_MEMBER_EPOCH: { code: 113, retriable: false },
  UNSUPPORTED_ENDPOINT_TYPE: { code: 115, retriable: false },
  TRANSACTION_ABORTABLE: { code: 120, retriable: false },
  // Share groups (KIP-932) [src: clients/.../common/protocol/Errors.java]
  INVALID_RECORD_STATE: { code: 121, retriable: false },
  SHARE_SESSION_NOT_FOUND: { code: 122, retriable: true },
  INVALID_SHARE_SESSION_EPOCH: { code: 123, retriable: true },
} as const;

export type KafkaError = keyof typeof KAFKA_ERRORS;

/** Errors that are never sent by a broker but that clients report: the request's own timeout, a failed send. */
export const CLIENT_ERRORS = ['TIMEOUT', 'BUFFER_EXHAUSTED', 'RECORD_TOO_LARGE'] as const;
export type ClientError = (typeof CLIENT_ERRORS)[number];

/** The exceptions a consumer application sees as fatal, by their Java names [KafkaConsumer.poll]. */
export const CONSUMER_EXCEPTIONS = ['OffsetOutOfRangeException', 'NoOffsetForPartitionException', 'LogTruncationException'] as const;

export function isRetriable(e: KafkaError): boolean {
  return KAFKA_ERRORS[e].retriable;
}

export function errorCode(e: KafkaError): number {
  return KAFKA_ERRORS[e].code;
}

const BY_CODE = new Map<number, KafkaError>(Object.entries(KAFKA_ERRORS).map(([name, v]) => [v.code, name as KafkaError]));

/** The error with a protocol code, or undefined for a code this list lacks. */
export function errorByCode(code: number): KafkaError | undefined {
  return BY_CODE.get(code);
}
