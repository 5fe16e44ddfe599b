import { describe, expect, it } from 'vitest';
import { insertAt, removeAt } from '../../../sim/core/lists';

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
});
