/**
 * KRaft: the `__cluster_metadata` quorum (KIP-595, KIP-996 pre-vote). Controllers embed a KafkaRaftClient as
 * voters, brokers as observers; everything else here is the rules it runs on.
 */
export { KafkaRaftClient, MAX_BATCH_SIZE_BYTES, MAX_FETCH_SIZE_BYTES, MAX_FETCH_WAIT_MS } from './kafkaRaftClient';
export type { RaftClientConfig, RaftInspection, RaftListener } from './kafkaRaftClient';
export { processRaftIo, type RaftIo } from './raftIo';
export { quorumConfig, QUORUM_TIMING_KEYS, type QuorumConfig, type QuorumTimingKey } from './quorumConfig';
export { METADATA_PARTITION, METADATA_TOPIC, batchCount, batchEnd, isRaftMessage, messageBytes } from './messages';
export type { LeaderChangeMessage, RaftBatch, RaftMessage, RaftFetchRequest, RaftFetchResponse, VoteRequest, VoteResponse } from './messages';
export type { RaftStateName, VoteReason } from './voteRules';
export { METADATA_PARTITION_DIR } from './metadataLog';
import './raftTrace';
