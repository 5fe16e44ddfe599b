/**
 * Which partition of `__consumer_offsets` holds a group: its leader is the group's coordinator
 * (what FindCoordinator answers). The transaction coordinator uses the same rule on `__transaction_state`
 * with the transactional id.
 */

/** `offsets.topic.num.partitions` default. [group-coordinator/.../GroupCoordinatorConfig.java] */
export const OFFSETS_TOPIC_NUM_PARTITIONS_DEFAULT = 50;

/** Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in 32-bit int arithmetic. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Kafka's Utils.abs: Math.abs except that Integer.MIN_VALUE maps to 0 (Math.abs would return it unchanged,
 * still negative). Not the same as toPositive (x & 0x7fffffff) for other negative numbers.
 * [clients/.../common/utils/Utils.java `abs`]
 */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/**
 * `Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions`.
 * [group-coordinator/.../GroupCoordinatorService.java `partitionFor`]
 */
export function partitionForGroup(groupId: string, offsetsTopicNumPartitions = OFFSETS_TOPIC_NUM_PARTITIONS_DEFAULT): number {
  if (!(Number.isInteger(offsetsTopicNumPartitions) && offsetsTopicNumPartitions >= 1)) {
    throw new RangeError(`partitionForGroup: partition count must be an integer >= 1, got ${offsetsTopicNumPartitions}`);
  }
  return kafkaAbs(javaStringHashCode(groupId)) % offsetsTopicNumPartitions;
}
