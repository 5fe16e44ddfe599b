import { describe, expect, it } from 'vitest';
import { divergingEpoch, offsetTruncationState, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, type EpochEndOffset } from '../../../sim/kafka/broker/rules/truncation';

// AbstractFetcherThread.scala `getOffsetTruncationState` (KIP-101, KIP-279) and the leader's DivergingEpoch check.

/** A follower whose epoch cache holds these (epoch, start offset) entries, its log ending at `leo`. */
function cache(entries: [epoch: number, start: number][], leo: number): (epoch: number) => EpochEndOffset | null {
  return (epoch) => {
    let found = -1;
    for (let i = 0; i < entries.length; i++) if (entries[i]![0] <= epoch) found = i;
    if (found < 0) return null;
    const end = found + 1 < entries.length ? entries[found + 1]![1] : leo;
    return { epoch: entries[found]![0], endOffset: end };
  };
}

describe('offsetTruncationState', () => {
  it('the leader without an end offset for the epoch: keep the fetch offset', () => {
    expect(offsetTruncationState({ epoch: 3, endOffset: UNDEFINED_EPOCH_OFFSET }, 50, 42, cache([[1, 0]], 50))).toEqual({ offset: 42, truncationCompleted: true });
    expect(UNDEFINED_EPOCH_OFFSET).toBe(-1);
    expect(UNDEFINED_EPOCH).toBe(-1);
  });

  it('the leader without an epoch (an old protocol answer): its end offset, at most our own end', () => {
    expect(offsetTruncationState({ epoch: UNDEFINED_EPOCH, endOffset: 30 }, 50, 50, cache([[1, 0]], 50))).toEqual({ offset: 30, truncationCompleted: true });
    expect(offsetTruncationState({ epoch: UNDEFINED_EPOCH, endOffset: 80 }, 50, 50, cache([[1, 0]], 50))).toEqual({ offset: 50, truncationCompleted: true });
  });

  it('no epoch of ours at or below the leader answer: trust the leader end offset', () => {
    expect(offsetTruncationState({ epoch: 1, endOffset: 20 }, 50, 50, cache([[2, 0]], 50))).toEqual({ offset: 20, truncationCompleted: true });
    expect(offsetTruncationState({ epoch: 1, endOffset: 20 }, 50, 50, () => ({ epoch: UNDEFINED_EPOCH, endOffset: 40 }))).toEqual({ offset: 20, truncationCompleted: true });
    expect(offsetTruncationState({ epoch: 1, endOffset: 20 }, 50, 50, () => ({ epoch: 1, endOffset: UNDEFINED_EPOCH_OFFSET }))).toEqual({ offset: 20, truncationCompleted: true });
    expect(offsetTruncationState({ epoch: 1, endOffset: 70 }, 50, 50, () => null)).toEqual({ offset: 50, truncationCompleted: true });
  });

  it('the same epoch on both sides: the lower of the two end offsets (and of our log end)', () => {
    // We have epoch 3 from 30 to our end at 50; the leader's epoch 3 ended at 40.
    expect(offsetTruncationState({ epoch: 3, endOffset: 40 }, 50, 50, cache([[1, 0], [3, 30]], 50))).toEqual({ offset: 40, truncationCompleted: true });
    // Ours ended at 35 (epoch 4 began there): 35.
    expect(offsetTruncationState({ epoch: 3, endOffset: 40 }, 50, 50, cache([[1, 0], [3, 30], [4, 35]], 50))).toEqual({ offset: 35, truncationCompleted: true });
    expect(offsetTruncationState({ epoch: 3, endOffset: 90 }, 45, 45, cache([[3, 30]], 80))).toEqual({ offset: 45, truncationCompleted: true });
  });

  it('we never saw the leader epoch: cut to where our older epoch ends and ask again', () => {
    // The leader answers epoch 3 ending at 40; our cache jumps from epoch 2 (ends at 25, where our 5 began).
    expect(offsetTruncationState({ epoch: 3, endOffset: 40 }, 50, 50, cache([[2, 0], [5, 25]], 50))).toEqual({ offset: 25, truncationCompleted: false });
    expect(offsetTruncationState({ epoch: 3, endOffset: 40 }, 20, 20, cache([[2, 0], [5, 25]], 50))).toEqual({ offset: 20, truncationCompleted: false });
  });
});

describe('divergingEpoch (the leader checks a follower fetch)', () => {
  const own = cache([[1, 0], [3, 30], [5, 60]], 80);
  // The leader's own cache lookup answers UNDEFINED for an epoch below its first.
  const leader = (epoch: number): EpochEndOffset => own(epoch) ?? { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };

  it('no last fetched epoch: nothing to check', () => {
    expect(divergingEpoch(10, -1, leader)).toBeNull();
  });

  it('a prefix of the leader log diverges from nothing', () => {
    expect(divergingEpoch(25, 1, leader)).toBeNull();
    expect(divergingEpoch(30, 1, leader)).toBeNull();
    expect(divergingEpoch(80, 5, leader)).toBeNull();
  });

  it('a fetch beyond where the leader epoch ended diverges: the leader tells where it ends', () => {
    expect(divergingEpoch(31, 1, leader)).toEqual({ epoch: 1, endOffset: 30 });
  });

  it('an epoch the leader never had: its largest epoch below, and where that ended', () => {
    expect(divergingEpoch(20, 2, leader)).toEqual({ epoch: 1, endOffset: 30 });
    expect(divergingEpoch(20, 4, leader)).toEqual({ epoch: 3, endOffset: 60 });
  });
});
