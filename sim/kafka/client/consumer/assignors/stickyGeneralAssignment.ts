/**
 * The sticky assignors' general path, used when members subscribe to different topics:
 *   1. keep every previously owned partition whose topic the owner still subscribes to;
 *   2. give each unassigned partition (topics with the fewest potential consumers first) to the eligible
 *      member with the fewest partitions (ties by member id);
 *   3. while some partition could move to a member with at least two fewer partitions, move it — back to its
 *      owner of an older generation when that helps, otherwise to the least-loaded eligible member — and keep
 *      the result only if it is better balanced (sum of pairwise size differences) than before.
 * [clients/.../consumer/internals/AbstractStickyAssignor.java `GeneralAssignmentBuilder`]
 * Rack-aware steps are not modelled. Members are visited in member id order where Kafka walks a HashMap.
 */
import { compareStrings } from './consumerPartitionAssignor';
import { JavaOrderedPartitionSet, topicPartitionHashCode } from '../../../javaHashOrder';
import type { PartitionIndex } from './partitionIndex';
import type { StickyAssignmentResult } from './stickyConstrainedAssignment';

/** A member as the general builder needs it. */
export interface GeneralMember {
  readonly memberId: string;
  /** Subscribed topic numbers (PartitionIndex) that take part, ascending. */
  readonly topics: readonly number[];
  /** The partition ids it reported owning (unvalidated), and the generation of that report. */
  readonly reportedOwned: readonly number[];
  readonly generationId: number;
}

interface ConsumerGeneration {
  readonly consumer: string;
  readonly generation: number;
}

export function generalAssignment(
  index: PartitionIndex,
  /** In member id order. */
  members: readonly GeneralMember[],
  /** Validated previously owned partitions per member (every member has an entry). */
  consumerToOwnedPartitions: ReadonlyMap<string, readonly number[]>,
  maxGeneration: number,
): StickyAssignmentResult {
  return new GeneralAssignmentBuilder(index, members, consumerToOwnedPartitions, maxGeneration).build();
}

class GeneralAssignmentBuilder {
  private readonly index: PartitionIndex;
  private readonly members: readonly GeneralMember[];
  private readonly maxGeneration: number;
  /** Topic number -> members subscribed to it, in member id order. */
  private readonly topic2AllPotentialConsumers: string[][];
  /** Member -> set of subscribed topic numbers. */
  private readonly consumer2AllPotentialTopics = new Map<string, ReadonlySet<number>>();
  private readonly consumerTopicsList = new Map<string, readonly number[]>();
  /** The members taking part right now (Kafka's sortedCurrentSubscriptions is these, sorted by (size, id)). */
  private currentAssignment = new Map<string, number[]>();
  /** Partition id -> current owner; undefined = unassigned. */
  private currentPartitionConsumer: (string | undefined)[];
  private revocationRequired = false;
  /** isBalanced() of the current state; null once anything changed (it is asked before every partition). */
  private balancedCache: boolean | null = null;
  private readonly movements: PartitionMovements;

  constructor(
    index: PartitionIndex,
    members: readonly GeneralMember[],
    owned: ReadonlyMap<string, readonly number[]>,
    maxGeneration: number,
  ) {
    this.index = index;
    this.members = members;
    this.maxGeneration = maxGeneration;
    this.movements = new PartitionMovements(index);
    this.topic2AllPotentialConsumers = index.topics.map(() => []);
    for (const m of members) {
      this.consumer2AllPotentialTopics.set(m.memberId, new Set(m.topics));
      this.consumerTopicsList.set(m.memberId, m.topics);
      for (const t of m.topics) this.topic2AllPotentialConsumers[t]!.push(m.memberId);
      this.currentAssignment.set(m.memberId, [...(owned.get(m.memberId) ?? [])]);
    }
    this.currentPartitionConsumer = new Array<string | undefined>(index.total).fill(undefined);
    for (const [consumer, ids] of this.currentAssignment) for (const id of ids) this.currentPartitionConsumer[id] = consumer;
  }

