import { describe, expect, it } from 'vitest';
import { canJoinIsr, outOfSyncReplicas } from '../../../sim/kafka/broker/rules/isr';
import { follower } from './follower';

// Partition.scala `getOutOfSyncReplicas` and `isFollowerInSync` (maybeExpandIsr).

const f = follower;

describe('outOfSyncReplicas', () => {
  const followers = new Map([
    [2, f(2, 100, 0)], // at the end: in sync however old
    [3, f(3, 90, 70_000)], // behind, caught up 30 s ago: exactly at the bound
    [4, f(4, 90, 69_999)], // behind, 1 ms past the bound
  ]);

  it('lists the ISR followers behind for longer than replica.lag.time.max.ms, in ISR order, never the leader', () => {
    expect(outOfSyncReplicas([1, 4, 2, 3], 1, followers, 100, 100_000, 30_000)).toEqual([4]);
  });

  it('counts a follower it has no state for as out of sync', () => {
    expect(outOfSyncReplicas([1, 5], 1, followers, 100, 100_000, 30_000)).toEqual([5]);
  });

  it('an ISR of the leader alone has nobody out of sync', () => {
    expect(outOfSyncReplicas([1], 1, followers, 100, 100_000, 30_000)).toEqual([]);
  });

  it('the leader is skipped by id even when it also has a follower state', () => {
    expect(outOfSyncReplicas([4, 2], 4, followers, 100, 100_000, 30_000)).toEqual([]);
  });
});

describe('canJoinIsr', () => {
  it('needs the high watermark and the start of the leader epoch, both bounds included', () => {
    expect(canJoinIsr(f(2, 50, 0), 50, 40)).toBe(true);
    expect(canJoinIsr(f(2, 50, 0), 50, 50)).toBe(true);
    expect(canJoinIsr(f(2, 49, 0), 50, 40)).toBe(false);
    // Holding everything below the HW is not enough before it fetched into the current epoch.
    expect(canJoinIsr(f(2, 50, 0), 45, 51)).toBe(false);
  });
});
