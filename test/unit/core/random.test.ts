import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';

const draw = (r: Random, n: number) => Array.from({ length: n }, () => r.next());

describe('Random', () => {
  it('gives the same numbers for the same seed, whether written as a number or a string', () => {
    expect(draw(Random.root(42), 10)).toEqual(draw(Random.root('42'), 10));
    expect(draw(Random.root(42), 10)).not.toEqual(draw(Random.root(43), 10));
  });

  it('gives each fork a stream that depends only on (seed, name)', () => {
    const a = Random.root(7);
    const net1 = draw(a.fork('net'), 5);
    // Drawing from the root and adding other forks first does not shift the "net" stream.
    const b = Random.root(7);
    draw(b, 100);
    draw(b.fork('producer-1'), 50);
    expect(draw(b.fork('net'), 5)).toEqual(net1);
    expect(draw(b.fork('net').fork('jitter'), 5)).not.toEqual(net1);
  });

  it('continues a saved stream exactly', () => {
    const r = Random.root('s');
    draw(r, 13);
    const saved = r.save();
    const next = draw(r, 20);
    expect(draw(Random.restore(JSON.parse(JSON.stringify(saved))), 20)).toEqual(next);
  });

  it('rejects empty ranges and bad weights with a message that says why', () => {
    const r = Random.root(1);
    expect(() => r.int(3, 3)).toThrow(/empty range \[3, 3\)/);
    expect(() => r.choice([])).toThrow(/no items/);
    expect(() => r.weighted(['a'], [0])).toThrow(/all weights are 0/);
    expect(() => r.weighted(['a', 'b'], [1])).toThrow(/2 items but 1 weights/);
    expect(() => r.zipf(0)).toThrow(/n must be an integer >= 1/);
  });
});
