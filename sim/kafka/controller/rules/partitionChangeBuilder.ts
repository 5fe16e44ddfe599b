import type { PartitionRegistration } from '../../metadata/partitionRegistration';
import { NO_LEADER, type LeaderRecoveryState, type PartitionChangeRecord } from '../../metadata/records';
import { maybeCompleteReassignment } from './partitionReassignmentReplicas';

/**
 * How to choose a leader [PartitionChangeBuilder.Election]:
 * ONLINE keeps the partition online from the ISR (or, with KIP-966, the ELR);
 * PREFERRED moves leadership to the preferred replica when it is a valid leader;
 * UNCLEAN falls back to any acceptable replica when no valid one is left (unclean.leader.election.enable).
 */
export type Election = 'ONLINE' | 'PREFERRED' | 'UNCLEAN';

/**
 * Where a new leader came from: the ISR; the ELR (ISR empty, KIP-966); the last known leader (KIP-966's
 * stand-in for unclean recovery: ISR and ELR empty, treated as unclean); an unclean election.
 */
export type ElectionSource = 'ISR' | 'ELR' | 'LAST_KNOWN_LEADER' | 'UNCLEAN';

export interface PartitionChangeInput {
  readonly topicId: string;
  readonly partitionId: number;
  readonly partition: PartitionRegistration;
  /** Registered, unfenced, not in controlled shutdown, and not the broker being removed. */
  readonly isAcceptableLeader: (brokerId: number) => boolean;
  /** min(min.insync.replicas, replication factor) of the topic. */
  readonly minIsr: number;
  readonly elrEnabled: boolean;
  /** Default ONLINE. */
  readonly election?: Election;
  /** Default: the current ISR. */
  readonly targetIsr?: readonly number[];
  /** Replicas that just re-registered after an unclean shutdown: they may not enter (or stay in) the ELR. */
  readonly uncleanShutdownReplicas?: readonly number[];
  /** Default: the current state. */
  readonly targetLeaderRecoveryState?: LeaderRecoveryState;
  /** A reassignment's replica list (target, then the ones being removed). Default: the current replicas. */
  readonly targetReplicas?: readonly number[];
  /** Default: the current removingReplicas. */
  readonly targetRemoving?: readonly number[];
  /** Default: the current addingReplicas. */
  readonly targetAdding?: readonly number[];
}

/** A change of leader made by a partition change, for the trace: who, from which set. */
export interface LeaderChange {
  readonly previousLeader: number;
  /** NO_LEADER when the partition went offline. */
  readonly newLeader: number;
  /** null when no leader could be chosen. */
  readonly source: ElectionSource | null;
}

export interface PartitionChange {
  /** null when nothing changes: no record is written. */
  readonly record: PartitionChangeRecord | null;
  /** null when the leader stays. */
  readonly leaderChange: LeaderChange | null;
}

interface ElectionResult {
  readonly node: number;
  readonly unclean: boolean;
  readonly source: ElectionSource | null;
}

const NOBODY: ElectionResult = { node: NO_LEADER, unclean: false, source: null };

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The builder's working state: the targets the change moves towards. */
interface Targets {
  isr: readonly number[];
  elr: readonly number[];
  replicas: readonly number[];
  removing: readonly number[];
  adding: readonly number[];
}

/**
 * A valid new leader is acceptable and in the target ISR, or — only when that ISR is empty — in the ELR.
 * [PartitionChangeBuilder.java `isValidNewLeader`]
 */
function isValidNewLeader(input: PartitionChangeInput, t: Targets, replica: number): boolean {
  return (t.isr.includes(replica) || (t.isr.length === 0 && t.elr.includes(replica))) && input.isAcceptableLeader(replica);
}

/**
 * KIP-966 last-known-leader election: with ELR on, ISR and ELR both empty, and LastKnownELR holding exactly
 * one broker that is acceptable (the 4.1+ rule of KAFKA-19522; 4.0 elected it even when fenced).
 * [PartitionChangeBuilder.java `canElectLastKnownLeader`]
 */
function canElectLastKnownLeader(input: PartitionChangeInput, t: Targets): boolean {
  const p = input.partition;
  return (
    input.elrEnabled &&
    t.elr.length === 0 &&
    t.isr.length === 0 &&
    p.lastKnownElr.length === 1 &&
    input.isAcceptableLeader(p.lastKnownElr[0]!)
  );
}

function sourceOf(t: Targets, node: number): ElectionSource {
  return t.isr.length === 0 && t.elr.includes(node) ? 'ELR' : 'ISR';
}

