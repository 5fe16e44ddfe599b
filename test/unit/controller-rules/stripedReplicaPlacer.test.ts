import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { placeReplicas, type UsableBroker } from '../../../sim/kafka/controller/rules/stripedReplicaPlacer';

/*
 * StripedReplicaPlacer's promises, beyond createTopic.test.ts: placements do not depend on the order brokers are
 * listed in, the start rack and broker are drawn (not always the first), every rack takes its turn at leading,
 * the stripes are reshuffled after a round, and racks with only fenced brokers never lead.
 */

const b = (id: number, rack: string | null, fenced = false): UsableBroker => ({ id, rack, fenced });

function place(brokers: readonly UsableBroker[], n: number, rf: number, seed: number): number[][] {
  const r = placeReplicas(brokers, n, rf, Random.root(seed).fork('placement'));
  if (!r.ok) throw new Error(r.message);
  return r.assignments;
}

const SEEDS = Array.from({ length: 12 }, (_, i) => i + 1);
const RACKED = [b(1, 'a'), b(2, 'a'), b(3, 'b'), b(4, 'b'), b(5, 'c'), b(6, 'c'), b(7, null), b(8, null)];

describe('StripedReplicaPlacer', () => {
  it('places the same whatever order the brokers and racks are listed in', () => {
    for (const seed of SEEDS) {
      const sorted = place(RACKED, 20, 3, seed);
      expect(place([...RACKED].reverse(), 20, 3, seed), `seed ${seed}`).toEqual(sorted);
      const interleaved = [RACKED[5]!, RACKED[0]!, RACKED[7]!, RACKED[2]!, RACKED[6]!, RACKED[1]!, RACKED[4]!, RACKED[3]!];
      expect(place(interleaved, 20, 3, seed), `seed ${seed}`).toEqual(sorted);
    }
  });

  it('draws where it starts: the first leader differs between seeds, in one rack and across racks', () => {
    const flat = [b(1, null), b(2, null), b(3, null), b(4, null)];
    expect(new Set(SEEDS.map((s) => place(flat, 1, 1, s)[0]![0])).size).toBeGreaterThan(1);
    const rackOf = new Map(RACKED.map((x) => [x.id, x.rack]));
    expect(new Set(SEEDS.map((s) => rackOf.get(place(RACKED, 1, 1, s)[0]![0]!))).size).toBeGreaterThan(1);
  });

  it('each rack takes its turn at leading: consecutive partitions start at consecutive racks', () => {
    const oneEach = [b(1, 'a'), b(2, 'b'), b(3, 'c')];
    for (const seed of SEEDS) {
      const leaders = place(oneEach, 3, 1, seed).map((r) => r[0]);
      expect(new Set(leaders).size, `seed ${seed}`).toBe(3);
    }
  });

  it('walks the racks in name order (no rack first), whatever the brokers\' ids, until the first reshuffle', () => {
    // Broker ids in a different order than their racks' names: 1 in c, 2 in a, 3 in no rack, 4 in b.
    const brokers = [b(1, 'c'), b(2, 'a'), b(3, null), b(4, 'b')];
    const rackOf = new Map(brokers.map((x) => [x.id, x.rack]));
    const order = [null, 'a', 'b', 'c'];
    for (const seed of SEEDS) {
      // Four unfenced brokers: the first four partitions come before any reshuffle.
      const racks = place(brokers, 4, 1, seed).map((r) => order.indexOf(rackOf.get(r[0]!)!));
      for (let i = 1; i < racks.length; i++) expect(racks[i], `seed ${seed}: ${racks.join(',')}`).toBe((racks[i - 1]! + 1) % 4);
    }
  });

  it('each unfenced broker leads once per round, and the rounds are reshuffled rather than repeated', () => {
    const flat = [b(1, null), b(2, null), b(3, null), b(4, null)];
    let repeatedEverywhere = true;
    for (const seed of SEEDS) {
      const a = place(flat, 16, 2, seed);
      for (let round = 0; round < 4; round++) {
        expect(new Set(a.slice(round * 4, round * 4 + 4).map((r) => r[0])).size, `seed ${seed} round ${round}`).toBe(4);
      }
      if (JSON.stringify(a.slice(0, 4)) !== JSON.stringify(a.slice(4, 8))) repeatedEverywhere = false;
    }
    expect(repeatedEverywhere).toBe(false);
  });

  it('a rack whose brokers are all fenced never leads, but fills follower slots', () => {
    const brokers = [b(1, 'a'), b(2, 'a'), b(3, 'b', true), b(4, 'c', true)];
    for (const seed of SEEDS) {
      for (const replicas of place(brokers, 8, 3, seed)) {
        expect([1, 2]).toContain(replicas[0]);
        expect(new Set(replicas).size).toBe(3);
        for (const r of replicas) expect([1, 2, 3, 4]).toContain(r);
      }
    }
  });

  it('a rack of fenced brokers and one of too few unfenced: every slot is a real, distinct broker', () => {
    const brokers = [b(1, 'a'), b(2, 'b', true), b(3, 'b', true), b(4, 'a', true)];
    for (const seed of SEEDS) {
      for (const replicas of place(brokers, 6, 4, seed)) {
        expect(replicas[0]).toBe(1);
        expect([...replicas].sort()).toEqual([1, 2, 3, 4]);
      }
    }
  });

  it('refuses with words that say why', () => {
    const rnd = () => Random.root(1);
    expect(placeReplicas([b(1, null), b(2, null)], 1, 0, rnd())).toEqual({ ok: false, message: 'replication factor 0 is not positive' });
    expect(placeReplicas([b(1, null, true), b(2, null, true)], 1, 1, rnd())).toEqual({ ok: false, message: 'every broker is fenced' });
    expect(placeReplicas([b(1, null), b(2, null, true)], 1, 3, rnd())).toEqual({ ok: false, message: '3 replicas need 3 brokers, but only 2 are registered' });
    expect(placeReplicas([], 1, 1, rnd())).toEqual({ ok: false, message: 'every broker is fenced' });
  });
});
