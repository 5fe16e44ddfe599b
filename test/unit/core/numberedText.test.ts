import { describe, expect, it } from 'vitest';
import { NumberedListBuilder, numberAt, prefixAt } from '../../../sim/core/numberedText';

describe('NumberedListBuilder', () => {
  it('made at the final length, hands over its arrays as they are', () => {
    const b = new NumberedListBuilder(3);
    b.add('producer-1:', 7);
    b.add(null, 9);
    b.add('producer-1:', 8);
    const t = b.finish()!;
    expect([...t.n]).toEqual([7, -1, 8]);
    expect(t.n.length).toBe(3);
    expect(t.n.buffer.byteLength).toBe(3 * 4); // not a copy of a bigger array
    expect(t.prefixOf).toBeNull();
    expect(t.prefixes).toEqual(['producer-1:']);
  });

  it('grows past its capacity and cuts to the count, a second prefix numbering every text', () => {
    const b = new NumberedListBuilder(1);
    b.add('a', 1);
    b.add(null, 5);
    b.add('b', 2);
    for (let i = 0; i < 10; i++) b.add(i % 2 === 0 ? 'a' : 'b', 10 + i);
    const t = b.finish()!;
    expect(t.n.length).toBe(13);
    expect(t.prefixOf!.length).toBe(13);
    const texts = Array.from(t.n, (_, i) => (numberAt(t, i) >= 0 ? prefixAt(t, i) + numberAt(t, i) : null));
    expect(texts).toEqual(['a1', null, 'b2', 'a10', 'b11', 'a12', 'b13', 'a14', 'b15', 'a16', 'b17', 'a18', 'b19']);
  });

  it('gives nothing when no text has a number', () => {
    const b = new NumberedListBuilder(2);
    b.add(null, 1);
    b.add('p', -1);
    expect(b.finish()).toBeUndefined();
  });
});
