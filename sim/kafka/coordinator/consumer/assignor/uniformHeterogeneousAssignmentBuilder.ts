/**
 * The uniform assignor when members subscribe to different topics: keep every member's subscribed partitions,
 * deal the free ones to the least loaded subscribers topic by topic (topics with the most partitions per
 * subscriber first), then move partitions from the most to the least loaded subscribers of each topic until
 * no move improves the balance (at most 16 passes over the topics).
 * [group-coordinator/.../assignor/UniformHeterogeneousAssignmentBuilder.java]
 */
import { compareStrings } from '../../../topicPartition';
import { assignmentOf, type Assignment } from '../assignment';
import { PartitionAssignorException, type GroupAssignment, type GroupSpec, type SubscribedTopicDescriber } from './groupSpec';

/** Passes over the topics in the final balancing phase. [`MAX_ITERATION_COUNT`] */
export const MAX_ITERATION_COUNT = 16;

export function assignUniformHeterogeneous(group: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
  return new HeterogeneousBuilder(group, topics).build();
}

class HeterogeneousBuilder {
  private readonly memberIds: string[];
  /** Subscribers of each topic, as member indices in ascending order. */
  private readonly subscribers = new Map<string, number[]>();
  /** Owner (member index) of each partition of each subscribed topic, -1 when free. */
  private readonly owners = new Map<string, Int32Array>();
  /** Partitions each member holds in the new target. */
  private readonly sizes: Int32Array;
  private readonly byTopicLoad: (a: string, b: string) => number;
  readonly byMemberLoad: (a: number, b: number) => number;

  constructor(
    private readonly group: GroupSpec,
    topics: SubscribedTopicDescriber,
  ) {
    this.memberIds = [...group.members.keys()];
    this.sizes = new Int32Array(this.memberIds.length);
    this.memberIds.forEach((id, i) => {
      for (const t of [...group.members.get(id)!.subscribedTopics].sort(compareStrings)) {
        if (topics.numPartitions(t) === -1) throw new PartitionAssignorException(`Members are subscribed to topic ${t} which doesn't exist in the topic metadata.`);
        let l = this.subscribers.get(t);
        if (!l) this.subscribers.set(t, (l = []));
        l.push(i);
      }
    });
    for (const t of this.subscribers.keys()) this.owners.set(t, new Int32Array(topics.numPartitions(t)).fill(-1));
    // Most partitions per subscriber first, then fewer subscribers, then by name.
    this.byTopicLoad = (a, b) => {
      const sa = this.subscribers.get(a)!.length;
      const sb = this.subscribers.get(b)!.length;
      const order = topics.numPartitions(b) / sb - topics.numPartitions(a) / sa;
      if (order !== 0) return order < 0 ? -1 : 1;
      return sa !== sb ? sa - sb : compareStrings(a, b);
    };
    this.byMemberLoad = (a, b) => this.sizes[a]! - this.sizes[b]! || a - b;
  }

  build(): GroupAssignment {
    if (this.subscribers.size === 0) return new Map();
    this.keepSubscribedPartitions();
    this.assignFreePartitions();
    this.balance();
    const out = new Map<string, Map<string, number[]>>();
    for (const id of this.memberIds) out.set(id, new Map());
    for (const [t, owners] of this.owners) {
      owners.forEach((m, p) => {
        if (m === -1) return;
        const a = out.get(this.memberIds[m]!)!;
        let l = a.get(t);
        if (!l) a.set(t, (l = []));
        l.push(p);
      });
    }
    const result = new Map<string, Assignment>();
    for (const [id, a] of out) result.set(id, assignmentOf(a));
    return result;
  }

  /** [`maybeRevokePartitions`]: a member keeps what it still subscribes to. */
  private keepSubscribedPartitions(): void {
    this.memberIds.forEach((id, i) => {
      const m = this.group.members.get(id)!;
      for (const [t, ps] of m.assignment) {
        if (!m.subscribedTopics.has(t)) continue;
        const owners = this.owners.get(t)!;
        for (const p of ps) {
          if (p >= owners.length) continue;
          owners[p] = i;
          this.sizes[i]!++;
        }
      }
    });
  }

  /** [`assignRemainingPartitions`] */
  private assignFreePartitions(): void {
    const free = new Map<string, number[]>();
    for (const [t, owners] of this.owners) {
      const l: number[] = [];
      owners.forEach((m, p) => {
        if (m === -1) l.push(p);
      });
      if (l.length > 0) free.set(t, l);
    }
    const balancer = new Balancer(this);
    for (const t of [...free.keys()].sort(this.byTopicLoad)) {
      balancer.initialize(this.subscribers.get(t)!);
      for (const p of free.get(t)!) this.move(t, p, balancer.nextLeastLoaded());
    }
  }

