import { describe, expect, it } from 'vitest';
import { OffsetIndex } from '../../../sim/kafka/log/offsetIndex';
import { grownRoom, TimeIndex } from '../../../sim/kafka/log/timeIndex';

describe('TimeIndex', () => {
  it('finds the offset of the largest indexed timestamp at or below the target, and skips timestamps that do not grow', () => {
    const t = new TimeIndex(100, 50);
    t.maybeAppend(1_700_000_000_000, 110);
    t.maybeAppend(1_700_000_000_500, 120);
    t.maybeAppend(1_700_000_000_400, 125); // not larger: no entry
    t.maybeAppend(1_700_000_001_000, 130);
    expect(t.entries).toBe(3);
    expect(t.sizeInBytes).toBe(36); // Kafka's 12 bytes per entry, whatever the memory holds
    expect([1_699_999_999_999, 1_700_000_000_000, 1_700_000_000_499, 1_700_000_000_500, 1_700_000_005_000].map((ts) => t.lookup(ts))).toEqual([100, 110, 110, 120, 130]);
  });

  it('keeps timestamps whole once one is more than an int32 of milliseconds past the first, and stays exact', () => {
    const t = new TimeIndex(0, 50);
    t.maybeAppend(-1, 1);
    t.maybeAppend(1_000, 2);
    t.maybeAppend(2 ** 31 + 5, 3); // beyond 4 bytes as a difference
    t.maybeAppend(2 ** 40, 4);
    t.maybeAppend(2 ** 40 + 1, 5);
    expect([-2, -1, 999, 1_000, 2 ** 31 + 4, 2 ** 31 + 5, 2 ** 40, 2 ** 40 + 1].map((ts) => t.lookup(ts))).toEqual([0, 1, 1, 2, 2, 3, 4, 5]);
    t.maybeAppend(2 ** 40, 6); // not larger than the last entry
    expect(t.entries).toBe(5);
    // Truncated to empty, then filled again: the whole timestamps stay whole.
    t.truncateTo(0);
    t.maybeAppend(7, 1);
    t.maybeAppend(9, 2);
    expect([6, 7, 8, 9].map((ts) => t.lookup(ts))).toEqual([0, 1, 1, 2]);
  });

  it('stops at its entry limit, and truncation drops the entries at or after an offset', () => {
    const t = new TimeIndex(0, 3);
    for (let i = 1; i <= 5; i++) t.maybeAppend(i * 10, i);
    expect([t.entries, t.isFull, t.lookup(100)]).toEqual([3, true, 3]);
    t.truncateTo(2);
    expect([t.entries, t.lookup(100)]).toEqual([1, 1]);
    t.maybeAppend(15, 2); // larger than the remaining last entry (10)
    expect([t.entries, t.lookup(15)]).toEqual([2, 2]);
  });
});

describe('segment index growth', () => {
  it('grows by half (at least 8 entries), never past the limit', () => {
    expect([grownRoom(0, 100), grownRoom(8, 100), grownRoom(12, 100), grownRoom(80, 100), grownRoom(0, 0)]).toEqual([8, 12, 18, 100, 1]);
    const o = new OffsetIndex(1000, 20);
    for (let i = 0; i < 20; i++) o.append(1000 + i * 3, i);
    expect([o.entries, o.isFull, o.lookup(1000 + 31), o.lookup(999), o.lastOffset]).toEqual([20, true, 10, 0, 1057]);
    expect(() => o.append(2000, 21)).toThrow(/full/);
  });
});
