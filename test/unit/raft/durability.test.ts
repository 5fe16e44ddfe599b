import { describe, expect, it } from 'vitest';
import type { RaftBatch } from '../../../sim/kafka/raft/messages';
import { RaftCluster, epochRegressions, twoLeaderEpochs } from './raftCluster';

describe('quorum-state durability', () => {
  it('a vote is answered only after its quorum-state fsync completes', () => {
    // fsync takes 40 ms: the gap between a Vote arriving and its granted answer leaving shows the wait.
    const c = new RaftCluster({ seed: 5, voters: 3, disk: { fsyncLatencyMs: 40 }, network: { traceMessages: true } });
    c.runUntilLeader(10_000);
    const sends = c.events('net.send');
    const votes = sends.filter((e) => e.type === 'Vote' && (e.msg as { preVote: boolean }).preVote === false);
    expect(votes.length).toBeGreaterThan(0);
    let granted = 0;
    for (const v of votes) {
      const req = v.msg as { correlationId: number };
      const resp = sends.find((e) => e.type === 'VoteResponse' && e.node === v.to && e.to === v.node && (e.msg as { correlationId: number }).correlationId === req.correlationId);
      if (!resp || !(resp.msg as { voteGranted: boolean }).voteGranted) continue;
      granted++;
      expect(resp.t - (v.arrive as number)).toBeGreaterThanOrEqual(40_000);
    }
    expect(granted).toBeGreaterThan(0);
    // And a candidate asks for votes only once its own candidacy is durable.
    const candidacy = c.events('raft.state-change').find((e) => e.state === 'Candidate')!;
    const firstVote = votes.find((v) => v.node === candidacy.node)!;
    expect(firstVote.t).toBeGreaterThanOrEqual(candidacy.t);
  });

  it('a replica\'s epoch and vote in memory are the ones on its disk once settled', () => {
    const c = new RaftCluster({ seed: 6, voters: 3, disk: { writebackDelayMs: null } });
    c.runUntilLeader(10_000);
    c.runFor(1000);
    for (const v of c.voterIds) {
      const s = c.client(v)!.inspect();
      const stored = c.world.host(v).disk.read<{ leaderEpoch: number; votedId: string | null }>(`${v}/__cluster_metadata-0/quorum-state`);
      const last = stored[stored.length - 1]!.data;
      expect(last.leaderEpoch).toBe(s.epoch);
      expect(last.votedId).toBe(s.votedId);
    }
  });

  it('a power loss while a vote is being made durable leaves no trace of the vote', () => {
    const c = new RaftCluster({ seed: 8, voters: 3, disk: { writebackDelayMs: null, fsyncLatencyMs: 40 } });
    const stored = (v: string) => {
      const chunks = c.world.host(v).disk.read<{ leaderEpoch: number; votedId: string | null }>(`${v}/__cluster_metadata-0/quorum-state`);
      return chunks[chunks.length - 1]?.data ?? null;
    };
    // Step until some voter has granted a vote in memory that is not yet on its disk.
    let voter: string | null = null;
    for (let i = 0; i < 5000 && voter === null; i++) {
      c.runFor(1);
      for (const v of c.voterIds) {
        const s = c.client(v)!.inspect();
        if (s.votedId !== null && s.votedId !== v && stored(v)?.votedId !== s.votedId) voter = v;
      }
    }
    expect(voter).not.toBeNull();
    const at = c.world.now;
    const epoch = c.client(voter!)!.epoch;
    c.world.host(voter!).powerOff();
    // Nothing of the vote left the node: no trace of it, and its disk does not have it.
    expect(c.events('raft.vote').filter((e) => e.node === voter && e.t >= at - 40_000 && !e.preVote)).toEqual([]);
    expect(stored(voter!)?.votedId ?? null).toBeNull();
    c.world.host(voter!).restart();
    c.runFor(10_000);
    expect(c.leaders().length).toBe(1);
    expect(twoLeaderEpochs(c.events())).toEqual([]);
    expect(epochRegressions(c.events())).toEqual([]);
    expect(c.client(c.leaders()[0]!)!.epoch).toBeGreaterThanOrEqual(epoch);
  });
});