  /** [`balance`, `balanceTopics`] */
  private balance(): void {
    const topics = [...this.subscribers.keys()].filter((t) => this.subscribers.get(t)!.length >= 2).sort(this.byTopicLoad);
    if (topics.length === 0) return;
    const balancer = new Balancer(this);
    let lastRebalanced = -1;
    for (let i = 0; i < MAX_ITERATION_COUNT; i++) {
      for (let ti = 0; ti < topics.length; ti++) {
        // A whole pass without a move: done.
        if (ti === lastRebalanced) return;
        if (this.balanceTopic(topics[ti]!, balancer) > 0 || lastRebalanced === -1) lastRebalanced = ti;
      }
    }
  }

  /** Moves a topic's partitions from its most to its least loaded subscribers. [`balanceTopic`] */
  private balanceTopic(topic: string, balancer: Balancer): number {
    let moved = 0;
    const owners = this.owners.get(topic)!;
    if (balancer.initialize(this.subscribers.get(topic)!) <= 1) return 0;
    // Partitions grouped by owner, so the last partition of a member is found in constant time.
    const partitions = Array.from({ length: owners.length }, (_, p) => p).sort((a, b) => owners[a]! - owners[b]! || a - b);
    const start = new Map<number, number>();
    const end = new Map<number, number>();
    partitions.forEach((p, i) => {
      const o = owners[p]!;
      if (!start.has(o)) start.set(o, i);
      end.set(o, i + 1);
    });
    while (!balancer.isBalanced()) {
      let from = -1;
      for (;;) {
        from = balancer.nextMostLoaded();
        if (from === -1) break;
        if (!end.has(from) || end.get(from)! - start.get(from)! <= 0) {
          // Heavily loaded by other topics, but holds nothing of this one.
          balancer.excludeMostLoaded();
          continue;
        }
        break;
      }
      if (from === -1) break;
      const p = partitions[end.get(from)! - 1]!;
      end.set(from, end.get(from)! - 1);
      const to = balancer.nextLeastLoaded();
      if (balancer.isBalanced()) break;
      this.move(topic, p, to);
      moved++;
    }
    return moved;
  }

  private move(topic: string, partition: number, to: number): void {
    const owners = this.owners.get(topic)!;
    const from = owners[partition]!;
    if (from !== -1) this.sizes[from]!--;
    owners[partition] = to;
    this.sizes[to]!++;
  }

  size(member: number): number {
    return this.sizes[member]!;
  }
}

/**
 * Tracks the least loaded and the most loaded range of a topic's subscribers (sorted by load) while partitions
 * are dealt out or moved: the least loaded range grows rightwards, the most loaded one leftwards, and the topic
 * is balanced when their loads differ by at most one. [UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer]
 */
class Balancer {
  private sorted: number[] = [];
  private leastEnd = 0;
  private leastCount = -1;
  private nextLeast = 0;
  private mostStart = 0;
  private mostEnd = 0;
  private mostCount = 1;
  private nextMost = -1;

  constructor(private readonly b: HeterogeneousBuilder) {}

  /** Returns the spread between the most and the least loaded member. */
  initialize(members: readonly number[]): number {
    if (members.length === 0) throw new Error('Cannot balance an empty subscriber list.');
    this.sorted = [...members].sort(this.b.byMemberLoad);
    const n = this.sorted.length;
    this.leastEnd = 0;
    this.leastCount = this.b.size(this.sorted[0]!) - 1;
    this.nextLeast = 0;
    this.mostStart = n;
    this.mostEnd = n;
    this.mostCount = this.b.size(this.sorted[n - 1]!) + 1;
    this.nextMost = n - 1;
    return this.b.size(this.sorted[n - 1]!) - this.b.size(this.sorted[0]!);
  }

  nextLeastLoaded(): number {
    if (this.nextLeast >= this.leastEnd) {
      // The range is full: raise its level and take in the members now at that level.
      this.leastCount++;
      while (this.leastEnd < this.sorted.length && this.b.size(this.sorted[this.leastEnd]!) === this.leastCount) this.leastEnd++;
      this.nextLeast = 0;
    }
    return this.sorted[this.nextLeast++]!;
  }

  nextMostLoaded(): number {
    if (this.nextMost < this.mostStart) {
      if (this.mostEnd <= this.mostStart && this.mostStart > 0) {
        // Emptied by exclusions: restart from the next member's level so the range always grows.
        this.mostCount = this.b.size(this.sorted[this.mostStart - 1]!);
      } else {
        this.mostCount--;
      }
      while (this.mostStart > 0 && this.b.size(this.sorted[this.mostStart - 1]!) === this.mostCount) this.mostStart--;
      this.nextMost = this.mostEnd - 1;
    }
    if (this.nextMost < 0) return -1;
    return this.sorted[this.nextMost--]!;
  }

  /** Drops the member nextMostLoaded returned last from the most loaded range. */
  excludeMostLoaded(): void {
    const i = this.nextMost + 1;
    const m = this.sorted[i]!;
    this.sorted[i] = this.sorted[this.mostEnd - 1]!;
    this.sorted[this.mostEnd - 1] = m;
    this.mostEnd--;
  }

  isBalanced(): boolean {
    return this.mostCount - this.leastCount <= 1;
  }
}
