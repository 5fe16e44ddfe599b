import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { CachedPartition, FetchSessionCacheShard, MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, nextEpoch } from '../../../sim/kafka/broker/fetchSession';

const parts = (n: number) =>
  Array.from({ length: n }, (_, i) => new CachedPartition('t', i, { topic: 't', partition: i, fetchOffset: 0, lastFetchedEpoch: -1, currentLeaderEpoch: 0, logStartOffset: 0, maxBytes: 1 }));

describe('fetch sessions on the broker', () => {
  it('epochs run 1, 2, ... and wrap from Integer.MAX_VALUE to 1; FINAL stays FINAL', () => {
    expect([nextEpoch(0), nextEpoch(1), nextEpoch(0x7fffffff), nextEpoch(-1)]).toEqual([1, 2, 1, -1]);
  });

  it('a full cache evicts a stale session, else the least valuable old one, else refuses', () => {
    const shard = new FetchSessionCacheShard(2, MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, 1, 1000, Random.root(1));
    const follower = shard.maybeCreateSession(0, true, parts(20))!;
    const consumer = shard.maybeCreateSession(0, false, parts(3))!;
    expect(follower.id).not.toBe(consumer.id);
    // Both recent and the newcomer is a consumer: nothing may go.
    expect(shard.maybeCreateSession(1000, false, parts(50))).toBeNull();
    // A follower may take a consumer's place at any age.
    const second = shard.maybeCreateSession(1000, true, parts(5))!;
    expect(shard.get(consumer.id)).toBeUndefined();
    expect(shard.get(second.id)).toBe(second);
    // Unused for longer than the eviction time: anyone may take its place.
    shard.touch(second, 200_000);
    const late = shard.maybeCreateSession(200_000, false, parts(1))!;
    expect(shard.get(follower.id)).toBeUndefined();
    expect(shard.size).toBe(2);
    expect(shard.get(late.id)).toBe(late);
  });

  it('a cached partition counts as changed until it has been told the current HW and log start', () => {
    const [cp] = parts(1);
    expect(cp!.changed(0, 0)).toBe(true);
    cp!.noteSent({ topic: 't', partition: 0, error: 'NONE', highWatermark: 5, logStartOffset: 0, logEndOffset: 5, divergingEpoch: null, batches: [], currentLeader: null });
    expect([cp!.changed(5, 0), cp!.changed(6, 0), cp!.changed(5, 1)]).toEqual([false, true, true]);
    cp!.noteSent({ topic: 't', partition: 0, error: 'NOT_LEADER_OR_FOLLOWER', highWatermark: -1, logStartOffset: -1, logEndOffset: -1, divergingEpoch: null, batches: [], currentLeader: null });
    expect(cp!.changed(5, 0)).toBe(true);
  });
});
