import type { KafkaError } from '../errors';

/**
 * How the group coordinator persists its state: records in `__consumer_offsets`, a compacted topic whose
 * partition leader is the coordinator of the groups hashed to it. The broker that embeds the coordinator
 * implements this on top of its replica manager, so coordinator writes are replicated and fail exactly as
 * produce requests to that partition do.
 */
export interface CoordinatorRecord {
  /** A GroupMetadata or OffsetCommit key (see groupCoordinatorRecords.ts); compaction keeps the last value per key. */
  readonly key: string;
  /** null = tombstone (the group or the offset is deleted). */
  readonly value: string | null;
  /** Read back from a transactional batch (TxnOffsetCommit): the producer whose transaction holds it. */
  readonly producerId?: number;
  /** Read back from a control batch: the transaction marker of `producerId` (its key and value are not records). */
  readonly control?: 'COMMIT' | 'ABORT';
}

/** The producer a transactional write belongs to (TxnOffsetCommit). */
export interface TransactionalWriter {
  readonly producerId: number;
  readonly producerEpoch: number;
}

export interface CoordinatorStorage {
  /**
   * Appends `records` to `__consumer_offsets-partition` as its leader (acks=all, as Kafka's coordinator runtime
   * writes). `done` runs exactly once: NONE when every record is committed (below the high watermark), else the
   * append's error (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, KAFKA_STORAGE_ERROR, ...).
   * Appends to one partition must complete in the order they were made (they are committed in offset order).
   */
  append(partition: number, records: readonly CoordinatorRecord[], done: (error: KafkaError) => void, transactional?: TransactionalWriter): void;
  /**
   * Every record of the partition's log as this leader holds it, in offset order, to rebuild the coordinator's
   * state after it becomes leader. Kafka's loader reads up to the log end offset, not only below the high
   * watermark: a new leader's HW may lag records the old leader had already committed.
   * [coordinator-common/.../runtime/CoordinatorLoaderImpl.java `load`]
   */
  readLog(partition: number): readonly CoordinatorRecord[];
}
