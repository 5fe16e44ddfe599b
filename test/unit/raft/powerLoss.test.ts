import { describe, expect, it } from 'vitest';
import { RaftCluster, commitDisagreements, lostCommitted, twoLeaderEpochs } from './raftCluster';

// No OS writeback in these tests: data is durable only through fsync, so a power loss is exact.
const disk = { writebackDelayMs: null };

describe('power loss', () => {
  it('a single voter loses what it had not flushed, never what it had committed', () => {
    const c = new RaftCluster({ seed: 3, voters: 1, disk, quorum: { 'controller.quorum.append.linger.ms': 0 } });
    c.runFor(100);
    const node = c.node('controller-1')!;
    expect(node.appendNow(['a', 'b'])).toBe(2); // LeaderChange holds offset 0
    c.runFor(50);
    expect(c.client('controller-1')!.highWatermark).toBe(3);
    expect(node.appendNow(['c'])).toBe(3);
    // 1 ms later 'c' is written (linger 0) but its 2 ms fsync has not completed.
    c.runFor(1);
    expect(c.client('controller-1')!.inspect()).toMatchObject({ endOffset: 4, flushedEndOffset: 3, highWatermark: 3 });
    c.world.host('controller-1').powerOff();
    c.world.host('controller-1').restart();
    c.runFor(1000);

    const recover = c.events('raft.recover').filter((e) => e.node === 'controller-1');
    expect(recover.length).toBe(2);
    expect(recover[1]).toMatchObject({ endOffset: 3, lastEpoch: 1, epoch: 1, leader: 'controller-1' });
    const after = c.client('controller-1')!;
    expect(after.stateName).toBe('Leader');
    expect(after.epoch).toBe(2);
    const incs = c.recorder.byNode.get('controller-1')!;
    expect(incs[0]!.entries.map((e) => e.record)).toEqual(['a', 'b']);
    // The new incarnation replays the committed log from the start: the same a and b, no c.
    expect(incs[1]!.entries).toEqual(incs[0]!.entries);
    expect(after.logBatches().flatMap((b) => b.records)).toEqual(['a', 'b']);
  });

  for (const seed of [1, 2]) {
    it(`seed ${seed}: all three voters lose power at once; every committed record survives`, () => {
      // fsyncs take 30 ms and records come every 20 ms: some written record is always unflushed somewhere.
      const c = new RaftCluster({ seed, voters: 3, disk: { ...disk, fsyncLatencyMs: 30 }, appendEveryMs: 20 });
      c.runUntilLeader(10_000);
      c.runFor(3000);
      const hwBefore = Math.max(...c.voterIds.map((v) => c.client(v)!.highWatermark ?? 0));
      expect(hwBefore).toBeGreaterThan(50);
      // Cut the power at a moment the leader has a written but unflushed batch.
      const leaderNow = c.leaders()[0]!;
      for (let i = 0; i < 100; i++) {
        const s = c.client(leaderNow)!.inspect();
        if (s.endOffset > s.flushedEndOffset) break;
        c.runFor(1);
      }
      for (const v of c.voterIds) c.world.host(v).powerOff();
      for (const v of c.voterIds) c.world.host(v).restart();
      const leader = c.runUntilLeader(15_000);
      expect(leader).not.toBeNull();
      c.runFor(2000);
      // Commit required an fsync on a majority, so a majority still has every committed record, and the new
      // leader (the most up-to-date log of some majority) has them all.
      expect(lostCommitted(c.recorder, c.client(leader!)!.logBatches())).toEqual([]);
      expect(commitDisagreements(c.recorder)).toEqual([]);
      expect(twoLeaderEpochs(c.events())).toEqual([]);
      // Some unflushed tail was really lost somewhere (the test would be vacuous otherwise).
      const lost = c.events('disk.power-loss').flatMap((e) => (e.files as { file: string; lost: number }[]).filter((f) => f.file.endsWith('.log')));
      expect(lost.some((f) => f.lost > 0)).toBe(true);
    });
  }

  it('a follower that lost power catches up without gaps', () => {
    const c = new RaftCluster({ seed: 4, voters: 3, disk, appendEveryMs: 20 });
    const leader = c.runUntilLeader(10_000)!;
    c.runFor(2000);
    const f = c.voterIds.find((v) => v !== leader)!;
    c.world.host(f).powerOff();
    c.runFor(2000);
    c.world.host(f).restart();
    c.runFor(3000);
    const hw = c.client(leader)!.highWatermark!;
    const mine = c.client(f)!;
    expect(mine.inspect()).toMatchObject({ state: 'Follower', leaderId: leader });
    // Within a fetch or two of the leader (a record every 20 ms, a fetch round trip well under that).
    expect(mine.highWatermark!).toBeGreaterThanOrEqual(hw - 2);
    expect(lostCommitted(c.recorder, mine.logBatches(), mine.highWatermark!)).toEqual([]);
    // Its second incarnation was told of every committed record from offset 0, in order, once.
    const second = c.recorder.byNode.get(f)![1]!;
    const fromLeader = c.recorder.byNode.get(leader)![0]!.entries.filter((e) => e.offset < mine.highWatermark!);
    expect(second.entries).toEqual(fromLeader);
    expect(commitDisagreements(c.recorder)).toEqual([]);
  });
});