  build(): StickyAssignmentResult {
    const prevAssignment = this.prepopulateCurrentAssignments();
    this.assignOwnedPartitions();
    const sortedAllPartitions = this.sortedAllPartitions();
    const unassignedPartitions = sortedAllPartitions.filter((id) => this.currentPartitionConsumer[id] === undefined);
    this.balance(prevAssignment, sortedAllPartitions, unassignedPartitions);
    const assignment = new Map<string, number[]>();
    for (const m of this.members) assignment.set(m.memberId, this.currentAssignment.get(m.memberId)!);
    return { assignment, partitionsTransferringOwnership: null };
  }

  /**
   * Partitions reported by members of an older generation than the newest: their owner in the most recent
   * of those generations, to move a partition back to when that improves balance.
   */
  private prepopulateCurrentAssignments(): Map<number, ConsumerGeneration> {
    const prev = new Map<number, ConsumerGeneration>();
    for (const m of this.members) {
      if (m.generationId >= this.maxGeneration) continue;
      for (const id of m.reportedOwned) {
        const existing = prev.get(id);
        if (existing === undefined || m.generationId > existing.generation) {
          prev.set(id, { consumer: m.memberId, generation: m.generationId });
        }
      }
    }
    return prev;
  }

  /** Drops owned partitions of topics their owner no longer subscribes to. */
  private assignOwnedPartitions(): void {
    for (const [consumer, ids] of this.currentAssignment) {
      const topics = this.consumer2AllPotentialTopics.get(consumer)!;
      const kept = ids.filter((id) => topics.has(this.index.topicNumberOf(id)));
      if (kept.length !== ids.length) {
        this.revocationRequired = true;
        for (const id of ids) if (!topics.has(this.index.topicNumberOf(id))) this.currentPartitionConsumer[id] = undefined;
        this.currentAssignment.set(consumer, kept);
      }
    }
  }

  /** Topics by (number of potential consumers, name), each topic's partitions ascending. */
  private sortedAllPartitions(): number[] {
    const topicOrder = this.index.topics
      .map((_, t) => t)
      .sort((a, b) => this.topic2AllPotentialConsumers[a]!.length - this.topic2AllPotentialConsumers[b]!.length || a - b);
    const out: number[] = [];
    for (const t of topicOrder) {
      const first = this.index.firstIdOf(t);
      for (let p = 0; p < this.index.countOf(t); p++) out.push(first + p);
    }
    return out;
  }

  private size(consumer: string): number {
    return this.currentAssignment.get(consumer)!.length;
  }

  /** The first member in (size, member id) order that subscribes to `topic` (Kafka walks its TreeSet). */
  private leastLoadedConsumerFor(topic: number): string | undefined {
    let best: string | undefined;
    let bestSize = Infinity;
    for (const [consumer, ids] of this.currentAssignment) {
      if (!this.consumer2AllPotentialTopics.get(consumer)!.has(topic)) continue;
      if (ids.length < bestSize || (ids.length === bestSize && compareStrings(consumer, best!) < 0)) {
        best = consumer;
        bestSize = ids.length;
      }
    }
    return best;
  }

  private maxAssignmentSize(consumer: string): number {
    let n = 0;
    for (const t of this.consumerTopicsList.get(consumer)!) n += this.index.countOf(t);
    return n;
  }

  /** Balanced when sizes differ by at most one, or no partition could move to a member two or more below its owner. */
  private isBalanced(): boolean {
    return (this.balancedCache ??= this.computeIsBalanced());
  }

  private computeIsBalanced(): boolean {
    let min = Infinity;
    let max = -Infinity;
    for (const ids of this.currentAssignment.values()) {
      if (ids.length < min) min = ids.length;
      if (ids.length > max) max = ids.length;
    }
    if (min >= max - 1) return true;
    // Kafka walks members in (size, id) order; the answer does not depend on the order.
    for (const consumer of this.currentAssignment.keys()) {
      const count = this.size(consumer);
      if (count === this.maxAssignmentSize(consumer)) continue;
      for (const t of this.consumerTopicsList.get(consumer)!) {
        const first = this.index.firstIdOf(t);
        for (let p = 0; p < this.index.countOf(t); p++) {
          const other = this.currentPartitionConsumer[first + p];
          if (other === undefined || other === consumer || !this.currentAssignment.has(other)) continue;
          if (count + 1 < this.size(other)) return false;
        }
      }
    }
    return true;
  }

