import { describe, expect, it } from 'vitest';
import { RaftCluster, twoLeaderEpochs } from './raftCluster';

describe('pre-vote (KIP-996)', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: a partitioned follower does not inflate the epoch nor disrupt the leader when it rejoins`, () => {
      const c = new RaftCluster({ seed, voters: 3, appendEveryMs: 100 });
      const leader = c.runUntilLeader(10_000)!;
      c.runFor(2000);
      const epoch = c.client(leader)!.epoch;
      const loner = c.voterIds.find((v) => v !== leader)!;
      const others = c.voterIds.filter((v) => v !== loner);
      const cutAt = c.world.now;
      c.world.network.partition([[loner], others]);
      c.runFor(15_000);

      const lonerChanges = c.events('raft.state-change').filter((e) => e.node === loner && e.t > cutAt);
      // It did try: its fetch timeout made it prospective, more than once over 15 s...
      expect(lonerChanges.filter((e) => e.state === 'Prospective').length).toBeGreaterThanOrEqual(2);
      // ...but it never stood as a candidate, so its epoch stayed the cluster's.
      expect(lonerChanges.filter((e) => e.state === 'Candidate')).toEqual([]);
      expect(c.client(loner)!.epoch).toBe(epoch);

      const healAt = c.world.now;
      c.world.network.unpartition([[loner], others]);
      c.runFor(8000);
      // The leader was never disturbed: same leader, same epoch, everywhere.
      expect(c.leaders()).toEqual([leader]);
      for (const id of c.voterIds) expect(c.client(id)!.inspect()).toMatchObject({ epoch, leaderId: leader });
      expect(c.events('raft.state-change').filter((e) => e.t > healAt && e.node !== loner)).toEqual([]);
      // The healthy voters refused its pre-votes because they hear from their leader.
      const refusals = c.events('raft.vote').filter((e) => e.t > cutAt && e.candidate === loner);
      expect(refusals.every((e) => e.granted === false && e.preVote === true)).toBe(true);
      expect(twoLeaderEpochs(c.events())).toEqual([]);
    });
  }
});
