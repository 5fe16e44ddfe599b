/**
 * Dense integer ids for the partitions taking part in one assignment, in (topic, partition) order, so the
 * sticky assignors work on numbers and arrays instead of string keys.
 */
import type { TopicPartition } from './consumerPartitionAssignor';

export class PartitionIndex {
  /** Topic names, sorted. */
  readonly topics: readonly string[];
  /** Total number of partitions over all topics. */
  readonly total: number;
  private readonly topicNumbers = new Map<string, number>();
  private readonly offsets: number[] = [];
  private readonly counts: number[] = [];
  private readonly topicOfId: Int32Array;

  /** `partitionsPerTopic` must already be sorted by topic name (assignableTopics gives that). */
  constructor(partitionsPerTopic: ReadonlyMap<string, number>) {
    this.topics = [...partitionsPerTopic.keys()];
    let total = 0;
    this.topics.forEach((t, i) => {
      const n = partitionsPerTopic.get(t)!;
      this.topicNumbers.set(t, i);
      this.offsets.push(total);
      this.counts.push(n);
      total += n;
    });
    this.total = total;
    this.topicOfId = new Int32Array(total);
    this.topics.forEach((_, i) => this.topicOfId.fill(i, this.offsets[i]!, this.offsets[i]! + this.counts[i]!));
  }

  /** The id of a partition, or -1 when its topic does not take part or the partition does not exist. */
  id(tp: TopicPartition): number {
    const t = this.topicNumbers.get(tp.topic);
    if (t === undefined || !Number.isInteger(tp.partition) || tp.partition < 0 || tp.partition >= this.counts[t]!) return -1;
    return this.offsets[t]! + tp.partition;
  }

  /** Topic number (index into `topics`) of a partition id. */
  topicNumberOf(id: number): number {
    return this.topicOfId[id]!;
  }

  topicOf(id: number): string {
    return this.topics[this.topicOfId[id]!]!;
  }

  partitionOf(id: number): number {
    return id - this.offsets[this.topicOfId[id]!]!;
  }

  /** Partition count of a topic number. */
  countOf(topicNumber: number): number {
    return this.counts[topicNumber]!;
  }

  /** First id of a topic number. */
  firstIdOf(topicNumber: number): number {
    return this.offsets[topicNumber]!;
  }

  /** Topic number of a topic name, or undefined when it does not take part. */
  topicNumber(topic: string): number | undefined {
    return this.topicNumbers.get(topic);
  }

  toTopicPartition(id: number): TopicPartition {
    return { topic: this.topicOf(id), partition: this.partitionOf(id) };
  }
}
