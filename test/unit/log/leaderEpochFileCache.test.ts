import { describe, expect, it } from 'vitest';
import {
  LeaderEpochFileCache,
  UNDEFINED_EPOCH,
  UNDEFINED_EPOCH_OFFSET,
  assignEpoch,
  endOffsetFor,
  truncateEntriesFromEnd,
  truncateEntriesFromStart,
  type EpochEntry,
} from '../../../sim/kafka/log/leaderEpochFileCache';
import { ms } from '../../../sim/core/time';
import { processEnv } from './logTestKit';

const e = (epoch: number, startOffset: number): EpochEntry => ({ epoch, startOffset });

// Expected values below are worked by hand from reference section 4.2 (and LeaderEpochFileCache.endOffsetFor).
describe('endOffsetFor (OffsetsForLeaderEpoch)', () => {
  const cache = [e(1, 0), e(3, 10), e(5, 20)];
  const LEO = 27;

  it('answers UNDEFINED for an undefined requested epoch', () => {
    expect(endOffsetFor(cache, UNDEFINED_EPOCH, LEO)).toEqual({ epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET });
  });

  it('answers the log end offset for the latest epoch', () => {
    expect(endOffsetFor(cache, 5, LEO)).toEqual({ epoch: 5, endOffset: 27 });
  });

  it('answers the largest known epoch <= requested and where the next one starts', () => {
    expect(endOffsetFor(cache, 1, LEO)).toEqual({ epoch: 1, endOffset: 10 });
    expect(endOffsetFor(cache, 2, LEO)).toEqual({ epoch: 1, endOffset: 10 });
    expect(endOffsetFor(cache, 3, LEO)).toEqual({ epoch: 3, endOffset: 20 });
    expect(endOffsetFor(cache, 4, LEO)).toEqual({ epoch: 3, endOffset: 20 });
  });

  it('answers the requested epoch and the first start offset when the epoch is older than any known', () => {
    expect(endOffsetFor(cache, 0, LEO)).toEqual({ epoch: 0, endOffset: 0 });
    expect(endOffsetFor([e(4, 100)], 2, 130)).toEqual({ epoch: 2, endOffset: 100 });
  });

  it('answers UNDEFINED for an epoch newer than the latest (no higher entry)', () => {
    expect(endOffsetFor(cache, 6, LEO)).toEqual({ epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET });
  });

  it('answers UNDEFINED from an empty cache', () => {
    expect(endOffsetFor([], 3, 10)).toEqual({ epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET });
  });

  it('settles KIP-101 scenario 2: B (cache (0,0),(1,1)) tells A that epoch 0 ended at 1', () => {
    expect(endOffsetFor([e(0, 0), e(1, 1)], 0, 2)).toEqual({ epoch: 0, endOffset: 1 });
  });
});

describe('assign', () => {
  it('is a no-op for the latest epoch at a later offset', () => {
    expect(assignEpoch([e(1, 0)], 1, 5)).toBeNull();
  });

  it('moves the latest epoch to an earlier start offset', () => {
    expect(assignEpoch([e(1, 0), e(2, 5)], 2, 3)).toEqual([e(1, 0), e(2, 3)]);
  });

  it('appends a new epoch', () => {
    expect(assignEpoch([e(1, 0)], 2, 5)).toEqual([e(1, 0), e(2, 5)]);
  });

  it('removes tail entries with a larger or equal epoch or start offset', () => {
    expect(assignEpoch([e(1, 0), e(2, 5), e(3, 9)], 2, 7)).toEqual([e(1, 0), e(2, 7)]);
    expect(assignEpoch([e(1, 0), e(2, 5), e(3, 9)], 4, 5)).toEqual([e(1, 0), e(4, 5)]);
  });

  it('rejects negative epochs and offsets', () => {
    expect(() => assignEpoch([], -1, 0)).toThrow(RangeError);
    expect(() => assignEpoch([], 0, -1)).toThrow(RangeError);
  });
});

describe('truncation', () => {
  it('truncateFromEnd removes entries starting at or after the offset', () => {
    expect(truncateEntriesFromEnd([e(1, 0), e(2, 5), e(3, 9)], 9)).toEqual([e(1, 0), e(2, 5)]);
    expect(truncateEntriesFromEnd([e(1, 0), e(2, 5), e(3, 9)], 5)).toEqual([e(1, 0)]);
    expect(truncateEntriesFromEnd([e(1, 0), e(2, 5)], 6)).toBeNull();
  });

  it('truncateFromStart keeps the epoch covering the new start, moved up to it', () => {
    expect(truncateEntriesFromStart([e(1, 0), e(2, 5), e(3, 10)], 6)).toEqual([e(2, 6), e(3, 10)]);
    expect(truncateEntriesFromStart([e(1, 0), e(2, 5), e(3, 10)], 10)).toEqual([e(3, 10)]);
    expect(truncateEntriesFromStart([e(2, 5)], 3)).toBeNull();
  });

  it('epochForOffset finds the epoch a record was written in', () => {
    const c = new LeaderEpochFileCache(null, [e(1, 0), e(3, 10)]);
    expect(c.epochForOffset(0)).toBe(1);
    expect(c.epochForOffset(9)).toBe(1);
    expect(c.epochForOffset(10)).toBe(3);
    expect(c.epochForOffset(500)).toBe(3);
    expect(new LeaderEpochFileCache(null, [e(2, 5)]).epochForOffset(3)).toBeUndefined();
  });
});