describe('log durability', () => {
  it('a voter reports in its Fetch only what its disk has made durable', () => {
    // fsyncs take 20 ms and no OS writeback: a follower that fetched before flushing would be caught here.
    const checked: { node: string; fetchOffset: number; durableEnd: number }[] = [];
    const c = new RaftCluster({
      seed: 3,
      voters: 3,
      appendEveryMs: 10,
      disk: { writebackDelayMs: null, fsyncLatencyMs: 20 },
      ioHook: (node, io) => ({
        ...io,
        send: (to, msg, bytes) => {
          if (msg.type === 'Fetch') {
            const file = `${node}/__cluster_metadata-0/00000000000000000000.log`;
            const chunks = io.disk.read<RaftBatch<string>>(file);
            const k = io.disk.durableChunks(file);
            const last = chunks[k - 1];
            const durableEnd = last ? last.data.baseOffset + (last.data.control ? 1 : last.data.records.length) : 0;
            checked.push({ node, fetchOffset: msg.fetchOffset, durableEnd });
          }
          io.send(to, msg, bytes);
        },
      }),
    });
    c.runUntilLeader(10_000);
    c.runFor(3000);
    expect(checked.filter((x) => x.fetchOffset > 0).length).toBeGreaterThan(100);
    expect(checked.filter((x) => x.fetchOffset > x.durableEnd)).toEqual([]);
  });
});

describe('disk errors', () => {
  it('a follower whose disk fills stops (as Kafka\'s fatal handler stops the process); the quorum goes on', () => {
    const c = new RaftCluster({ seed: 2, voters: 3, appendEveryMs: 50 });
    const leader = c.runUntilLeader(10_000)!;
    c.runFor(1000);
    const f = c.voterIds.find((v) => v !== leader)!;
    c.world.host(f).disk.full = true;
    c.runFor(1000);
    expect(c.events('raft.fatal')).toMatchObject([{ node: f, reason: 'DISK_FULL' }]);
    expect(c.node(f)).toBeUndefined();
    const hw = c.client(leader)!.highWatermark!;
    c.runFor(2000);
    expect(c.client(leader)!.stateName).toBe('Leader');
    expect(c.client(leader)!.highWatermark!).toBeGreaterThan(hw);
  });
});

describe('cost', () => {
  it('an idle 3-voter quorum costs tens of events per simulated second, and a trickle of trace', () => {
    const c = new RaftCluster({ seed: 1, voters: 3 });
    c.runUntilLeader(10_000);
    c.runFor(2000);
    const e0 = c.world.scheduler.eventsRun;
    const t0 = c.events().length;
    c.runFor(60_000);
    // Per follower: a long-poll Fetch every 500 ms (send, park timer, response); BeginQuorumEpoch every second.
    expect((c.world.scheduler.eventsRun - e0) / 60).toBeLessThan(30);
    expect(c.events().length - t0).toBe(0);
  });

  it('with a no-op every 500 ms the trace grows by a few events per second', () => {
    const c = new RaftCluster({ seed: 1, voters: 3, noopEveryMs: 500 });
    c.runUntilLeader(10_000);
    c.runFor(2000);
    const e0 = c.world.scheduler.eventsRun;
    const t0 = c.events().length;
    c.runFor(60_000);
    expect((c.world.scheduler.eventsRun - e0) / 60).toBeLessThan(60);
    // One high-watermark advance per no-op.
    expect((c.events().length - t0) / 60).toBeLessThanOrEqual(2.1);
    expect(c.events().slice(t0).every((e) => e.kind === 'raft.high-watermark')).toBe(true);
  });
});
