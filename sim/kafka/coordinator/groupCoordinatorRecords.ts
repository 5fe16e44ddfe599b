/**
 * The records the group coordinator writes to `__consumer_offsets`, and how a new coordinator rebuilds its
 * state from them. Keys and values are JSON text (Kafka uses versioned binary schemas); the content follows
 * Kafka's GroupMetadataKey/Value and OffsetCommitKey/Value, and the ConsumerGroup* records of KIP-848 groups
 * (consumer/consumerGroupRecords.ts).
 * [group-coordinator/.../GroupCoordinatorRecordHelpers.java; GroupCoordinatorShard.java `replay`]
 */
import { PendingTransactionalOffsets } from './transactionalOffsets';
import type { JoinGroupProtocol, TopicPartition } from '../protocol';
import { tpKey } from '../protocol';
import type { CoordinatorRecord } from './storage';
import type { ConsumerGroup } from './consumer/consumerGroup';
import { consumerGroupKeyOf, replayConsumerGroupRecord, type ConsumerGroupKey } from './consumer/consumerGroupRecords';

export interface OffsetAndMetadata {
  /** The next offset to read. */
  readonly offset: number;
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly commitTimestampMs: number;
}

export interface CommittedOffset extends OffsetAndMetadata {
  readonly topic: string;
  readonly partition: number;
}

export interface MemberMetadataValue {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  /** The member's metadata for the group's chosen protocol only, as Kafka stores it. */
  readonly subscription: JoinGroupProtocol;
  readonly assignment: readonly TopicPartition[];
}

export interface GroupMetadataValue {
  readonly protocolType: string;
  readonly generation: number;
  readonly protocol: string | null;
  readonly leader: string | null;
  readonly currentStateTimestampMs: number;
  readonly members: readonly MemberMetadataValue[];
}

export type CoordinatorKey =
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'offset'; readonly group: string; readonly topic: string; readonly partition: number }
  | { readonly kind: 'consumer-group'; readonly group: string; readonly key: ConsumerGroupKey };

export function groupMetadataKey(group: string): string {
  return JSON.stringify(['group', group]);
}

export function offsetCommitKey(group: string, topic: string, partition: number): string {
  return JSON.stringify(['offset', group, topic, partition]);
}

export function parseKey(key: string): CoordinatorKey {
  const k = JSON.parse(key) as unknown[];
  if (k[0] === 'group' && typeof k[1] === 'string') return { kind: 'group', group: k[1] };
  if (k[0] === 'offset' && typeof k[1] === 'string' && typeof k[2] === 'string' && typeof k[3] === 'number') {
    return { kind: 'offset', group: k[1], topic: k[2], partition: k[3] };
  }
  const cg = consumerGroupKeyOf(k);
  if (cg) return { kind: 'consumer-group', group: cg.group, key: cg };
  throw new Error(`not a group coordinator key: ${key}`);
}

export function groupMetadataRecord(group: string, value: GroupMetadataValue | null): CoordinatorRecord {
  return { key: groupMetadataKey(group), value: value === null ? null : JSON.stringify(value) };
}

export function offsetCommitRecord(group: string, o: CommittedOffset): CoordinatorRecord {
  const v: OffsetAndMetadata = { offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, commitTimestampMs: o.commitTimestampMs };
  return { key: offsetCommitKey(group, o.topic, o.partition), value: JSON.stringify(v) };
}

export function offsetTombstone(group: string, topic: string, partition: number): CoordinatorRecord {
  return { key: offsetCommitKey(group, topic, partition), value: null };
}

/** What a coordinator knows after reading a partition of `__consumer_offsets` from its start. */
export interface ReplayedState {
  /** Groups with a live GroupMetadata record, in the order their first record appears. */
  readonly groups: Map<string, GroupMetadataValue>;
  /** Group -> "topic-partition" -> committed offset. Every group with offsets appears, with or without a GroupMetadata record. */
  readonly offsets: Map<string, Map<string, CommittedOffset>>;
  /** Consumer groups (KIP-848), rebuilt by replaying their records. */
  readonly consumerGroups: Map<string, ConsumerGroup>;
  /** Transactional offsets whose transaction has no marker yet. */
  readonly pending: PendingTransactionalOffsets;
}

/**
 * Replays records in log order: the last value of a key wins and a tombstone deletes it, which is what the
 * log looks like after compaction too. A transactional offset waits for its producer's marker: COMMIT makes
 * it committed, ABORT drops it. [GroupCoordinatorShard.java `replay`, `replayEndTransactionMarker`;
 * GroupMetadataManager.java `replay(GroupMetadataKey, GroupMetadataValue)`; OffsetMetadataManager.java `replay`]
 */
export function replayRecords(records: readonly CoordinatorRecord[]): ReplayedState {
  const groups = new Map<string, GroupMetadataValue>();
  const offsets = new Map<string, Map<string, CommittedOffset>>();
  const consumerGroups = new Map<string, ConsumerGroup>();
  const pending = new PendingTransactionalOffsets();
  for (const r of records) {
    if (r.control !== undefined) {
      for (const [groupId, committed] of pending.complete(r.producerId!, r.control === 'COMMIT')) {
        let m = offsets.get(groupId);
        if (!m) offsets.set(groupId, (m = new Map()));
        for (const [key, o] of committed) m.set(key, o);
      }
      continue;
    }
    const k = parseKey(r.key);
    if (k.kind === 'consumer-group') {
      replayConsumerGroupRecord(consumerGroups, k.key, r.value);
      continue;
    }
    if (k.kind === 'group') {
      if (r.value === null) groups.delete(k.group);
      else groups.set(k.group, JSON.parse(r.value) as GroupMetadataValue);
      continue;
    }
    let m = offsets.get(k.group);
    if (r.value === null) {
      m?.delete(tpKey(k.topic, k.partition));
      if (m && m.size === 0) offsets.delete(k.group);
      continue;
    }
    const v = JSON.parse(r.value) as OffsetAndMetadata;
    if (r.producerId !== undefined) {
      pending.add(r.producerId, k.group, [{ topic: k.topic, partition: k.partition, ...v }]);
      continue;
    }
    if (!m) offsets.set(k.group, (m = new Map()));
    m.set(tpKey(k.topic, k.partition), { topic: k.topic, partition: k.partition, ...v });
  }
  return { groups, offsets, consumerGroups, pending };
}
