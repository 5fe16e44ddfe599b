/**
 * The iteration order of Java's HashMap / HashSet, for the few places where Kafka takes "the first" element
 * of one and the choice shows in the result. Keys iterate by bucket (the hash with its high half folded in,
 * masked to the table size), and within a bucket in insertion order. The table starts at 16 and doubles
 * whenever an insertion takes it past three quarters full; it never shrinks.
 * [java.util.HashMap `hash`, `putVal`, `resize`]
 */
import { javaStringHashCode } from './coordinator/groupCoordinatorPartition';

export function javaHashMapBucket(hashCode: number, capacity: number): number {
  return (hashCode ^ (hashCode >>> 16)) & (capacity - 1);
}

/** Table size after inserting n keys, one at a time, into `new HashMap<>()`. */
export function javaHashMapCapacity(n: number): number {
  let capacity = 16;
  while (n > capacity * 0.75) capacity *= 2;
  return capacity;
}

/** TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode(), in int arithmetic. */
export function topicPartitionHashCode(topic: string, partition: number): number {
  return (Math.imul(31, 31 + partition) + javaStringHashCode(topic)) | 0;
}

/**
 * A set of partition ids that can say which element a java.util.HashSet<TopicPartition> holding the same
 * insertions and removals would iterate first.
 */
export class JavaOrderedPartitionSet {
  private readonly seqs = new Map<number, number>();
  private readonly hashes = new Map<number, number>();
  private capacity = 16;
  private nextSeq = 0;

  get size(): number {
    return this.seqs.size;
  }

  add(id: number, hashCode: number): void {
    if (this.seqs.has(id)) return;
    this.seqs.set(id, this.nextSeq++);
    this.hashes.set(id, hashCode);
    if (this.seqs.size > this.capacity * 0.75) this.capacity *= 2;
  }

  delete(id: number): void {
    this.seqs.delete(id);
    this.hashes.delete(id);
  }

  /** The element iteration would return first; undefined when empty. */
  first(): number | undefined {
    let best: number | undefined;
    let bestBucket = Infinity;
    let bestSeq = Infinity;
    for (const [id, seq] of this.seqs) {
      const bucket = javaHashMapBucket(this.hashes.get(id)!, this.capacity);
      if (bucket < bestBucket || (bucket === bestBucket && seq < bestSeq)) {
        best = id;
        bestBucket = bucket;
        bestSeq = seq;
      }
    }
    return best;
  }
}