describe('leader-epoch-checkpoint', () => {
  it('survives a power loss once its fsync completed, and keeps the old content if it did not', () => {
    const { w, h, envOf, powerCycle } = processEnv(3);
    const env = envOf();
    const cache = LeaderEpochFileCache.load(h.disk, 'd/orders-0', env.tasks);
    cache.assign(1, 0);
    cache.assign(2, 7);
    w.runUntil(w.now + ms(50));
    // A newer write, cut by the power before its fsync finished.
    cache.assign(3, 12);
    powerCycle();
    const reloaded = LeaderEpochFileCache.load(h.disk, 'd/orders-0', envOf().tasks);
    expect(reloaded.epochEntries()).toEqual([e(1, 0), e(2, 7)]);
  });
});

describe('the cache object: what it answers and when it changes', () => {
  it('says whether each call changed it, and keeps its latest epoch with the entries', () => {
    const c = new LeaderEpochFileCache(null, [e(1, 0), e(3, 10)]);
    expect(c.latestEpoch).toBe(3);
    expect(c.latestEntry).toEqual(e(3, 10));
    expect(c.earliestEntry).toEqual(e(1, 0));
    expect(c.assign(3, 15)).toBe(false); // the same epoch at a later offset: no change
    expect(c.assign(5, 20)).toBe(true);
    expect(c.latestEpoch).toBe(5);
    expect(c.truncateFromEnd(30)).toBe(false);
    expect(c.truncateFromEnd(20)).toBe(true);
    expect(c.latestEpoch).toBe(3);
    expect(c.truncateFromStart(-1)).toBe(false);
    expect(c.truncateFromStart(12)).toBe(true);
    expect(c.epochEntries()).toEqual([e(3, 12)]);
    expect(c.earliestEntry).toEqual(e(3, 12));
    c.clear();
    expect(c.epochEntries()).toEqual([]);
    expect([c.latestEpoch, c.latestEntry, c.earliestEntry]).toEqual([undefined, undefined, undefined]);
  });

  it('finds the entry of exactly one epoch, or none', () => {
    const c = new LeaderEpochFileCache(null, [e(1, 0), e(3, 10), e(5, 20)]);
    expect(c.epochEntry(3)).toEqual(e(3, 10));
    expect(c.epochEntry(5)).toEqual(e(5, 20));
    expect(c.epochEntry(1)).toEqual(e(1, 0));
    expect(c.epochEntry(4)).toBeUndefined();
    expect(c.epochEntry(0)).toBeUndefined();
    expect(c.epochEntry(9)).toBeUndefined();
  });

  it('knows the epoch of an offset: at an entry start, between entries, before the first', () => {
    const c = new LeaderEpochFileCache(null, [e(1, 5), e(3, 10), e(5, 20)]);
    expect(c.epochForOffset(10)).toBe(3);
    expect(c.epochForOffset(11)).toBe(3);
    expect(c.epochForOffset(19)).toBe(3);
    expect(c.epochForOffset(20)).toBe(5);
    expect(c.epochForOffset(99)).toBe(5);
    expect(c.epochForOffset(4)).toBeUndefined();
  });

  it('refuses an invalid entry with the values', () => {
    expect(() => assignEpoch([], -1, 0)).toThrow('invalid partition leader epoch entry (epoch -1, start offset 0)');
    expect(() => assignEpoch([], 0, -3)).toThrow('invalid partition leader epoch entry (epoch 0, start offset -3)');
  });

  it('the same epoch again at its own start offset changes nothing; at an earlier offset it moves back', () => {
    expect(assignEpoch([e(1, 0), e(3, 10)], 3, 10)).toBeNull();
    expect(assignEpoch([e(1, 0), e(3, 10)], 3, 8)).toEqual([e(1, 0), e(3, 8)]);
  });

  it('truncation from the end at exactly the latest start offset removes that entry; a negative offset nothing', () => {
    expect(truncateEntriesFromEnd([e(1, 0), e(3, 10)], 10)).toEqual([e(1, 0)]);
    expect(truncateEntriesFromEnd([e(1, 0), e(3, 10)], -1)).toBeNull();
    expect(truncateEntriesFromEnd([], 5)).toBeNull();
    expect(UNDEFINED_EPOCH_OFFSET).toBe(-1);
  });
});
