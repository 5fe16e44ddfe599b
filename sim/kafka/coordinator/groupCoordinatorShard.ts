/**
 * The part of the group coordinator that serves one partition of `__consumer_offsets`: its classic and its
 * consumer (KIP-848) groups, their committed offsets, the timers they hold, and the writes still waiting to be
 * committed. It dies with the leadership of the partition. [group-coordinator/.../GroupCoordinatorShard.java]
 */
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import type { ClassicGroup } from './classicGroup';
import type { ConsumerGroup } from './consumer/consumerGroup';
import type { CommittedOffset } from './groupCoordinatorRecords';
import { PendingTransactionalOffsets } from './transactionalOffsets';

/** A write to the partition not yet answered, and who waits for it (responses that come after it). */
export interface PendingWrite {
  done: boolean;
  readonly waiters: (() => void)[];
}

/** The timers a consumer-group member holds: its session; a consumer-protocol member's rebalance timeout; a classic member's join and sync timeouts. */
export interface MemberTimers {
  session: TimerId;
  rebalance: TimerId;
  join: TimerId;
  sync: TimerId;
}

export class GroupCoordinatorShard {
  state: 'loading' | 'active' = 'loading';
  readonly groups = new Map<string, ClassicGroup>();
  readonly consumerGroups = new Map<string, ConsumerGroup>();
  readonly offsets = new Map<string, Map<string, CommittedOffset>>();
  /** Offsets of transactions without a marker yet (TxnOffsetCommit). */
  pendingTxnOffsets = new PendingTransactionalOffsets();
  /** Timers of consumer-group members, by "group\0member". */
  readonly memberTimers = new Map<string, MemberTimers>();
  loadTimer: TimerId = NO_TIMER;
  retentionTimer: TimerId = NO_TIMER;
  /** The last write made, while it is pending: operations without records answer only after it. */
  lastWrite: PendingWrite | null = null;

  constructor(
    readonly partition: number,
    readonly leaderEpoch: number,
  ) {}

  /** Runs `fn` once every write made so far has completed (at once when none is pending). */
  afterPendingWrites(fn: () => void): void {
    const w = this.lastWrite;
    if (w && !w.done) w.waiters.push(fn);
    else fn();
  }
}
