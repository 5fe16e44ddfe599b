import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitSet, IntColumn, NumberList, RowColumn, SmallColumn } from '../../../../sim/check/history/columns';
import { ValueIds } from '../../../../sim/check/history/values';
import { percentile, rank } from '../../../../sim/check/report';

describe('typed columns', () => {
  it('read back what was written, the fill elsewhere, and stay exact past 32 bits', () => {
    const c = new IntColumn(-1);
    c.set(3, 7);
    c.set(1_000_000, 2 ** 31 - 1);
    expect([c.get(3), c.get(4), c.get(1_000_000), c.get(5_000_000)]).toEqual([7, -1, 2 ** 31 - 1, -1]);
    // A time past 35 simulated minutes (2^31 us) and a fraction widen their chunk, not the value.
    c.set(5, 3_000_000_000);
    c.set(6, 0.5);
    expect([c.get(3), c.get(5), c.get(6)]).toEqual([7, 3_000_000_000, 0.5]);
    const s = new SmallColumn(16);
    s.set(70_000, 0xffff);
    expect([s.get(70_000), s.get(69_999), s.max]).toEqual([0xffff, 0, 0xffff]);
  });

  it('a bit set is a set: add tells whether it was new, forEach lists members ascending', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 200 }), fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 50 }), (adds, dels) => {
        const b = new BitSet();
        const ref = new Set<number>();
        for (const x of adds) {
          const fresh = !ref.has(x);
          ref.add(x);
          expect(b.add(x)).toBe(fresh);
        }
        for (const x of dels) {
          b.delete(x);
          ref.delete(x);
        }
        const listed: number[] = [];
        b.forEach((x) => listed.push(x));
        expect(listed).toEqual([...ref].sort((a, z) => a - z));
        for (const x of adds) expect(b.has(x)).toBe(ref.has(x));
      }),
    );
  });
});

describe('rows of numbers', () => {
  it('keep each word of a row apart, at its own fill until written, and stay exact past 32 bits', () => {
    const r = new RowColumn(3, [0, -1, 7]);
    expect([r.get(10, 0), r.get(10, 1), r.get(10, 2)]).toEqual([0, -1, 7]);
    r.set(10, 1, 42);
    r.set(11, 0, -5);
    r.set(9_000, 2, 1);
    expect([r.get(10, 0), r.get(10, 1), r.get(10, 2), r.get(11, 0), r.get(11, 1), r.get(9_000, 2), r.get(9_000, 1)]).toEqual([0, 42, 7, -5, -1, 1, -1]);
    // A time past 2^31 us widens the chunk; the other rows and words keep their values.
    r.set(11, 2, 3_000_000_000);
    expect([r.get(11, 2), r.get(11, 0), r.get(10, 1), r.get(12, 2)]).toEqual([3_000_000_000, -5, 42, 7]);
  });

  it('a number list adds to its last number, widening when the sum does not fit 32 bits', () => {
    const l = new NumberList();
    l.push(5);
    l.addToLast(3);
    l.push(2 ** 31 - 1);
    l.addToLast(1);
    expect([...l.view()]).toEqual([8, 2 ** 31]);
  });
});

describe('value ids', () => {
  it('give one id per string, dense for numbered values, and give the text back', () => {
    const ids = new ValueIds();
    const values = ['producer-1:0', 'producer-1:1', 'producer-2:0', 'k17', 'v0-5', 'tombstone?', 'producer-1:4096', 'producer-1:007', '42', 'a:1234567890'];
    const got = values.map((v) => ids.id(v));
    expect(new Set(got).size).toBe(values.length);
    expect(values.map((v) => ids.id(v))).toEqual(got);
    expect(got.map((id) => ids.text(id))).toEqual(values);
    // A producer's values share blocks of 4,096 consecutive ids.
    expect(got[1]! - got[0]!).toBe(1);
  });

  it('keep very sparse numbering as text instead of a block per value', () => {
    const ids = new ValueIds();
    for (let i = 0; i < 100; i++) ids.id(`sparse:${i * 1_000_000}`);
    expect(ids.size).toBeLessThan(20 * 4096);
    for (let i = 0; i < 100; i++) expect(ids.text(ids.id(`sparse:${i * 1_000_000}`))).toBe(`sparse:${i * 1_000_000}`);
  });

  it('any strings, in any order, map one-to-one and back', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.tuple(fc.constantFrom('p:', 'q-', 'k', ''), fc.nat(20_000)).map(([a, n]) => `${a}${n}`)), { maxLength: 300 }), (vs) => {
        const ids = new ValueIds();
        const byText = new Map<string, number>();
        for (const v of vs) {
          const id = ids.id(v);
          if (byText.has(v)) expect(id).toBe(byText.get(v));
          byText.set(v, id);
          expect(ids.text(id)).toBe(v);
        }
        expect(new Set(byText.values()).size).toBe(byText.size);
      }),
    );
  });

  it('give a text handed as its prefix and number (idOf) the id its parsed text gets, in any mix and order', () => {
    // Prefixes that end in a digit or are empty, numbers past 9 digits, sparse numbering and texts kept aside all
    // take the paths where parsing would read the text differently.
    const part = fc.tuple(fc.constantFrom('producer-1:', 'q-', 'k', '', 'p7', 'sparse:'), fc.oneof(fc.nat(20_000), fc.nat(2_000_000_000), fc.constant(0)), fc.boolean(), fc.constantFrom('', 'x', 'producer-1:007'));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 300 }), (parts) => {
        const parsed = new ValueIds();
        const handed = new ValueIds();
        for (const [prefix, n, asNumber, other] of parts) {
          if (other !== '') {
            expect(handed.id(other)).toBe(parsed.id(other));
            continue;
          }
          const text = `${prefix}${n}`;
          const id = asNumber ? handed.idOf(prefix, n) : handed.id(text);
          expect(id).toBe(parsed.id(text));
          expect(handed.text(id)).toBe(text);
        }
      }),
    );
  });
});

describe('percentile', () => {
  it('is the nearest-rank percentile of a sort, computed by selection', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 500 }), fc.integer({ min: 1, max: 100 }), (xs, p) => {
        const sorted = [...xs].sort((a, b) => a - b);
        const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
        expect(percentile(Float64Array.from(xs), p)).toBe(sorted[rank]);
      }),
    );
    expect(percentile(new Float64Array(0), 99)).toBe(0);
  });

  it('selects a higher percentile from the rank of a lower one already selected, as from the start', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 500 }), fc.integer({ min: 1, max: 99 }), (xs, p) => {
        const sorted = [...xs].sort((a, b) => a - b);
        const values = Float64Array.from(xs);
        expect(percentile(values, p)).toBe(sorted[rank(xs.length, p)]);
        expect(percentile(values, 99, rank(xs.length, p))).toBe(sorted[rank(xs.length, 99)]);
      }),
    );
  });
});
