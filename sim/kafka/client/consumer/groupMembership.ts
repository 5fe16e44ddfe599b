/**
 * What the consumer asks of its group membership, whichever protocol runs it: the classic one
 * (consumerCoordinator.ts: JoinGroup / SyncGroup / Heartbeat) or the consumer protocol of KIP-848
 * (consumerMembershipManager.ts: ConsumerGroupHeartbeat). `group.protocol` picks one.
 * [clients/.../consumer/internals/ClassicKafkaConsumer.java, AsyncKafkaConsumer.java]
 */
import type { Micros } from '../../../core/time';
import type { CommitKind, CommitOffsets, CommitResult } from './groupOffsets';

export interface GroupMembership {
  /** The member id the member knows ('' before it has one). */
  readonly memberId: string;
  /** The classic generation or the member epoch; -1 outside a group. */
  readonly generationId: number;
  /**
   * What KafkaConsumer.groupMetadata() returns when it differs from the live generation: the classic consumer's
   * is set at each completed join only, so a member that learns from a heartbeat that it was removed still
   * names its old generation and member id (and a zombie's TxnOffsetCommit is refused). [src: ConsumerCoordinator.java `groupMetadata`, `onJoinComplete`]
   */
  readonly joinedGroupMetadata?: { readonly generationId: number; readonly memberId: string };
  /** One pass of the consumer's poll: keeps the poll clock, moves membership forward, auto-commits. True when fetch positions may be updated. */
  poll(): boolean;
  /** When poll() wants to run again even if nothing arrives. */
  nextWakeUs(): Micros;
  /** Partitions without a position ask for their committed offsets. */
  refreshCommittedOffsetsIfNeeded(): void;
  commitOffsetsAsync(offsets: CommitOffsets, kind: CommitKind, onDone?: (r: CommitResult) => void): CommitResult;
  commitOffsetsSync(offsets: CommitOffsets, kind: CommitKind, timeoutMs: number, onDone: (r: CommitResult) => void): void;
  /** The client's metadata changed (partition counts, topic ids). */
  onMetadataUpdate(): void;
  /** Commits (auto-commit), gives the partitions up, leaves the group, then calls `onDone`. */
  close(closeTimeoutMs: number, onDone: () => void): void;
}