  /** Sum over all pairs of members of the difference of their sizes; 0 is perfectly balanced. */
  private static balanceScore(assignment: ReadonlyMap<string, readonly number[]>): number {
    const sizes = [...assignment.values()].map((ids) => ids.length);
    let score = 0;
    for (let i = 0; i < sizes.length; i++) for (let j = i + 1; j < sizes.length; j++) score += Math.abs(sizes[i]! - sizes[j]!);
    return score;
  }

  private canTopicParticipateInReassignment(topic: number): boolean {
    return this.topic2AllPotentialConsumers[topic]!.length >= 2;
  }

  private canConsumerParticipateInReassignment(consumer: string): boolean {
    const ids = this.currentAssignment.get(consumer)!;
    if (ids.length < this.maxAssignmentSize(consumer)) return true;
    return ids.some((id) => this.canTopicParticipateInReassignment(this.index.topicNumberOf(id)));
  }

  private balance(
    prevAssignment: ReadonlyMap<number, ConsumerGeneration>,
    sortedAllPartitions: number[],
    unassignedPartitions: number[],
  ): void {
    const initializing = Math.max(0, ...[...this.currentAssignment.values()].map((ids) => ids.length)) === 0;

    for (const id of unassignedPartitions) {
      const topic = this.index.topicNumberOf(id);
      if (this.topic2AllPotentialConsumers[topic]!.length === 0) continue;
      const consumer = this.leastLoadedConsumerFor(topic);
      if (consumer === undefined) continue;
      this.currentAssignment.get(consumer)!.push(id);
      this.currentPartitionConsumer[id] = consumer;
    }

    // Only partitions of topics with two or more potential consumers can move.
    const movable = (id: number) => this.canTopicParticipateInReassignment(this.index.topicNumberOf(id));
    const reassignable = sortedAllPartitions.filter(movable);
    const reassignableUnassigned = unassignedPartitions.filter(movable);

    // Members that cannot gain or lose anything sit out, and come back unchanged at the end.
    const fixedAssignments = new Map<string, number[]>();
    for (const m of this.members) {
      if (!this.canConsumerParticipateInReassignment(m.memberId)) {
        fixedAssignments.set(m.memberId, this.currentAssignment.get(m.memberId)!);
        this.currentAssignment.delete(m.memberId);
      }
    }

    this.balancedCache = null;
    const preBalanceAssignment = copyAssignment(this.currentAssignment);
    const preBalancePartitionConsumers = this.currentPartitionConsumer.slice();

    // Without revocations forced by subscription changes, first try to balance by moving only the new partitions.
    if (!this.revocationRequired) this.performReassignments(reassignableUnassigned, prevAssignment);
    const reassignmentPerformed = this.performReassignments(reassignable, prevAssignment);

    if (
      !initializing &&
      reassignmentPerformed &&
      GeneralAssignmentBuilder.balanceScore(this.currentAssignment) >=
        GeneralAssignmentBuilder.balanceScore(preBalanceAssignment)
    ) {
      this.currentAssignment = preBalanceAssignment;
      this.currentPartitionConsumer = preBalancePartitionConsumers;
      this.balancedCache = null;
    }
    for (const [consumer, ids] of fixedAssignments) this.currentAssignment.set(consumer, ids);
  }

  private performReassignments(
    reassignablePartitions: readonly number[],
    prevAssignment: ReadonlyMap<number, ConsumerGeneration>,
  ): boolean {
    let reassignmentPerformed = false;
    let modified: boolean;
    do {
      modified = false;
      for (const id of reassignablePartitions) {
        if (this.isBalanced()) break;
        const consumer = this.currentPartitionConsumer[id];
        if (consumer === undefined || !this.currentAssignment.has(consumer)) continue;
        const prev = prevAssignment.get(id);
        if (
          prev !== undefined &&
          this.currentAssignment.has(prev.consumer) &&
          this.size(consumer) > this.size(prev.consumer) + 1
        ) {
          this.reassignPartition(id, prev.consumer);
          reassignmentPerformed = modified = true;
          continue;
        }
        const topic = this.index.topicNumberOf(id);
        for (const other of this.topic2AllPotentialConsumers[topic]!) {
          if (this.currentAssignment.has(other) && this.size(consumer) > this.size(other) + 1) {
            this.reassignPartition(id, this.leastLoadedConsumerFor(topic)!);
            reassignmentPerformed = modified = true;
            break;
          }
        }
      }
    } while (modified);
    return reassignmentPerformed;
  }

