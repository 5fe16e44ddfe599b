/** A partition of a topic: what a log, a replica and a fetch are about. [src: clients/.../common/TopicPartition.java] */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/**
 * A partition-key builder that returns the same string object for the same (topic, partition) every time (a
 * pure memo): map lookups on hot paths with freshly built strings would hash them each time.
 */
export function partitionKeyMemo(separator: string): (topic: string, partition: number) => string {
  const built = new Map<string, string[]>();
  return (topic, partition) => {
    let keys = built.get(topic);
    if (keys === undefined) built.set(topic, (keys = []));
    return (keys[partition] ??= `${topic}${separator}${partition}`);
  };
}

/** "orders-0": Kafka's text form, also the partition's directory name; the one key of a partition everywhere. [src: TopicPartition.java `toString`] */
export const tpKey = partitionKeyMemo('-');

/** tpKey of a TopicPartition. */
export function topicPartitionName(tp: TopicPartition): string {
  return tpKey(tp.topic, tp.partition);
}

/** Parses "orders-0" (topics may contain '-', the partition is after the last one). Null when it is not one. */
export function parseTopicPartition(name: string): TopicPartition | null {
  const i = name.lastIndexOf('-');
  if (i <= 0 || i === name.length - 1) return null;
  const digits = name.slice(i + 1);
  if (!/^\d+$/.test(digits)) return null;
  return { topic: name.slice(0, i), partition: Number(digits) };
}

/** Java's String.compareTo: lexicographic over UTF-16 code units (what JS `<` does; not localeCompare). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total order on partitions (topic, then partition), for deterministic iteration (the assignors' TopicPartitionComparator). */
export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  return a.topic === b.topic ? a.partition - b.partition : compareStrings(a.topic, b.topic);
}
