import type { KafkaError } from '../errors';
import { REQUEST_HEADER_BYTES } from '../protocol';

/**
 * The KRaft RPCs (KIP-595, KIP-996) between voters and observers, named as Kafka names them, with the fields
 * whose behaviour the simulator models [clients/src/main/resources/common/message/{Vote,BeginQuorumEpoch,
 * EndQuorumEpoch,Fetch}{Request,Response}.json]. One partition: `__cluster_metadata-0`.
 */

export const METADATA_TOPIC = '__cluster_metadata';
export const METADATA_PARTITION = 0;

/** What a LeaderChange control record says [clients/.../message/LeaderChangeMessage.json]. */
export interface LeaderChangeMessage {
  readonly type: 'LeaderChange';
  readonly leaderId: string;
  readonly voters: readonly string[];
  readonly grantingVoters: readonly string[];
}

/**
 * One record batch of the metadata log: every record in it has the batch's epoch, record i has offset
 * `baseOffset + i`. A control batch carries a LeaderChange instead of data records. Immutable: the same
 * object is written to disk, replicated and handed to the listener.
 */
export interface RaftBatch<R> {
  readonly baseOffset: number;
  readonly epoch: number;
  readonly records: readonly R[];
  readonly control: LeaderChangeMessage | null;
  /** Size on disk and on the wire. */
  readonly bytes: number;
  /** When the leader appended it (simulated microseconds). */
  readonly appendTime: number;
}

/** Records in a batch (a control batch holds one control record). */
export function batchCount(b: RaftBatch<unknown>): number {
  return b.control ? 1 : b.records.length;
}

/** The offset after a batch's last record. */
export function batchEnd(b: RaftBatch<unknown>): number {
  return b.baseOffset + batchCount(b);
}

interface RaftRpc<T extends string> {
  readonly type: T;
  readonly correlationId: number;
  readonly topic: typeof METADATA_TOPIC;
  readonly partition: number;
}

/** Vote: a candidate's ballot, or with `preVote` a prospective's non-binding ask (KIP-996). */
export interface VoteRequest extends RaftRpc<'Vote'> {
  readonly replicaId: string;
  readonly replicaEpoch: number;
  readonly lastOffsetEpoch: number;
  readonly lastOffset: number;
  readonly preVote: boolean;
}

/** Every response names the responder's epoch and the leader it knows, so a lagging replica catches up. */
interface RaftResponse<T extends string> extends RaftRpc<T> {
  readonly errorCode: KafkaError;
  readonly leaderId: string | null;
  readonly leaderEpoch: number;
}

export interface VoteResponse extends RaftResponse<'VoteResponse'> {
  readonly voteGranted: boolean;
}

/** Sent by a new leader to every voter (and resent periodically) so they learn of it without fetching. */
export interface BeginQuorumEpochRequest extends RaftRpc<'BeginQuorumEpoch'> {
  readonly leaderId: string;
  readonly leaderEpoch: number;
}
export type BeginQuorumEpochResponse = RaftResponse<'BeginQuorumEpochResponse'>;

/** Sent by a resigned leader so voters start an election at once instead of waiting for their fetch timeout. */
export interface EndQuorumEpochRequest extends RaftRpc<'EndQuorumEpoch'> {
  readonly leaderId: string;
  readonly leaderEpoch: number;
  /** Voters by descending end offset: the first should stand first. */
  readonly preferredSuccessors: readonly string[];
}
export type EndQuorumEpochResponse = RaftResponse<'EndQuorumEpochResponse'>;

export interface RaftFetchRequest extends RaftRpc<'Fetch'> {
  readonly replicaId: string;
  readonly maxWaitMs: number;
  readonly maxBytes: number;
  readonly currentLeaderEpoch: number;
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
  /** The high watermark the fetcher knows, -1 when unknown (Fetch v18, KAFKA-14145). */
  readonly highWatermark: number;
}

export interface RaftFetchResponse<R> extends RaftResponse<'FetchResponse'> {
  /** -1 when the responder does not know it. */
  readonly highWatermark: number;
  /** Set when the fetcher's log diverged: truncate to (at most) this end offset of this epoch. */
  readonly divergingEpoch: { readonly epoch: number; readonly endOffset: number } | null;
  readonly batches: readonly RaftBatch<R>[];
}

export type RaftRequest = VoteRequest | BeginQuorumEpochRequest | EndQuorumEpochRequest | RaftFetchRequest;
export type RaftResponseMessage<R = unknown> = VoteResponse | BeginQuorumEpochResponse | EndQuorumEpochResponse | RaftFetchResponse<R>;
export type RaftMessage<R = unknown> = RaftRequest | RaftResponseMessage<R>;

const RAFT_TYPES: ReadonlySet<string> = new Set([
  'Vote',
  'VoteResponse',
  'BeginQuorumEpoch',
  'BeginQuorumEpochResponse',
  'EndQuorumEpoch',
  'EndQuorumEpochResponse',
  'Fetch',
  'FetchResponse',
]);

/** True for the quorum's own messages: a broker's partition Fetch shares the RPC name but not the topic. */
export function isRaftMessage(msg: unknown): msg is RaftMessage {
  if (typeof msg !== 'object' || msg === null) return false;
  const m = msg as { type?: unknown; topic?: unknown };
  return typeof m.type === 'string' && RAFT_TYPES.has(m.type) && m.topic === METADATA_TOPIC;
}

/** Approximate wire sizes: a request header plus the fixed fields, plus the batches a fetch carries. */
export const RAFT_RPC_BYTES = REQUEST_HEADER_BYTES + 32;

export function messageBytes(msg: RaftMessage): number {
  if (msg.type !== 'FetchResponse') return RAFT_RPC_BYTES;
  let bytes = RAFT_RPC_BYTES;
  for (const b of msg.batches) bytes += b.bytes;
  return bytes;
}
