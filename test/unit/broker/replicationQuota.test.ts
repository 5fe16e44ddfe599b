import { describe, expect, it } from 'vitest';
import { ALL_REPLICAS, ReplicationQuota, throttledPartitions } from '../../../sim/kafka/broker/rules/replicationQuota';
import { throttleConfigs } from '../../../sim/scenario/reassignPartitions';

describe('throttled replicas [QuotaConfigHandler.parseThrottledPartitions]', () => {
  it('"*" throttles every partition; pairs name the partitions of this broker only', () => {
    expect(throttledPartitions('*', 3)).toBe(ALL_REPLICAS);
    expect([...(throttledPartitions('0:1,0:2,1:2, 4 : 2', 2) as Set<number>)]).toEqual([0, 1, 4]);
    expect([...(throttledPartitions('0:1', 2) as Set<number>)]).toEqual([]);
    expect([...(throttledPartitions(undefined, 2) as Set<number>)]).toEqual([]);
  });
});

describe('ReplicationQuota [SampledStat + SimpleRate over replication.quota.window.num x .size.seconds]', () => {
  it('rate = bytes in the retained samples / max(elapsed since the oldest started, one window)', () => {
    const q = new ReplicationQuota(1000, 11, 1000);
    q.record(500, 0);
    expect(q.rate(0)).toBe(500); // the window is at least one sample long
    expect(q.isQuotaExceeded(0)).toBe(false);
    q.record(600, 500);
    expect(q.rate(500)).toBe(1100);
    expect(q.isQuotaExceeded(500)).toBe(true);
    // Later samples spread the bytes over the elapsed time.
    q.record(0, 4000);
    expect(q.rate(4000)).toBe(1100 / 4);
    expect(q.isQuotaExceeded(4000)).toBe(false);
  });

  it('samples older than the whole span are forgotten, and an unbounded quota is never exceeded', () => {
    const q = new ReplicationQuota(1000, 11, 1000);
    q.record(5000, 0);
    expect(q.isQuotaExceeded(100)).toBe(true);
    expect(q.rate(11_000)).toBe(0);
    const free = new ReplicationQuota(Infinity);
    free.record(1e12, 0);
    expect(free.isQuotaExceeded(0)).toBe(false);
  });
});

describe('kafka-reassign-partitions --throttle [ReassignPartitionsCommand calculate*Throttles]', () => {
  it('rates on every broker involved; leader side the current replicas, follower side the new ones; null removes', () => {
    const moves = [
      { topic: 'a', partition: 0, current: [1, 2, 3], target: [4, 2, 3] },
      { topic: 'a', partition: 1, current: [2, 3, 1], target: [2, 3, 5] },
    ];
    const set = throttleConfigs(moves, 5_000_000);
    expect(set.filter((c) => c.resourceType === 'BROKER').map((c) => `${c.resourceName} ${c.name}`)).toEqual(
      [1, 2, 3, 4, 5].flatMap((b) => [`${b} leader.replication.throttled.rate`, `${b} follower.replication.throttled.rate`]),
    );
    expect(set.filter((c) => c.resourceType === 'TOPIC')).toEqual([
      { resourceType: 'TOPIC', resourceName: 'a', name: 'leader.replication.throttled.replicas', value: '0:1,0:2,0:3,1:2,1:3,1:1' },
      { resourceType: 'TOPIC', resourceName: 'a', name: 'follower.replication.throttled.replicas', value: '0:4,1:5' },
    ]);
    expect(throttleConfigs(moves, null).every((c) => c.value === null)).toBe(true);
  });
});
