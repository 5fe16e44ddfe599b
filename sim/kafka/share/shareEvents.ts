/**
 * What share groups write into the trace: the coordinator's membership, the partition leader's share-partition
 * changes, and the share consumer's polls and acknowledgements. Names and fields are stable; a field is only ever
 * added. Offsets of one event belong to one topic-partition; parallel lists have equal length.
 */
import { defineKinds, list, nullable, num, obj, oneOf, str, type KindsOf } from '../../core/traceSchema';

const POLLED = obj({ topic: str, partition: num, offsets: list(num), deliveryCounts: list(num), keys: list(nullable(str)) });

export const SHARE_KINDS = defineKinds({
  /** The group coordinator changed a share group's membership: a member joined, left or its session expired; `assignment` is its target afterwards. */
  'share.member': { group: str, memberId: str, memberEpoch: num, groupEpoch: num, change: oneOf('joined', 'left', 'expired'), assignment: list(str) },
  /** The partition leader's share-partition acquired records for `memberId` (a ShareFetch); `deliveryCounts` after this delivery. */
  'share.acquire': { group: str, topic: str, partition: num, memberId: str, offsets: list(num), deliveryCounts: list(num), spso: num, speo: num },
  /**
   * Records of one share-partition changed state other than by acquisition: `cause` accept, release, reject, renew
   * (the member's acknowledgement), lock-expired, member-left (its share session closed), log-start (retention
   * passed them), gap, or dead-letter / dead-letter-failed (the end of ARCHIVING: the DLQ write was done, or
   * failed); `memberId` is who held them ('' when nobody did), `to` the state they are in now (ARCHIVING: a
   * rejected record, or one released at the delivery-count limit, waits for its DLQ write, KIP-1191).
   */
  'share.transition': {
    group: str,
    topic: str,
    partition: num,
    memberId: str,
    cause: str,
    to: str,
    offsets: list(num),
    deliveryCounts: list(num),
    spso: num,
    speo: num,
  },
  /**
   * The partition leader wrote a record of a share-partition to its group's dead-letter topic (KIP-1191):
   * `reason` rejected or delivery-count-limit, `deliveryCount` its deliveries, `dlqPartition` where it went.
   * After a leader change a record still ARCHIVING is written again (the write is not atomic with its state).
   */
  'share.dead-letter': { group: str, topic: str, partition: num, offset: num, dlqTopic: str, reason: oneOf('rejected', 'delivery-count-limit'), deliveryCount: num, dlqPartition: num },
  /** A DLQ write failed (`error`, `message`: the topic missing or not enabled, a wrong prefix, attempts spent): the record is archived without it. */
  'share.dead-letter.failed': { group: str, topic: str, partition: num, offset: num, dlqTopic: str, reason: oneOf('rejected', 'delivery-count-limit'), deliveryCount: num, error: str, message: str },
  /** An acknowledgement refused (INVALID_RECORD_STATE: the member did not hold every record it named). */
  'share.ack.refused': { group: str, topic: str, partition: num, memberId: str, type: str, offsets: list(num), error: str },
  /** A share-partition was (re)initialised on its leader: from the persisted state, or at `share.auto.offset.reset`. */
  'share.partition.init': { group: str, topic: str, partition: num, leaderEpoch: num, spso: num, speo: num, source: oneOf('persisted', 'auto.offset.reset') },
  /** The share consumer learned its assignment from a heartbeat response. */
  'share.assignment': { group: str, memberId: str, memberEpoch: num, owned: list(str) },
  /** poll() of a share consumer returned records (each with the delivery count the broker gave it). */
  'share.poll': { group: str, memberId: str, count: num, records: list(POLLED) },
  /** The application's acknowledgements went out: piggy-backed on a ShareFetch, or in a ShareAcknowledge (commitSync, commitAsync, close, or for a partition no longer assigned). */
  'share.ack': { group: str, memberId: str, topic: str, partition: num, type: str, offsets: list(num), via: oneOf('fetch', 'commitSync', 'commitAsync', 'close', 'unassigned', 'renew') },
  /** The application's processing of a record failed (a poison pill or a flaky record); it acknowledges it with `type`. */
  'share.process.fail': { group: str, memberId: str, topic: str, partition: num, offset: num, deliveryCount: num, type: str, rule: str },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof SHARE_KINDS> {}
}

export {};
