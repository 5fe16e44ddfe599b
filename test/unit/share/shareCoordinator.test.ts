import { describe, expect, it } from 'vitest';
import { shareStatePartition } from '../../../sim/kafka/share/coordinator/shareCoordinatorKey';
import { ShareCoordinatorShard, mergeBatches, type StateBatch } from '../../../sim/kafka/share/coordinator/shareCoordinatorShard';
import { fromStateBatches, toStateBatches } from '../../../sim/kafka/share/coordinator/sharePersister';

// The share coordinator (__share_group_state) against hand-worked cases.
const b = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number): StateBatch => ({ firstOffset, lastOffset, deliveryState, deliveryCount });
const w = (startOffset: number, stateBatches: StateBatch[], leaderEpoch = 0) => ({ groupId: 'jobs', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: 0, leaderEpoch, startOffset, stateBatches });

describe('the share coordinator key', () => {
  it('is Utils.abs("group:topicId:partition".hashCode()) mod the partition count (values worked out with Java String.hashCode)', () => {
    // "jobs:AAAAAAAAAAAAAAAAAAAAAA:0".hashCode() = -2023468230; "...:1" = -2023468229
    expect(shareStatePartition('jobs', 'AAAAAAAAAAAAAAAAAAAAAA', 0, 50)).toBe(30);
    expect(shareStatePartition('jobs', 'AAAAAAAAAAAAAAAAAAAAAA', 1, 50)).toBe(29);
    expect(shareStatePartition('jobs', 'AAAAAAAAAAAAAAAAAAAAAA', 1, 5)).toBe(4);
  });
});

describe('ShareCoordinatorShard', () => {
  it('writes a ShareSnapshot first, then ShareUpdates, then a ShareSnapshot again after snapshot.update.records.per.snapshot updates', () => {
    const shard = new ShareCoordinatorShard(2);
    const types: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = shard.write(w(i, [b(i, i + 1, 0, 1)]));
      expect(r.error).toBe('NONE');
      types.push(r.records[0]!.key.split('\u0000')[0]!);
      for (const rec of r.records) shard.replay(rec);
    }
    expect(types).toEqual(['ShareSnapshot', 'ShareUpdate', 'ShareUpdate', 'ShareSnapshot', 'ShareUpdate']);
  });

  it('rebuilds the state from the log: the snapshot with the updates merged over it, nothing below the start offset', () => {
    const writer = new ShareCoordinatorShard(500);
    const log = [
      w(10, [b(10, 14, 0, 1)]), // offsets 10-14 available, delivered once
      w(10, [b(11, 11, 2, 1), b(12, 12, 0, 2)]), // 11 acknowledged, 12 released (count 2)
      w(12, [b(12, 12, 4, 3)]), // 10 and 11 done: start 12; 12 archived at count 3
    ].flatMap((x) => {
      const r = writer.write(x);
      for (const rec of r.records) writer.replay(rec);
      return r.records;
    });
    const reader = new ShareCoordinatorShard(500);
    for (const rec of log) reader.replay(rec);
    const s = reader.read('jobs', 'AAAAAAAAAAAAAAAAAAAAAA', 0, 1);
    expect(s.error).toBe('NONE');
    expect(s.state?.startOffset).toBe(12);
    expect(s.state?.stateBatches).toEqual([b(12, 12, 4, 3), b(13, 14, 0, 1)]);
  });

  it('fences a write of an older leader epoch once a newer leader has read the state', () => {
    const shard = new ShareCoordinatorShard(500);
    for (const rec of shard.write(w(0, [b(0, 0, 0, 1)], 3)).records) shard.replay(rec);
    expect(shard.read('jobs', 'AAAAAAAAAAAAAAAAAAAAAA', 0, 4).error).toBe('NONE');
    expect(shard.write(w(0, [b(0, 0, 2, 1)], 3)).error).toBe('FENCED_LEADER_EPOCH');
    expect(shard.write(w(1, [], 4)).error).toBe('NONE');
    expect(shard.read('jobs', 'AAAAAAAAAAAAAAAAAAAAAA', 0, 2).error).toBe('FENCED_LEADER_EPOCH');
  });

  it('merges batches: a later batch wins where they overlap, runs of one state and count join', () => {
    expect(mergeBatches([b(0, 9, 0, 1)], [b(3, 4, 2, 1), b(9, 12, 0, 1)], 2)).toEqual([b(2, 2, 0, 1), b(3, 4, 2, 1), b(5, 12, 0, 1)]);
  });
});

describe('the persister\'s state batches', () => {
  it('turn a window into runs and back (a gap is ARCHIVED with count 0), with SPEO the last persisted offset', () => {
    const state = {
      startOffset: 5,
      endOffset: 9,
      records: [
        { offset: 5, state: 'AVAILABLE' as const, deliveryCount: 1, gap: false },
        { offset: 6, state: 'AVAILABLE' as const, deliveryCount: 1, gap: false },
        { offset: 7, state: 'ARCHIVED' as const, deliveryCount: 0, gap: true },
        { offset: 8, state: 'ARCHIVING' as const, deliveryCount: 5, gap: false },
        { offset: 9, state: 'ACKNOWLEDGED' as const, deliveryCount: 1, gap: false },
      ],
    };
    const batches = toStateBatches(state);
    expect(batches).toEqual([b(5, 6, 0, 1), b(7, 7, 4, 0), b(8, 8, 3, 5), b(9, 9, 2, 1)]);
    expect(fromStateBatches(5, batches)).toEqual(state);
    expect(fromStateBatches(-1, [])).toBeNull();
    expect(fromStateBatches(20, [])).toEqual({ startOffset: 20, endOffset: 19, records: [] });
  });
});