/** PREFERRED: the preferred replica, else the current leader, else the next valid replica, else the last known leader. [`electPreferredLeader`] */
function electPreferredLeader(input: PartitionChangeInput, t: Targets): ElectionResult {
  const p = input.partition;
  const preferred = t.replicas[0];
  if (preferred !== undefined && isValidNewLeader(input, t, preferred)) {
    return { node: preferred, unclean: false, source: sourceOf(t, preferred) };
  }
  if (isValidNewLeader(input, t, p.leader)) return { node: p.leader, unclean: false, source: sourceOf(t, p.leader) };
  for (let i = 1; i < t.replicas.length; i++) {
    const r = t.replicas[i]!;
    if (isValidNewLeader(input, t, r)) return { node: r, unclean: false, source: sourceOf(t, r) };
  }
  if (canElectLastKnownLeader(input, t)) return { node: p.lastKnownElr[0]!, unclean: true, source: 'LAST_KNOWN_LEADER' };
  return NOBODY;
}

/**
 * ONLINE / UNCLEAN: keep the current leader if valid; else the first valid replica in assignment order; else
 * the last known leader; else (UNCLEAN only) the first acceptable replica; else no leader. [`electAnyLeader`]
 */
function electAnyLeader(input: PartitionChangeInput, t: Targets, election: Election): ElectionResult {
  const p = input.partition;
  if (isValidNewLeader(input, t, p.leader)) return { node: p.leader, unclean: false, source: sourceOf(t, p.leader) };
  for (const r of t.replicas) {
    if (isValidNewLeader(input, t, r)) return { node: r, unclean: false, source: sourceOf(t, r) };
  }
  if (canElectLastKnownLeader(input, t)) return { node: p.lastKnownElr[0]!, unclean: true, source: 'LAST_KNOWN_LEADER' };
  if (election === 'UNCLEAN') {
    for (const r of t.replicas) if (input.isAcceptableLeader(r)) return { node: r, unclean: true, source: 'UNCLEAN' };
  }
  return NOBODY;
}

/**
 * KIP-966: below min ISR, whoever leaves the ISR joins the ELR: ELR := (ELR ∪ old ISR) − target ISR − replicas
 * that shut down uncleanly; at or above min ISR the ELR is empty. Kept sorted by broker id (Kafka builds it from
 * a HashSet of small integers, which iterates in the same order).
 * [PartitionChangeBuilder.java `maybePopulateTargetElr`]
 */
function maybePopulateTargetElr(input: PartitionChangeInput, t: Targets): void {
  if (!input.elrEnabled) return;
  if (t.isr.length >= input.minIsr) {
    t.elr = [];
    return;
  }
  const unclean = input.uncleanShutdownReplicas ?? [];
  const candidates = new Set<number>(t.elr);
  for (const r of input.partition.isr) candidates.add(r);
  t.elr = Array.from(candidates)
    .filter((r) => !t.isr.includes(r) && !unclean.includes(r))
    .sort((a, b) => a - b);
}

/**
 * Builds the PartitionChangeRecord that moves a partition towards the target ISR, electing a leader as the
 * election type says and keeping the ELR rules of KIP-966, or null when nothing would change.
 *
 * Follows Kafka 4.2's PartitionChangeBuilder.build: populate the target ELR; elect (ISR := [leader] when
 * elected from the ELR or uncleanly, RECOVERING after an unclean election); clear the ELR after an unclean
 * election or with ELR off; write the ISR unless it would be empty without ELR; maintain LastKnownELR as the
 * last leader (4.2: set when the partition loses its leader, cleared when it gets one). The leader epoch moves
 * only when the leader field is written (metadata.version >= 3.6: an ISR shrink alone does not bump it); the
 * partition epoch moves with every record. A reassignment completes inside any change whose ISR holds all
 * its new replicas, and a change that drops replicas bumps the leader epoch.
 * [metadata/src/main/java/org/apache/kafka/controller/PartitionChangeBuilder.java `build`]
 */
