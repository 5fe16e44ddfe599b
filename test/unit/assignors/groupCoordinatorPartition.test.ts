import { describe, expect, it } from 'vitest';
import {
  javaStringHashCode,
  kafkaAbs,
  OFFSETS_TOPIC_NUM_PARTITIONS_DEFAULT,
  partitionForGroup,
} from '../../../sim/kafka/coordinator/groupCoordinatorPartition';

// Expected values were computed outside this code: a throwaway Java 17 program printed
// groupId.hashCode() and ((h == Integer.MIN_VALUE) ? 0 : Math.abs(h)) % 50 (Kafka's Utils.abs and
// GroupCoordinatorService.partitionFor), and a separate Python loop (h = 31*h + code unit, mod 2^32) agreed.
const VECTORS: [string, number, number][] = [
  ['my-group', -1906497762, 12], // reference 8.3
  ['group-1', 293427299, 49], // reference 8.3
  ['polygenelubricants', -2147483648, 0], // hashCode is Integer.MIN_VALUE
  ['orders-service', 23943117, 17],
  ['analytics', -1693017210, 10], // negative: x & 0x7fffffff would give 38
  ['payments', 1382682413, 13],
  ['consumer-group-éü', 277012280, 30],
  ['\u{1F600}-emoji', -1200436388, 38], // a surrogate pair: two UTF-16 code units
  ['', 0, 0],
];

describe('partitionForGroup (__consumer_offsets partition of a group)', () => {
  it.each(VECTORS)('%j hashes to %i and lives on partition %i', (groupId, hash, partition) => {
    expect(javaStringHashCode(groupId)).toBe(hash);
    expect(partitionForGroup(groupId)).toBe(partition);
  });

  it('uses 50 partitions by default and honours another offsets.topic.num.partitions', () => {
    expect(OFFSETS_TOPIC_NUM_PARTITIONS_DEFAULT).toBe(50);
    // |-1906497762| % 7 = 1906497762 - 7 * 272356823 = 1.
    expect(partitionForGroup('my-group', 7)).toBe(1);
    expect(() => partitionForGroup('g', 0)).toThrow(RangeError);
  });

  it('maps Integer.MIN_VALUE to 0 in Utils.abs, and is Math.abs elsewhere', () => {
    expect(kafkaAbs(-2147483648)).toBe(0);
    expect(kafkaAbs(-5)).toBe(5);
    expect(kafkaAbs(2147483647)).toBe(2147483647);
  });
});
