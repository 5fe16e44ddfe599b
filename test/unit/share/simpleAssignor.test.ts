import { describe, expect, it } from 'vitest';
import { assignSimple } from '../../../sim/kafka/share/simpleAssignor';

const members = (n: number, topics = ['t']) => Array.from({ length: n }, (_, i) => ({ memberId: `m${String(i).padStart(2, '0')}`, topics }));

describe('the simple share assignor', () => {
  it('ten members on three partitions: every member gets a partition, each partition three or four members', () => {
    const a = assignSimple(members(10), () => 3);
    expect([...a.values()].every((tps) => tps.length === 1 && tps[0]!.partitions.length === 1)).toBe(true);
    const perPartition = [0, 1, 2].map((p) => [...a.values()].filter((tps) => tps[0]!.partitions[0] === p).length);
    expect(perPartition.sort()).toEqual([3, 3, 4]);
  });

  it('fewer members than partitions: each partition to exactly one member, evenly', () => {
    const a = assignSimple(members(2), () => 5);
    const counts = [...a.values()].map((tps) => tps[0]!.partitions.length);
    expect(counts.sort()).toEqual([2, 3]);
    const all = [...a.values()].flatMap((tps) => tps[0]!.partitions).sort();
    expect(all).toEqual([0, 1, 2, 3, 4]);
  });

  it('only subscribers of a topic get its partitions; a member of no known topic gets nothing', () => {
    const a = assignSimple(
      [
        { memberId: 'a', topics: ['x'] },
        { memberId: 'b', topics: ['y'] },
        { memberId: 'c', topics: ['nope'] },
      ],
      (t) => (t === 'nope' ? -1 : 2),
    );
    expect(a.get('a')).toEqual([{ topic: 'x', partitions: [0, 1] }]);
    expect(a.get('b')).toEqual([{ topic: 'y', partitions: [0, 1] }]);
    expect(a.get('c')).toEqual([]);
  });
});