export function buildPartitionChange(input: PartitionChangeInput): PartitionChange {
  const p = input.partition;
  const election = input.election ?? 'ONLINE';
  const t: Targets = {
    isr: input.targetIsr ?? p.isr,
    elr: p.elr,
    replicas: input.targetReplicas ?? p.replicas,
    removing: input.targetRemoving ?? p.removingReplicas,
    adding: input.targetAdding ?? p.addingReplicas,
  };
  const targetLeaderRecoveryState = input.targetLeaderRecoveryState ?? p.leaderRecoveryState;

  completeReassignmentIfNeeded(t);

  let isr: readonly number[] | undefined;
  let leader: number | undefined;
  let leaderRecoveryState: LeaderRecoveryState | undefined;
  let elr: readonly number[] | undefined;
  let lastKnownElr: readonly number[] | undefined;
  let leaderChange: LeaderChange | null = null;

  maybePopulateTargetElr(input, t);

  // tryElection
  const result = election === 'PREFERRED' ? electPreferredLeader(input, t) : electAnyLeader(input, t, election);
  if (result.node !== p.leader) {
    if (t.elr.includes(result.node)) {
      // Elected from the ELR: it becomes the ISR on its own and leaves the ELR.
      t.isr = [result.node];
      t.elr = t.elr.filter((r) => r !== result.node);
    }
    leader = result.node;
    if (result.unclean) {
      // Unclean: the ISR is forced to the new leader alone, which may lose committed data (KIP-704 RECOVERING).
      isr = [result.node];
      if (p.leaderRecoveryState !== 'RECOVERING') leaderRecoveryState = 'RECOVERING';
    }
    leaderChange = { previousLeader: p.leader, newLeader: result.node, source: result.source };
  }

  // A replica list that drops a broker bumps the leader epoch (the leader field is written, unchanged), so
  // the removed replicas are fenced. [`triggerLeaderEpochBumpForReplicaReassignmentIfNeeded`]
  if (leader === undefined && !p.replicas.every((r) => t.replicas.includes(r))) leader = p.leader;

  // maybeUpdateRecordElr: an unclean election (the ISR was forced) or ELR off empties the ELR.
  if (isr !== undefined || !input.elrEnabled) t.elr = [];
  if (!sameList(t.elr, p.elr)) elr = t.elr;

  // Without ELR the controller never writes an empty ISR: the last member stays.
  if (isr === undefined && (t.isr.length > 0 || input.elrEnabled) && !sameList(t.isr, p.isr)) isr = t.isr;

  // maybeUpdateLastKnownLeader (Kafka 4.2, apache/kafka#20629).
  if (input.elrEnabled) {
    if (leader === NO_LEADER && p.lastKnownElr.length === 0) lastKnownElr = [p.leader];
    else if (leader !== undefined && leader >= 0 && p.lastKnownElr.length > 0) lastKnownElr = [];
  }

  if (targetLeaderRecoveryState !== p.leaderRecoveryState) leaderRecoveryState = targetLeaderRecoveryState;

  // setAssignmentChanges
  const replicas = t.replicas.length > 0 && !sameList(t.replicas, p.replicas) ? t.replicas : undefined;
  const removingReplicas = !sameList(t.removing, p.removingReplicas) ? t.removing : undefined;
  const addingReplicas = !sameList(t.adding, p.addingReplicas) ? t.adding : undefined;

  if (
    isr === undefined &&
    leader === undefined &&
    leaderRecoveryState === undefined &&
    elr === undefined &&
    lastKnownElr === undefined &&
    replicas === undefined &&
    removingReplicas === undefined &&
    addingReplicas === undefined
  ) {
    return { record: null, leaderChange: null };
  }
  const record: PartitionChangeRecord = {
    type: 'PartitionChangeRecord',
    topicId: input.topicId,
    partitionId: input.partitionId,
    ...(isr !== undefined ? { isr } : {}),
    ...(leader !== undefined ? { leader } : {}),
    ...(replicas !== undefined ? { replicas } : {}),
    ...(removingReplicas !== undefined ? { removingReplicas } : {}),
    ...(addingReplicas !== undefined ? { addingReplicas } : {}),
    ...(leaderRecoveryState !== undefined ? { leaderRecoveryState } : {}),
    ...(elr !== undefined ? { eligibleLeaderReplicas: elr } : {}),
    ...(lastKnownElr !== undefined ? { lastKnownElr } : {}),
  };
  return { record, leaderChange };
}

/**
 * A reassignment whose new replicas are all in the target ISR completes inside this change: the replica list
 * becomes the target (the removed replicas leave it and the ISR), adding and removing are cleared.
 * [PartitionChangeBuilder.java `completeReassignmentIfNeeded`]
 */
function completeReassignmentIfNeeded(t: Targets): void {
  const done = maybeCompleteReassignment({ replicas: t.replicas, removing: t.removing, adding: t.adding }, t.isr);
  if (!done) return;
  t.isr = done.isr;
  t.replicas = done.replicas;
  t.removing = [];
  t.adding = [];
}
