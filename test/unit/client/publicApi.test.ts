import { describe, expect, it } from 'vitest';
import { murmur2, partitionForKey } from '../../../sim/index';

describe('the library entry', () => {
  it('exports murmur2 over bytes and partitionForKey over strings (UTF-8) as Kafka computes them', () => {
    // Kafka's own UtilsTest vectors (reference 1.3).
    expect(murmur2(new TextEncoder().encode('21'))).toBe(-973932308);
    expect(murmur2(new TextEncoder().encode('foobar'))).toBe(-790332482);
    // toPositive(-790332482) = -790332482 & 0x7fffffff = 1357151166; 1357151166 % 7 = 6 (by hand).
    expect(partitionForKey('foobar', 7)).toBe(1357151166 % 7);
    expect(partitionForKey(new TextEncoder().encode('foobar'), 7)).toBe(partitionForKey('foobar', 7));
  });
});
