import { describe, expect, it } from 'vitest';
import { isCaughtUp, NEVER_MS, recordRepeatedFetches, resetFollowerState, UNKNOWN_OFFSET, updateFetchState, type FollowerState } from '../../../sim/kafka/broker/rules/followerState';

/** The state after one fetch (updateFetchState updates it in place). */
function fetched(s: FollowerState, ...a: [number, number, number, number, number]): FollowerState {
  updateFetchState(s, ...a);
  return s;
}

// Replica.scala `updateFetchStateOrThrow` / `isCaughtUp` / `resetReplicaState`, one rule at a time.

const LAG = 30_000;

function state(over: Partial<FollowerState> = {}): FollowerState {
  return { brokerId: 2, logEndOffset: 10, logStartOffset: 0, lastFetchLeaderLogEndOffset: 10, lastFetchTimeMs: 1000, lastCaughtUpTimeMs: 1000, brokerEpoch: 7, ...over };
}

describe('resetFollowerState (a new leader epoch)', () => {
  it('counts an ISR member as caught up now, any other as never', () => {
    expect(resetFollowerState(3, true, 5000)).toEqual({
      brokerId: 3,
      logEndOffset: UNKNOWN_OFFSET,
      logStartOffset: UNKNOWN_OFFSET,
      lastFetchLeaderLogEndOffset: UNKNOWN_OFFSET,
      lastFetchTimeMs: NEVER_MS,
      lastCaughtUpTimeMs: 5000,
      brokerEpoch: -1,
    });
    expect(resetFollowerState(3, false, 5000).lastCaughtUpTimeMs).toBe(NEVER_MS);
    // Never caught up is not caught up, even at the very start of the simulated clock.
    expect(isCaughtUp({ ...resetFollowerState(3, false, 0), logEndOffset: 5 }, 10, 0, 30_000)).toBe(false);
    expect(UNKNOWN_OFFSET).toBe(-1);
  });
});

describe('updateFetchState', () => {
  it('a fetch at the leader end offset is caught up as of this fetch', () => {
    const s = fetched(state({ lastCaughtUpTimeMs: 100 }), 20, 3, 20, 4000, 8);
    expect(s).toEqual({ brokerId: 2, logEndOffset: 20, logStartOffset: 3, lastFetchLeaderLogEndOffset: 20, lastFetchTimeMs: 4000, lastCaughtUpTimeMs: 4000, brokerEpoch: 8 });
  });

  it('a fetch beyond the leader end offset counts as caught up too', () => {
    expect(fetched(state({ lastCaughtUpTimeMs: 100 }), 21, 0, 20, 4000, 8).lastCaughtUpTimeMs).toBe(4000);
  });

  it('a fetch that reached what the leader had at the previous fetch is caught up as of that previous fetch', () => {
    // Previous fetch at 1000 ms saw the leader at 10; this one asks from 10 while the leader is at 15.
    const s = fetched(state({ lastCaughtUpTimeMs: 100, lastFetchLeaderLogEndOffset: 10, lastFetchTimeMs: 1000 }), 10, 0, 15, 4000, 7);
    expect(s.lastCaughtUpTimeMs).toBe(1000);
    expect(s.lastFetchLeaderLogEndOffset).toBe(15);
    expect(s.lastFetchTimeMs).toBe(4000);
  });

  it('a fetch short of both leaves the last caught-up time alone', () => {
    const s = fetched(state({ lastCaughtUpTimeMs: 100, lastFetchLeaderLogEndOffset: 10, lastFetchTimeMs: 1000 }), 9, 0, 15, 4000, 7);
    expect(s.lastCaughtUpTimeMs).toBe(100);
    expect(s.logEndOffset).toBe(9);
  });

  it('never moves the caught-up time backwards', () => {
    // A late fetch stamped earlier than the last caught-up time (both rules would go back in time).
    expect(fetched(state({ lastCaughtUpTimeMs: 5000 }), 20, 0, 20, 4000, 7).lastCaughtUpTimeMs).toBe(5000);
    expect(fetched(state({ lastCaughtUpTimeMs: 5000, lastFetchLeaderLogEndOffset: 10, lastFetchTimeMs: 1000 }), 10, 0, 15, 6000, 7).lastCaughtUpTimeMs).toBe(5000);
  });

  it('keeps the highest leader end offset seen at a fetch', () => {
    expect(fetched(state({ lastFetchLeaderLogEndOffset: 30 }), 10, 0, 15, 4000, 7).lastFetchLeaderLogEndOffset).toBe(30);
  });
});

describe('isCaughtUp', () => {
  it('at the leader end offset, however long ago it last caught up', () => {
    expect(isCaughtUp(state({ logEndOffset: 50, lastCaughtUpTimeMs: 0 }), 50, 1_000_000, LAG)).toBe(true);
  });

  it('behind, but within replica.lag.time.max.ms of having caught up (the bound included)', () => {
    expect(isCaughtUp(state({ logEndOffset: 40, lastCaughtUpTimeMs: 1000 }), 50, 1000 + LAG, LAG)).toBe(true);
    expect(isCaughtUp(state({ logEndOffset: 40, lastCaughtUpTimeMs: 1000 }), 50, 1000 + LAG + 1, LAG)).toBe(false);
  });

  it('ahead of the leader (after its truncation) is not "at" its end', () => {
    expect(isCaughtUp(state({ logEndOffset: 60, lastCaughtUpTimeMs: 0 }), 50, 1_000_000, LAG)).toBe(false);
  });
});

describe('recordRepeatedFetches (quiet partitions of a follower fetch, not read)', () => {
  it('records each repeat exactly as updateFetchState would, and skips entries without a follower', () => {
    const caughtUp = state({ logEndOffset: 20, lastFetchLeaderLogEndOffset: 20, lastFetchTimeMs: 1000, lastCaughtUpTimeMs: 1000 });
    const behind = state({ logEndOffset: 10, lastFetchLeaderLogEndOffset: 10, lastFetchTimeMs: 1000, lastCaughtUpTimeMs: 100 });
    const expectedCaughtUp = fetched({ ...caughtUp }, 20, 4, 20, 4000, 9);
    const expectedBehind = fetched({ ...behind }, 10, 0, 15, 4000, 9);
    recordRepeatedFetches(
      [
        { fetchOffset: 20, logStartOffset: 4, memoLogEndOffset: 20, memoFollower: caughtUp },
        { fetchOffset: 5, logStartOffset: 0, memoLogEndOffset: 5, memoFollower: null },
        { fetchOffset: 10, logStartOffset: 0, memoLogEndOffset: 15, memoFollower: behind },
      ],
      4000,
      9,
    );
    expect(caughtUp).toEqual(expectedCaughtUp);
    // The caught-up follower stays caught up as of this fetch, with the request's broker epoch.
    expect(caughtUp.lastCaughtUpTimeMs).toBe(4000);
    expect(caughtUp.lastFetchTimeMs).toBe(4000);
    expect(caughtUp.brokerEpoch).toBe(9);
    expect(caughtUp.logStartOffset).toBe(4);
    expect(behind).toEqual(expectedBehind);
    expect(behind.lastCaughtUpTimeMs).toBe(1000);
  });

  it('an empty list records nothing', () => {
    const s = state();
    recordRepeatedFetches([], 9000, 1);
    expect(s).toEqual(state());
  });
});
