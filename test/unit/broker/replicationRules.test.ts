import { describe, expect, it } from 'vitest';
import { resetFollowerState, updateFetchState } from '../../../sim/kafka/broker/rules/followerState';
import { nextHighWatermark } from '../../../sim/kafka/broker/rules/highWatermark';

describe('follower fetch state', () => {
  it("is caught up as of now when it fetched the leader's end, as of its previous fetch when it fetched what the leader had then", () => {
    const f = resetFollowerState(2, false, 1000);
    updateFetchState(f, 10, 0, 10, 2000, 7);
    expect([f.logEndOffset, f.lastCaughtUpTimeMs, f.lastFetchLeaderLogEndOffset, f.brokerEpoch]).toEqual([10, 2000, 10, 7]);
    // The leader moved on to 15; the follower fetches from 10 again, what the leader had at its previous fetch.
    updateFetchState(f, 10, 0, 15, 3000, 7);
    expect([f.lastCaughtUpTimeMs, f.lastFetchLeaderLogEndOffset]).toEqual([2000, 15]);
    // Still behind what the leader had at its previous fetch (15): no longer caught up as of then.
    updateFetchState(f, 12, 0, 20, 4000, 7);
    expect(f.lastCaughtUpTimeMs).toBe(2000);
  });
});

describe('high watermark', () => {
  const base = { currentHighWatermark: 5, leaderLogEndOffset: 20, committedIsrSize: 3, effectiveMinIsr: 2, nowMs: 10_000, replicaLagTimeMaxMs: 30_000, isIsrEligible: () => true };
  const follower = (brokerId: number, leo: number, caughtUpMs = 10_000) => ({ ...resetFollowerState(brokerId, true, caughtUpMs), logEndOffset: leo });

  it('is the lowest log end offset in the maximal ISR, never lower than before', () => {
    expect(nextHighWatermark({ ...base, maximalIsr: [1, 2, 3], followers: [follower(2, 12), follower(3, 17)] })).toBe(12);
    expect(nextHighWatermark({ ...base, maximalIsr: [1, 2, 3], followers: [follower(2, 3), follower(3, 17)] })).toBe(5);
  });

  it('waits for a caught-up eligible follower outside the ISR, not for a lagging or ineligible one', () => {
    const outside = follower(4, 8, 0);
    expect(nextHighWatermark({ ...base, maximalIsr: [1, 2], followers: [follower(2, 20), outside] })).toBe(8); // caught up at 0 + 30 s >= now
    expect(nextHighWatermark({ ...base, nowMs: 40_001, maximalIsr: [1, 2], followers: [follower(2, 20, 40_001), outside] })).toBe(20);
    expect(nextHighWatermark({ ...base, maximalIsr: [1, 2], isIsrEligible: (id) => id !== 4, followers: [follower(2, 20), outside] })).toBe(20);
  });

  it('does not move while the committed ISR is below the effective min ISR', () => {
    expect(nextHighWatermark({ ...base, committedIsrSize: 1, maximalIsr: [1], followers: [] })).toBe(5);
  });
});
