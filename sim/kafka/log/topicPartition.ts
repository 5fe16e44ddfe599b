/** A partition of a topic: what a log, a replica and a fetch are about. [src: clients/.../common/TopicPartition.java] */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** "orders-0": Kafka's text form, also the partition's directory name. [src: TopicPartition.java `toString`] */
export function topicPartitionName(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

/** Parses "orders-0" (topics may contain '-', the partition is after the last one). Null when it is not one. */
export function parseTopicPartition(name: string): TopicPartition | null {
  const i = name.lastIndexOf('-');
  if (i <= 0 || i === name.length - 1) return null;
  const digits = name.slice(i + 1);
  if (!/^\d+$/.test(digits)) return null;
  return { topic: name.slice(0, i), partition: Number(digits) };
}

/** Total order on partitions (topic, then partition), for deterministic iteration. */
export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}
