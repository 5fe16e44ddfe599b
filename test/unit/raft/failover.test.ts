import { describe, expect, it } from 'vitest';
import { toMs } from '../../../sim/core/time';
import { RaftCluster, commitDisagreements, lostCommitted, twoLeaderEpochs } from './raftCluster';

describe('leader failover', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: after the leader crashes a new one is elected within fetch timeout + election timeout, and nothing committed is lost`, () => {
      const c = new RaftCluster({ seed, voters: 3, appendEveryMs: 100 });
      const old = c.runUntilLeader(10_000)!;
      c.runFor(3000);
      const oldEpoch = c.client(old)!.epoch;
      const committedBefore = c.client(old)!.highWatermark!;
      expect(committedBefore).toBeGreaterThan(10);
      const crashAt = c.world.now;
      c.world.host(old).crash();
      const next = c.runUntilLeader(20_000);
      expect(next).not.toBeNull();
      expect(next).not.toBe(old);
      // Followers notice after fetch.timeout (2000 ms); a split pre-vote costs at most one election timeout (< 2000 ms).
      expect(toMs(c.world.now - crashAt)).toBeLessThan(4500);
      expect(c.client(next!)!.epoch).toBeGreaterThan(oldEpoch);
      expect(c.client(next!)!.highWatermark!).toBeGreaterThan(committedBefore);
      expect(lostCommitted(c.recorder, c.client(next!)!.logBatches())).toEqual([]);

      // The old leader comes back Resigned in its old epoch, then follows; it never leads that epoch again.
      c.world.host(old).restart();
      c.runFor(5000);
      const restarted = c.events('raft.state-change').filter((e) => e.node === old && e.t > crashAt);
      expect(restarted[0]).toMatchObject({ state: 'Resigned', epoch: oldEpoch, reason: 'start' });
      expect(c.client(old)!.inspect()).toMatchObject({ state: 'Follower', leaderId: next, epoch: c.client(next!)!.epoch });
      expect(twoLeaderEpochs(c.events())).toEqual([]);
      expect(commitDisagreements(c.recorder)).toEqual([]);
      // It caught up: the whole committed history is in its log too.
      expect(lostCommitted(c.recorder, c.client(old)!.logBatches())).toEqual([]);
    });
  }

  it('a five-voter quorum survives two crashed voters and keeps committing', () => {
    const c = new RaftCluster({ seed: 5, voters: 5, appendEveryMs: 100 });
    const leader = c.runUntilLeader(10_000)!;
    c.runFor(2000);
    const followers = c.voterIds.filter((v) => v !== leader);
    c.world.host(followers[0]!).crash();
    c.world.host(followers[1]!).crash();
    const hw = c.client(leader)!.highWatermark!;
    c.runFor(3000);
    expect(c.client(leader)!.stateName).toBe('Leader');
    expect(c.client(leader)!.highWatermark!).toBeGreaterThan(hw + 10);
  });
});
