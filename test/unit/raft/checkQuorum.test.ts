import { describe, expect, it } from 'vitest';
import { toMs } from '../../../sim/core/time';
import { RaftCluster, commitDisagreements, lostCommitted, twoLeaderEpochs } from './raftCluster';

describe('check quorum', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: a partitioned leader resigns within 1.5 x fetch timeout and the majority elects another`, () => {
      const c = new RaftCluster({ seed, voters: 3, appendEveryMs: 100 });
      const old = c.runUntilLeader(10_000)!;
      c.runFor(2000);
      const oldEpoch = c.client(old)!.epoch;
      const rest = c.voterIds.filter((v) => v !== old);
      const cutAt = c.world.now;
      c.world.network.partition([[old], rest]);
      c.runFor(6000);

      const resigned = c.events('raft.state-change').find((e) => e.node === old && e.t > cutAt && e.state === 'Resigned');
      expect(resigned).toBeDefined();
      expect(resigned!.reason).toBe('check-quorum');
      // The check-quorum timer (3000 ms) resets when a follower fetch is served. Followers fetch at least every
      // 500 ms (the long-poll wait), and a fetch parked on the leader before the cut still counts when the
      // leader's next append (within 100 ms) completes it, as in Kafka: so it fires 2500..3100 ms after the cut.
      const after = toMs(resigned!.t - cutAt);
      expect(after).toBeGreaterThan(2400);
      expect(after).toBeLessThanOrEqual(3100);

      // Meanwhile the majority side elected a leader in a later epoch and kept committing.
      const side = rest.filter((v) => c.client(v)!.isLeader);
      expect(side.length).toBe(1);
      const next = side[0]!;
      expect(c.client(next)!.epoch).toBeGreaterThan(oldEpoch);
      // The isolated leader wrote records nobody could acknowledge: none committed.
      const hwOld = c.client(old)!.highWatermark!;

      c.world.network.unpartition([[old], rest]);
      c.runFor(5000);
      expect(c.client(old)!.inspect()).toMatchObject({ state: 'Follower', leaderId: next });
      // Its uncommitted tail was cut away and replaced by the new leader's log.
      expect(c.events('raft.truncate').some((e) => e.node === old && (e.toOffset as number) >= hwOld)).toBe(true);
      expect(twoLeaderEpochs(c.events())).toEqual([]);
      expect(commitDisagreements(c.recorder)).toEqual([]);
      expect(lostCommitted(c.recorder, c.client(old)!.logBatches())).toEqual([]);
    });
  }

  it('a single voter never resigns for want of fetchers', () => {
    const c = new RaftCluster({ seed: 1, voters: 1, appendEveryMs: 200 });
    c.runFor(20_000);
    expect(c.client('controller-1')!.stateName).toBe('Leader');
    expect(c.events('raft.state-change').filter((e) => e.state === 'Resigned')).toEqual([]);
  });
});
