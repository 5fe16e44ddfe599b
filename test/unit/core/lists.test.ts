import { describe, expect, it } from 'vitest';
import { insertAt, removeAt, sortSmallBy } from '../../../sim/core/lists';

describe('lists', () => {
  it('insertAt puts an item at the front, the middle and the end, keeping the rest in order', () => {
    const l = [2, 4];
    insertAt(l, 0, 1);
    insertAt(l, 2, 3);
    insertAt(l, 4, 5);
    expect(l).toEqual([1, 2, 3, 4, 5]);
    const empty: number[] = [];
    insertAt(empty, 0, 7);
    expect(empty).toEqual([7]);
  });

  it('removeAt takes out the item at an index, the rest closing up', () => {
    const l = ['a', 'b', 'c', 'd'];
    removeAt(l, 1);
    expect(l).toEqual(['a', 'c', 'd']);
    removeAt(l, 2);
    expect(l).toEqual(['a', 'c']);
    removeAt(l, 0);
    expect(l).toEqual(['c']);
    removeAt(l, 0);
    expect(l).toEqual([]);
  });

  it('sortSmallBy sorts by key in place and keeps equal keys in their order, as Array.sort', () => {
    const items = [3, 1, 2, 1, 0, 3, 2].map((k, i) => ({ k, i }));
    const expected = [...items].sort((a, b) => a.k - b.k);
    sortSmallBy(items, (x) => x.k);
    expect(items).toEqual(expected);
    expect(items.map((x) => x.i)).toEqual([4, 1, 3, 2, 6, 0, 5]);
  });
});
