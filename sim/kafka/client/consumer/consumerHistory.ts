/**
 * The consumer's history: what the checkers and the UI read. Names and fields are stable; a field is only ever
 * added. Partitions are written "topic-partition" where a list of them is given.
 */
import type { Micros } from '../../../core/time';

/** Records of one partition returned by one poll(), in offset order (arrays of equal length). */
export interface PolledPartition {
  topic: string;
  partition: number;
  offsets: number[];
  keys: (string | null)[];
  values: (string | null)[];
}

declare module '../../../core/trace' {
  interface TraceKinds {
    /** poll() returned records (never emitted for an empty poll). `generation` -1 outside a group. */
    'consumer.poll': { group: string | null; memberId: string; generation: number; count: number; records: PolledPartition[] };
    /**
     * A commit finished. `source`: auto (auto-commit from poll), before-revoke (auto-commit before a rebalance),
     * sync / async (the application's commitSync / commitAsync), close. `offsets` are the next offsets to read.
     * `sentAt`: when the (last) OffsetCommit was sent; the coordinator applied it between `sentAt` and `t`.
     */
    'consumer.commit': {
      group: string;
      memberId: string;
      generation: number;
      source: string;
      offsets: { topic: string; partition: number; offset: number }[];
      ok: boolean;
      error: string;
      sentAt: Micros;
    };
    /**
     * The member's partitions changed: `assigned` added, `revoked` handed over cleanly, `lost` taken away because
     * the member fell out of the group; `owned` is what it owns afterwards. `generation` is the generation the
     * change belongs to (-1 for a loss).
     */
    'consumer.assignment': {
      group: string | null;
      memberId: string;
      generation: number;
      protocol: string;
      assigned: string[];
      revoked: string[];
      lost: string[];
      owned: string[];
    };
    /** JoinGroup succeeded: the member is in `generation`. */
    'consumer.join': { group: string; memberId: string; generation: number; leader: boolean; protocol: string };
    /** The member starts a rebalance (onJoinPrepare): why, and what it still owns meanwhile. */
    'consumer.rebalance.start': { group: string; memberId: string; generation: number; reason: string; keeps: string[] };
    /**
     * A rebalance stopped processing of `partitions` on this member from `start` until `t` (`durationMs`): under the
     * eager protocol everything it owned; under the cooperative protocol nothing is paused here (moving partitions
     * are unowned between one member's revocation and the other's assignment, see consumer.assignment).
     */
    'consumer.pause': { group: string; memberId: string; generation: number; start: Micros; durationMs: number; partitions: string[] };
    /** The member left the group on purpose: LeaveGroup sent (dynamic members) or its state dropped (static ones). */
    'consumer.leave': { group: string; memberId: string; reason: string; sent: boolean };
    /** A position was reset with ListOffsets (`from` null when there was none), or moved by a seek. */
    'consumer.offset.reset': { topic: string; partition: number; from: number | null; to: number; strategy: string; reason: string };
    /** OffsetsForLeaderEpoch found the log truncated below the position. */
    'consumer.truncation': { topic: string; partition: number; position: number; endOffset: number; leaderEpoch: number };
    /**
     * Records of one partition finished processing, with each record's end-to-end latency (processing end minus the
     * record's timestamp), in ms. `thread`: the polling thread or the worker of a hand-off.
     */
    'consumer.processed': { topic: string; partition: number; offsets: number[]; latencyMs: number[]; thread: 'poll' | 'worker' };
    /** A poison pill failed processing; `action` is what the policy did about it. */
    'consumer.process.fail': {
      topic: string;
      partition: number;
      offset: number;
      key: string | null;
      value: string | null;
      attempt: number;
      action: 'retry' | 'skip' | 'dead-letter';
    };
    /** A poison pill was written to a dead-letter (or retry) topic; `ok` false when that write failed for good. */
    'consumer.dead-letter': {
      topic: string;
      partition: number;
      offset: number;
      sourceTopic: string;
      sourcePartition: number;
      sourceOffset: number;
      key: string | null;
      value: string | null;
      ok: boolean;
      error: string;
    };
    /** The application stopped polling for `durationMs` (a stall), or sought (`seek`). */
    'consumer.stall': { durationMs: number };
    'consumer.seek': { partitions: string[]; to: string };
    /** An error the application sees; `fatal` ones stop the consumer. */
    'consumer.error': { error: string; fatal: boolean; detail: string };
    /** close() finished. */
    'consumer.close': { group: string | null; memberId: string };
  }
}

export {};
