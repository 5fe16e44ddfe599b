import { describe, expect, it } from 'vitest';
import { nextHighWatermark, type HighWatermarkInput } from '../../../sim/kafka/broker/rules/highWatermark';
import { follower } from './follower';

// Partition.scala `maybeIncrementLeaderHW` (and the strict min-ISR rule of KAFKA-15583).

const f = follower;

function input(over: Partial<HighWatermarkInput>): HighWatermarkInput {
  return {
    currentHighWatermark: 10,
    leaderLogEndOffset: 20,
    committedIsrSize: 3,
    maximalIsr: [2, 3],
    followers: [f(2, 20), f(3, 20)],
    isIsrEligible: () => true,
    effectiveMinIsr: 2,
    nowMs: 100_000,
    replicaLagTimeMaxMs: 30_000,
    ...over,
  };
}

describe('nextHighWatermark', () => {
  it('is the leader end offset when every ISR follower has it', () => {
    expect(nextHighWatermark(input({}))).toBe(20);
  });

  it('is the lowest end offset among the ISR followers', () => {
    expect(nextHighWatermark(input({ followers: [f(2, 17), f(3, 14)] }))).toBe(14);
    expect(nextHighWatermark(input({ followers: [f(2, 14), f(3, 17)] }))).toBe(14);
  });

  it('never goes below where it was', () => {
    expect(nextHighWatermark(input({ followers: [f(2, 5), f(3, 20)] }))).toBe(10);
  });

  it('does not move while the committed ISR is smaller than the effective min ISR, and moves at exactly it', () => {
    expect(nextHighWatermark(input({ committedIsrSize: 1 }))).toBe(10);
    expect(nextHighWatermark(input({ committedIsrSize: 2, maximalIsr: [2], followers: [f(2, 20)] }))).toBe(20);
  });

  it('an ISR follower whose offset is unknown (-1) holds the high watermark where it is', () => {
    expect(nextHighWatermark(input({ followers: [f(2, -1), f(3, 20)] }))).toBe(10);
    expect(nextHighWatermark(input({ currentHighWatermark: -1, followers: [f(2, -1), f(3, 20)] }))).toBe(-1);
  });

  it('a follower outside the maximal ISR counts only when it is caught up and eligible', () => {
    // Broker 4 is behind at 12 but caught up within replica.lag.time.max.ms: it is about to join, so it holds the HW.
    const caughtUp = f(4, 12, 90_000);
    expect(nextHighWatermark(input({ followers: [f(2, 20), f(3, 20), caughtUp] }))).toBe(12);
    expect(nextHighWatermark(input({ followers: [f(2, 20), f(3, 20), caughtUp], isIsrEligible: (id) => id !== 4 }))).toBe(20);
    // Lagging for longer than the bound: it does not hold anyone back.
    expect(nextHighWatermark(input({ followers: [f(2, 20), f(3, 20), f(4, 12, 60_000)] }))).toBe(20);
  });

  it('a follower in the maximal ISR (an expansion in flight) counts even if not eligible or caught up', () => {
    expect(nextHighWatermark(input({ maximalIsr: [2, 3, 4], followers: [f(2, 20), f(3, 20), f(4, 15, 0)], isIsrEligible: () => false }))).toBe(15);
  });

  it('a follower at or past the candidate does not lower it', () => {
    expect(nextHighWatermark(input({ followers: [f(2, 25), f(3, 20)] }))).toBe(20);
  });
});
