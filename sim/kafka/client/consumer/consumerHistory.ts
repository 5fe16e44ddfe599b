/**
 * The consumer's history: what the checkers and the UI read. Names and fields are stable; a field is only ever
 * added. Partitions are written "topic-partition" where a list of them is given.
 */
import { bool, defineKinds, list, nullable, num, obj, oneOf, str, type KindsOf, type TypeOf } from '../../../core/traceSchema';

/** Records of one partition returned by one poll(), in offset order (arrays of equal length). */
const POLLED_PARTITION = obj({ topic: str, partition: num, offsets: list(num), keys: list(nullable(str)), values: list(nullable(str)) });
export type PolledPartition = TypeOf<typeof POLLED_PARTITION>;

const COMMITTED = obj({ topic: str, partition: num, offset: num });

/** The consumer's history. */
export const CONSUMER_KINDS = defineKinds({
  /** A consumer with isolation.level=read_committed started (read_uncommitted, the default, emits nothing). */
  'consumer.isolation': { level: str },
  /**
   * poll() returned records (never emitted for an empty poll). `generation` -1 outside a group. Beside it (Trace.emit's numbers, core/numberedText.ts), when the emitter has them: list k the numbers of
   * records[k].values, list records.length + k those of records[k].keys.
   */
  'consumer.poll': { group: nullable(str), memberId: str, generation: num, count: num, records: list(POLLED_PARTITION) },
  /**
   * A commit finished. `source`: auto (auto-commit from poll), before-revoke (auto-commit before a rebalance),
   * sync / async (the application's commitSync / commitAsync), close. `offsets` are the next offsets to read.
   * `sentAt`: when the (last) OffsetCommit was sent; the coordinator applied it between `sentAt` and `t`.
   */
  'consumer.commit': {
    group: str,
    memberId: str,
    generation: num,
    source: str,
    offsets: list(COMMITTED),
    ok: bool,
    error: str,
    sentAt: num,
  },
  /**
   * The member's partitions changed: `assigned` added, `revoked` handed over cleanly, `lost` taken away because
   * the member fell out of the group; `owned` is what it owns afterwards. `generation` is the generation the
   * change belongs to (-1 for a loss).
   */
  'consumer.assignment': {
    group: nullable(str),
    memberId: str,
    generation: num,
    protocol: str,
    assigned: list(str),
    revoked: list(str),
    lost: list(str),
    owned: list(str),
  },
  /**
   * The member is in the group at `generation`: JoinGroup succeeded (classic), or the first heartbeat answered
   * with a member epoch (protocol "consumer", KIP-848; `leader` is always false there).
   */
  'consumer.join': { group: str, memberId: str, generation: num, leader: bool, protocol: str },
  /**
   * A consumer-protocol member (KIP-848) changed state: JOINING, RECONCILING, ACKNOWLEDGING, STABLE, FENCED,
   * PREPARE_LEAVING, LEAVING, UNSUBSCRIBED, STALE or FATAL, at member epoch `memberEpoch`, and why.
   */
  'consumer.member': { group: str, memberId: str, memberEpoch: num, state: str, reason: str },
  /** The member starts a rebalance (onJoinPrepare): why, and what it still owns meanwhile. */
  'consumer.rebalance.start': { group: str, memberId: str, generation: num, reason: str, keeps: list(str) },
  /**
   * A rebalance stopped processing of `partitions` on this member from `start` until `t` (`durationMs`): under the
   * eager protocol everything it owned; under the cooperative protocol nothing is paused here (moving partitions
   * are unowned between one member's revocation and the other's assignment, see consumer.assignment).
   */
  'consumer.pause': { group: str, memberId: str, generation: num, start: num, durationMs: num, partitions: list(str) },
  /** The member left the group on purpose: LeaveGroup sent (dynamic members) or its state dropped (static ones). */
  'consumer.leave': { group: str, memberId: str, reason: str, sent: bool },
  /** A position was reset with ListOffsets (`from` null when there was none), or moved by a seek. */
  'consumer.offset.reset': { topic: str, partition: num, from: nullable(num), to: num, strategy: str, reason: str },
  /** OffsetsForLeaderEpoch found the log truncated below the position. */
  'consumer.truncation': { topic: str, partition: num, position: num, endOffset: num, leaderEpoch: num },
  /**
   * Records of one partition finished processing, with each record's end-to-end latency (processing end minus the
   * record's timestamp), in ms. `thread`: the polling thread or the worker of a hand-off.
   */
  'consumer.processed': { topic: str, partition: num, offsets: list(num), latencyMs: list(num), thread: oneOf('poll', 'worker') },
  /**
   * A consume-transform-produce application wrote `output` (to `outputTopic`) for the record it read at
   * topic/partition/offset (`input`, its value). Exactly-once means each input's output appears once in the
   * committed output topic.
   */
  'consumer.transform': { topic: str, partition: num, offset: num, input: nullable(str), output: str, outputTopic: str },
  /** A poison pill failed processing; `action` is what the policy did about it. */
  'consumer.process.fail': {
    topic: str,
    partition: num,
    offset: num,
    key: nullable(str),
    value: nullable(str),
    attempt: num,
    action: oneOf('retry', 'skip', 'dead-letter'),
  },
  /** A poison pill was written to a dead-letter (or retry) topic; `ok` false when that write failed for good. */
  'consumer.dead-letter': {
    topic: str,
    partition: num,
    offset: num,
    sourceTopic: str,
    sourcePartition: num,
    sourceOffset: num,
    key: nullable(str),
    value: nullable(str),
    ok: bool,
    error: str,
  },
  /** The application stopped polling for `durationMs` (a stall), or sought (`seek`). */
  'consumer.stall': { durationMs: num },
  'consumer.seek': { partitions: list(str), to: str },
  /** An error the application sees; `fatal` ones stop the consumer. */
  'consumer.error': { error: str, fatal: bool, detail: str },
  /** close() finished. */
  'consumer.close': { group: nullable(str), memberId: str },
});

declare module '../../../core/trace' {
  interface TraceKinds extends KindsOf<typeof CONSUMER_KINDS> {}
}

export {};
