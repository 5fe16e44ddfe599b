import { NO_LEADER, type LeaderRecoveryState, type PartitionChangeRecord, type PartitionRecord } from './records';

/** A partition as the metadata image holds it (Kafka's PartitionRegistration). Immutable: a change makes a new one. */
export interface PartitionRegistration {
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly removingReplicas: readonly number[];
  readonly addingReplicas: readonly number[];
  readonly leader: number;
  readonly leaderRecoveryState: LeaderRecoveryState;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  /** Eligible leader replicas (KIP-966). */
  readonly elr: readonly number[];
  readonly lastKnownElr: readonly number[];
}

/** A partition named by topic id and index (Kafka's TopicIdPartition). */
export interface TopicIdPartition {
  readonly topicId: string;
  readonly partitionId: number;
}

const NONE: readonly number[] = Object.freeze([]);

export function registrationFromRecord(r: PartitionRecord): PartitionRegistration {
  return {
    replicas: r.replicas,
    isr: r.isr,
    removingReplicas: r.removingReplicas ?? NONE,
    addingReplicas: r.addingReplicas ?? NONE,
    leader: r.leader,
    leaderRecoveryState: r.leaderRecoveryState,
    leaderEpoch: r.leaderEpoch,
    partitionEpoch: r.partitionEpoch,
    elr: r.eligibleLeaderReplicas,
    lastKnownElr: r.lastKnownElr,
  };
}

/**
 * Applies a change: present fields replace, a present leader bumps the leader epoch, and every change
 * bumps the partition epoch. [metadata/.../metadata/PartitionRegistration.java `merge`]
 */
export function mergePartitionChange(p: PartitionRegistration, c: PartitionChangeRecord): PartitionRegistration {
  return {
    replicas: c.replicas ?? p.replicas,
    isr: c.isr ?? p.isr,
    removingReplicas: c.removingReplicas ?? p.removingReplicas,
    addingReplicas: c.addingReplicas ?? p.addingReplicas,
    leader: c.leader ?? p.leader,
    leaderRecoveryState: c.leaderRecoveryState ?? p.leaderRecoveryState,
    leaderEpoch: c.leader === undefined ? p.leaderEpoch : p.leaderEpoch + 1,
    partitionEpoch: p.partitionEpoch + 1,
    elr: c.eligibleLeaderReplicas ?? p.elr,
    lastKnownElr: c.lastKnownElr ?? p.lastKnownElr,
  };
}

/** The preferred replica is the first of the assignment. [PartitionRegistration.preferredReplica] */
export function preferredReplica(p: PartitionRegistration): number {
  return p.replicas.length === 0 ? NO_LEADER : p.replicas[0]!;
}

/** Led by its preferred replica; a leaderless partition is not. [PartitionRegistration.hasPreferredLeader] */
export function hasPreferredLeader(p: PartitionRegistration): boolean {
  return p.leader !== NO_LEADER && p.leader === preferredReplica(p);
}

export function hasLeader(p: PartitionRegistration): boolean {
  return p.leader !== NO_LEADER;
}
