import { describe, expect, it } from 'vitest';
import { toMs } from '../../../sim/core/time';
import { RaftCluster, twoLeaderEpochs } from './raftCluster';

describe('election on start', () => {
  it('a single voter elects itself at once, in epoch 1, without waiting for a timeout', () => {
    const c = new RaftCluster({ seed: 7, voters: 1 });
    c.runFor(50);
    const leader = c.client('controller-1')!;
    expect(leader.stateName).toBe('Leader');
    expect(leader.epoch).toBe(1);
    // Its LeaderChange record (offset 0) commits as soon as it is flushed: nobody else to wait for.
    expect(leader.highWatermark).toBe(1);
    expect(c.recorder.current('controller-1').becameLeader).toEqual([{ epoch: 1, epochStartOffset: 0, at: expect.any(Number) }]);
  });

  for (const voters of [3, 5]) {
    for (const seed of [1, 2, 3]) {
      it(`${voters} voters (seed ${seed}): one leader, followed by all, within two election timeouts`, () => {
        const c = new RaftCluster({ seed, voters });
        const leader = c.runUntilLeader(10_000);
        expect(leader).not.toBeNull();
        // Unattached voters stand after uniform[1000, 2000) ms; a pre-vote and a vote take a few round trips.
        expect(toMs(c.world.now)).toBeLessThan(2100);
        c.runFor(1000);
        const epoch = c.client(leader!)!.epoch;
        for (const id of c.voterIds) {
          const s = c.client(id)!.inspect();
          expect(s.epoch).toBe(epoch);
          expect(s.leaderId).toBe(leader);
          expect(s.state).toBe(id === leader ? 'Leader' : 'Follower');
        }
        expect(c.leaders()).toEqual([leader]);
        expect(twoLeaderEpochs(c.events())).toEqual([]);
        // The leader acted only once its own first record (LeaderChange at offset 0) was committed.
        const became = c.recorder.current(leader!).becameLeader;
        expect(became.length).toBe(1);
        expect(became[0]!.epochStartOffset).toBe(0);
        expect(c.client(leader!)!.highWatermark).toBeGreaterThanOrEqual(1);
      });
    }
  }

  it('the same seed gives the same trace, byte for byte', () => {
    const run = (seed: number) => {
      const c = new RaftCluster({ seed, voters: 3, appendEveryMs: 50 });
      c.runFor(5000);
      c.world.host(c.leaders()[0]!).crash();
      c.runFor(8000);
      return c.world.trace.hash();
    };
    expect(run(11)).toBe(run(11));
    expect(run(11)).not.toBe(run(12));
  });
});
