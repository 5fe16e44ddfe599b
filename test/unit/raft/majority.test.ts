import { describe, expect, it } from 'vitest';
import { RaftCluster, commitDisagreements, lostCommitted } from './raftCluster';

describe('commit needs a majority', () => {
  it('with 2 of 3 voters down nothing new commits and no leader is elected; one back and commits resume', () => {
    const c = new RaftCluster({ seed: 9, voters: 3, quorum: { 'controller.quorum.append.linger.ms': 0 } });
    const leader = c.runUntilLeader(10_000)!;
    const node = c.node(leader)!;
    node.appendNow(['before']);
    c.runFor(500);
    const hw = c.client(leader)!.highWatermark!;
    expect(c.recorder.current(leader).entries.map((e) => e.record)).toEqual(['before']);
    const [f1, f2] = c.voterIds.filter((v) => v !== leader) as [string, string];
    const downAt = c.world.now;
    c.world.host(f1).crash();
    c.world.host(f2).crash();
    // The leader still takes the write (it does not know yet) but it cannot commit.
    expect(node.appendNow(['during'])).toBe(hw);
    c.runFor(2500);
    expect(c.client(leader)!.highWatermark).toBe(hw);
    expect(c.client(leader)!.endOffset).toBe(hw + 1);
    c.runFor(20_000);
    // Check quorum made it resign; alone it can never be elected again.
    expect(c.leaders()).toEqual([]);
    expect(c.events('raft.state-change').some((e) => e.node === leader && e.state === 'Resigned' && e.reason === 'check-quorum')).toBe(true);
    // Its pre-votes find no majority, so it never even bumps the epoch.
    expect(c.events('raft.state-change').filter((e) => e.t > downAt && e.state === 'Candidate')).toEqual([]);
    expect(c.client(leader)!.epoch).toBe(1);
    expect(c.recorder.current(leader).entries.map((e) => e.record)).toEqual(['before']);

    c.world.host(f1).restart();
    const next = c.runUntilLeader(10_000);
    expect(next).not.toBeNull();
    c.node(next!)!.appendNow(['after']);
    c.runFor(1000);
    const committed = c.recorder.current(next!).entries.map((e) => e.record);
    expect(committed).toContain('before');
    expect(committed[committed.length - 1]).toBe('after');
    expect(lostCommitted(c.recorder, c.client(next!)!.logBatches())).toEqual([]);
    expect(commitDisagreements(c.recorder)).toEqual([]);
  });
});
