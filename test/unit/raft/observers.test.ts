import { describe, expect, it } from 'vitest';
import { RaftCluster, commitDisagreements, type CommittedEntry } from './raftCluster';

describe('observers', () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: observers follow every leader and see each committed record exactly once, in order`, () => {
      const c = new RaftCluster({ seed, voters: 3, observers: 2, appendEveryMs: 50 });
      const first = c.runUntilLeader(10_000)!;
      c.runFor(3000);
      c.world.host(first).crash();
      c.runFor(6000);
      c.world.host(first).restart();
      // An observer restarts too: it replays from offset 0.
      c.world.host('broker-2').crash();
      c.runFor(1000);
      c.world.host('broker-2').restart();
      c.runFor(6000);

      const leader = c.leaders()[0]!;
      expect(leader).not.toBe(first);
      // The whole committed history, by offset, as the current leader's incarnation was told it.
      const history = new Map<number, CommittedEntry>();
      for (const list of c.recorder.byNode.values()) for (const inc of list) for (const e of inc.entries) history.set(e.offset, e);
      const ordered = [...history.values()].sort((a, b) => a.offset - b.offset);
      expect(commitDisagreements(c.recorder)).toEqual([]);

      for (const obs of c.observerIds) {
        const incs = c.recorder.byNode.get(obs)!;
        for (const inc of incs) {
          const upTo = inc.committedOffsets[inc.committedOffsets.length - 1] ?? 0;
          // Exactly the committed records below what it was told is committed: none missing, none twice.
          expect(inc.entries).toEqual(ordered.filter((e) => e.offset < upTo));
        }
        const now = c.client(obs)!.inspect();
        expect(now).toMatchObject({ role: 'observer', state: 'Follower', leaderId: leader, epoch: c.client(leader)!.epoch });
        expect(now.highWatermark!).toBeGreaterThan(c.client(leader)!.highWatermark! - 5);
      }
      // Observers never stand for election.
      const observerStates = c.events('raft.state-change').filter((e) => c.observerIds.includes(e.node)).map((e) => e.state);
      expect(new Set(observerStates)).toEqual(new Set(['Unattached', 'Follower']));
      expect(c.events('raft.vote').filter((e) => c.observerIds.includes(e.node))).toEqual([]);
    });
  }
});
