import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignmentOf, assignmentSize } from '../../../sim/kafka/coordinator/consumer/assignment';
import { groupSpecOf, type GroupAssignment, type GroupSpec } from '../../../sim/kafka/coordinator/consumer/assignor/groupSpec';
import { SERVER_ASSIGNORS } from '../../../sim/kafka/coordinator/consumer/assignor/serverAssignors';

const TOPICS = ['a', 'b', 'c'];

/** Random groups: 1..3 topics of 0..12 partitions, 1..8 members, equal or differing subscriptions, a valid previous target. */
const groupArb = (equal: boolean | null) =>
  fc
    .record({
      counts: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: TOPICS.length }),
      members: fc.integer({ min: 1, max: 8 }),
      equal: equal === null ? fc.boolean() : fc.constant(equal),
      picks: fc.array(fc.integer({ min: 0, max: 2 ** 20 }), { minLength: 8 * 40, maxLength: 8 * 40 }),
    })
    .map(({ counts, members, equal: eq, picks }) => {
      const topics = TOPICS.slice(0, counts.length);
      const count = new Map(topics.map((t, i) => [t, counts[i]!]));
      let k = 0;
      const pick = (n: number) => picks[k++ % picks.length]! % n;
      const ids = Array.from({ length: members }, (_, i) => `m${i}`);
      const subs = ids.map(() => (eq ? topics : topics.filter(() => pick(3) > 0)));
      // A previous target: each partition at most once, held by some member (maybe one no longer subscribed).
      const prev = ids.map(() => new Map<string, number[]>());
      for (const t of topics) for (let p = 0; p < count.get(t)!; p++) if (pick(2) === 0) prev[pick(members)]!.get(t)?.push(p) ?? prev[pick(members)]!.set(t, [p]);
      const spec = groupSpecOf(ids.map((id, i) => [id, { rackId: null, instanceId: null, subscribedTopics: new Set(subs[i]), assignment: assignmentOf(prev[i]!) }]));
      return { spec, count };
    });

function checkValid(spec: GroupSpec, count: Map<string, number>, a: GroupAssignment): void {
  const owner = new Map<string, string>();
  for (const [id, x] of a) {
    const m = spec.members.get(id)!;
    for (const [t, ps] of x) {
      expect(m.subscribedTopics.has(t)).toBe(true);
      for (const p of ps) {
        expect(owner.has(`${t}-${p}`)).toBe(false);
        owner.set(`${t}-${p}`, id);
      }
    }
  }
  // Every partition of a topic someone subscribes to is assigned.
  for (const [t, n] of count) {
    const subscribed = [...spec.members.values()].some((m) => m.subscribedTopics.has(t));
    for (let p = 0; p < n; p++) expect(owner.has(`${t}-${p}`)).toBe(subscribed);
  }
}

describe('server assignors', () => {
  it.each(Object.keys(SERVER_ASSIGNORS))('%s: every subscribed partition goes to exactly one subscriber', (name) => {
    const assignor = SERVER_ASSIGNORS[name as keyof typeof SERVER_ASSIGNORS];
    fc.assert(
      fc.property(groupArb(null), ({ spec, count }) => {
        checkValid(spec, count, assignor.assign(spec, { numPartitions: (t) => count.get(t) ?? -1 }));
      }),
      { numRuns: 300 },
    );
  });

  it('uniform, equal subscriptions: sizes differ by at most one, and each member keeps its previous partitions up to its share', () => {
    fc.assert(
      fc.property(groupArb(true), ({ spec, count }) => {
        const a = SERVER_ASSIGNORS.uniform.assign(spec, { numPartitions: (t) => count.get(t) ?? -1 });
        const sizes = [...spec.members.keys()].map((id) => assignmentSize(a.get(id) ?? new Map()));
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        const floor = Math.floor([...count.values()].reduce((x, y) => x + y, 0) / spec.members.size);
        for (const [id, m] of spec.members) {
          let kept = 0;
          for (const [t, ps] of m.assignment) for (const p of ps) if (a.get(id)?.get(t)?.includes(p)) kept++;
          expect(kept).toBeGreaterThanOrEqual(Math.min(assignmentSize(m.assignment), floor));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('uniform, differing subscriptions: no subscriber of a topic holds two partitions more than another subscriber of it while holding some of it', () => {
    fc.assert(
      fc.property(groupArb(false), ({ spec, count }) => {
        const a = SERVER_ASSIGNORS.uniform.assign(spec, { numPartitions: (t) => count.get(t) ?? -1 });
        const size = (id: string) => assignmentSize(a.get(id) ?? new Map());
        for (const t of count.keys()) {
          const subs = [...spec.members].filter(([, m]) => m.subscribedTopics.has(t)).map(([id]) => id);
          for (const x of subs) for (const y of subs) if ((a.get(y)?.get(t)?.length ?? 0) > 0) expect(size(y) - size(x)).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 200 },
    );
  });
});
