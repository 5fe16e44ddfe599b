/**
 * What a consumer subscribes to and, for each assigned partition, where it stands: its position (the next offset
 * to return), whether it waits for a committed offset, a reset or a position validation, and what it last heard
 * of the partition's high watermark. [clients/.../consumer/internals/SubscriptionState.java]
 */
import { compareTopicPartitions } from './assignors/consumerPartitionAssignor';
import { tpKey, type TopicPartition } from '../../protocol';
import type { ResetTarget } from './offsetReset';

export interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** "topic-partition". */
  readonly key: string;
  /** The next offset to fetch and return; null while unknown. */
  position: number | null;
  /** Leader epoch of the last record consumed (or of the committed offset), -1 unknown. */
  positionEpoch: number;
  /** Waiting for the group's committed offset (OffsetFetch). */
  awaitingCommitted: boolean;
  /** Waiting for a ListOffsets lookup. */
  reset: ResetTarget | null;
  resetReason: string;
  /** The position the reset replaces (null when there was none), for the trace. */
  resetFrom: number | null;
  /** Waiting for an OffsetsForLeaderEpoch check of the position (KIP-320). */
  awaitingValidation: boolean;
  /** The leader epoch the position was last validated against (or fetched from). */
  validatedLeaderEpoch: number;
  /** KafkaConsumer.pause(): not fetched, nothing returned. */
  paused: boolean;
  /** Being revoked (KIP-848 reconciliation): not fetched, nothing returned, while the commit before it runs. */
  pendingRevocation: boolean;
  highWatermark: number;
  /** The LSO the last fetch reported (= the HW without open transactions); read_committed lag is measured to it. */
  lastStableOffset: number;
  logStartOffset: number;
}

export class SubscriptionState {
  /** Subscribed topics (group management), or empty for manual assignment. */
  topics: readonly string[] = [];
  /** true after assign(): no group management, commits carry no generation. */
  manual = false;
  private readonly assigned = new Map<string, PartitionState>();
  private sorted: PartitionState[] = [];
  /**
   * Bumped when the assignment changes or a position is set, reset or dropped (`seek`, `requestReset`, `changed`),
   * so a poll can tell that no partition can have come to want a reset or a validation since it last looked.
   */
  version = 0;
  /** Bumped when the assignment changes (what a by-leader grouping of the partitions depends on). */
  assignmentVersion = 0;

  /** A caller set a partition's position, reset or validation state by hand. */
  changed(): void {
    this.version++;
  }

  subscribe(topics: readonly string[]): void {
    this.topics = [...topics].sort();
    this.manual = false;
  }

  /** Group-managed partitions (subscribe) rather than manual ones. */
  get hasAutoAssignedPartitions(): boolean {
    return !this.manual && this.topics.length > 0;
  }

  /** Replaces the assignment; partitions kept keep their state. [SubscriptionState.java `assignFromSubscribed`] */
  assign(partitions: readonly TopicPartition[]): void {
    const next = [...partitions].sort(compareTopicPartitions);
    const keep = new Map<string, PartitionState>();
    for (const tp of next) {
      const key = tpKey(tp.topic, tp.partition);
      keep.set(key, this.assigned.get(key) ?? newState(tp.topic, tp.partition, key));
    }
    this.assigned.clear();
    for (const [k, v] of keep) this.assigned.set(k, v);
    this.sorted = [...keep.values()];
    this.version++;
    this.assignmentVersion++;
  }

  assignedPartitions(): readonly PartitionState[] {
    return this.sorted;
  }

  assignedTopicPartitions(): TopicPartition[] {
    return this.sorted.map((s) => ({ topic: s.topic, partition: s.partition }));
  }

  get(key: string): PartitionState | undefined {
    return this.assigned.get(key);
  }

  isAssigned(key: string): boolean {
    return this.assigned.has(key);
  }

  /** Can be fetched now. [SubscriptionState.java `isFetchable`] */
  isFetchable(s: PartitionState): boolean {
    return s.position !== null && !s.paused && !s.pendingRevocation && !s.awaitingValidation;
  }

  /** The positions a commit covers: every assigned partition with a known position. [SubscriptionState.java `allConsumed`] */
  allConsumed(): { topic: string; partition: number; offset: number; leaderEpoch: number }[] {
    const out: { topic: string; partition: number; offset: number; leaderEpoch: number }[] = [];
    for (const s of this.sorted) if (s.position !== null) out.push({ topic: s.topic, partition: s.partition, offset: s.position, leaderEpoch: s.positionEpoch });
    return out;
  }

  /** Moves the position; everything waiting on the old one is void. [SubscriptionState.java `seek`] */
  seek(s: PartitionState, offset: number, epoch = -1): void {
    this.version++;
    s.position = offset;
    s.positionEpoch = epoch;
    s.awaitingCommitted = false;
    s.reset = null;
    s.awaitingValidation = false;
  }

  requestReset(s: PartitionState, target: ResetTarget, reason: string): void {
    this.version++;
    s.resetFrom = s.position;
    s.position = null;
    s.awaitingCommitted = false;
    s.awaitingValidation = false;
    s.reset = target;
    s.resetReason = reason;
  }
}

function newState(topic: string, partition: number, key: string): PartitionState {
  return {
    topic,
    partition,
    key,
    position: null,
    positionEpoch: -1,
    awaitingCommitted: true,
    reset: null,
    resetReason: '',
    resetFrom: null,
    awaitingValidation: false,
    validatedLeaderEpoch: -1,
    paused: false,
    pendingRevocation: false,
    highWatermark: -1,
    lastStableOffset: -1,
    logStartOffset: -1,
  };
}