  private reassignPartition(id: number, newConsumer: string): void {
    const consumer = this.currentPartitionConsumer[id]!;
    // Prefer undoing an earlier move in the opposite direction over moving a second partition.
    const toMove = this.movements.actualPartitionToBeMoved(id, this.index.topicNumberOf(id), consumer, newConsumer);
    const oldConsumer = this.currentPartitionConsumer[toMove]!;
    this.movements.movePartition(toMove, this.index.topicNumberOf(toMove), oldConsumer, newConsumer);
    const oldList = this.currentAssignment.get(oldConsumer)!;
    oldList.splice(oldList.indexOf(toMove), 1);
    this.currentAssignment.get(newConsumer)!.push(toMove);
    this.currentPartitionConsumer[toMove] = newConsumer;
    this.balancedCache = null;
  }
}

function copyAssignment(a: ReadonlyMap<string, readonly number[]>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [k, v] of a) out.set(k, [...v]);
  return out;
}

/**
 * The moves made during one assignment, per topic and (source, destination) pair, so that a later move in the
 * opposite direction undoes an earlier one instead of swapping two partitions between the same members.
 * [clients/.../consumer/internals/AbstractStickyAssignor.java `PartitionMovements`]
 */
class PartitionMovements {
  /** Partition id -> [original source, current destination]. */
  private readonly byPartition = new Map<number, readonly [string, string]>();
  /** Topic number -> "src\0dst" -> partition ids moved along that pair. */
  private readonly byTopic = new Map<number, Map<string, JavaOrderedPartitionSet>>();
  private readonly index: PartitionIndex;

  constructor(index: PartitionIndex) {
    this.index = index;
  }

  actualPartitionToBeMoved(id: number, topic: number, oldConsumer: string, newConsumer: string): number {
    const forTopic = this.byTopic.get(topic);
    if (forTopic === undefined) return id;
    const earlier = this.byPartition.get(id);
    const source = earlier !== undefined ? earlier[0] : oldConsumer;
    const reverse = forTopic.get(pairKey(newConsumer, source));
    if (reverse === undefined) return id;
    // Kafka takes the first of a HashSet<TopicPartition>: reproduce its iteration order.
    return reverse.first()!;
  }

  movePartition(id: number, topic: number, oldConsumer: string, newConsumer: string): void {
    const earlier = this.byPartition.get(id);
    if (earlier !== undefined) {
      this.remove(id, topic, earlier);
      // Moving back to where it started cancels the record.
      if (earlier[0] !== newConsumer) this.add(id, topic, [earlier[0], newConsumer]);
    } else {
      this.add(id, topic, [oldConsumer, newConsumer]);
    }
  }

  private add(id: number, topic: number, pair: readonly [string, string]): void {
    this.byPartition.set(id, pair);
    let forTopic = this.byTopic.get(topic);
    if (forTopic === undefined) this.byTopic.set(topic, (forTopic = new Map()));
    const key = pairKey(pair[0], pair[1]);
    let ids = forTopic.get(key);
    if (ids === undefined) forTopic.set(key, (ids = new JavaOrderedPartitionSet()));
    ids.add(id, topicPartitionHashCode(this.index.topicOf(id), this.index.partitionOf(id)));
  }

  private remove(id: number, topic: number, pair: readonly [string, string]): void {
    this.byPartition.delete(id);
    const forTopic = this.byTopic.get(topic)!;
    const key = pairKey(pair[0], pair[1]);
    const ids = forTopic.get(key)!;
    ids.delete(id);
    if (ids.size === 0) forTopic.delete(key);
    if (forTopic.size === 0) this.byTopic.delete(topic);
  }
}

function pairKey(src: string, dst: string): string {
  return `${src}\u0000${dst}`;
}
