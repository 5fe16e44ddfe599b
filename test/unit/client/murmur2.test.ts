import { describe, expect, it } from 'vitest';
import { murmur2, toPositive } from '../../../sim/kafka/client/murmur2';
import {
  choosePartition,
  partitionForKey,
  serializeStringKey,
  UNKNOWN_PARTITION,
} from '../../../sim/kafka/client/partitioner';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('murmur2', () => {
  // Kafka's own vectors: clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java `testMurmur2`.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
  ])('matches Kafka for %j', (input, expected) => {
    expect(murmur2(utf8(input))).toBe(expected);
  });

  // Reference 1.3 extra vectors, computed there by two independent implementations; they cover every tail length.
  it.each([
    ['', 275646681, 275646681],
    ['ab', 316155434, 316155434],
    ['abcd', -1323649548, 823834100],
    ['é', 186971271, 186971271],
  ])('matches the reference for %j', (input, hash, positive) => {
    expect(murmur2(utf8(input))).toBe(hash);
    expect(toPositive(murmur2(utf8(input)))).toBe(positive);
  });

  it('maps Integer.MIN_VALUE to 0 and clears only the sign bit', () => {
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(-1)).toBe(2147483647);
    expect(toPositive(-973932308)).toBe(-973932308 + 2 ** 31);
    expect(toPositive(12345)).toBe(12345);
  });
});

describe('partitionForKey', () => {
  it('hashes strings over their UTF-8 bytes', () => {
    // toPositive(-790332482) = 1357151166, and 1357151166 % 6 = 0 (by hand: 6 * 226191861 = 1357151166).
    expect(partitionForKey('foobar', 6)).toBe(0);
    expect(partitionForKey(utf8('foobar'), 6)).toBe(0);
    // 823834100 % 7 = 823834100 - 7 * 117690585 = 5.
    expect(partitionForKey('abcd', 7)).toBe(5);
    // A two-byte UTF-8 character: 186971271 % 10 = 1.
    expect(partitionForKey('é', 10)).toBe(1);
  });

  it('encodes unpaired surrogates as Java does ("?"), not as U+FFFD', () => {
    // Bytes printed by JDK 17 for "a\uD800b\uDC00c\uD83D\uDE00".getBytes(StandardCharsets.UTF_8).
    expect([...serializeStringKey('a\uD800b\uDC00c\uD83D\uDE00')]).toEqual([
      0x61, 0x3f, 0x62, 0x3f, 0x63, 0xf0, 0x9f, 0x98, 0x80,
    ]);
  });

  it('rejects a partition count below 1', () => {
    expect(() => partitionForKey('k', 0)).toThrow(RangeError);
  });
});

describe('choosePartition (KafkaProducer.partition)', () => {
  it('prefers an explicit partition, then the key hash, then the sticky partitioner', () => {
    expect(choosePartition(4, 'foobar', 6, false)).toBe(4);
    expect(choosePartition(null, 'foobar', 6, false)).toBe(0);
    expect(choosePartition(undefined, null, 6, false)).toBe(UNKNOWN_PARTITION);
  });

  it('ignores keys with partitioner.ignore.keys=true', () => {
    expect(choosePartition(null, 'foobar', 6, true)).toBe(UNKNOWN_PARTITION);
    expect(choosePartition(2, 'foobar', 6, true)).toBe(2);
  });

  it('treats an empty key as a key', () => {
    // murmur2("") = 275646681; 275646681 % 4 = 1.
    expect(choosePartition(null, '', 4, false)).toBe(1);
  });
});
