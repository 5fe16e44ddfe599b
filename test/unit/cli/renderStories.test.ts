import { describe, expect, it } from 'vitest';
import { renderStories } from '../../../sim/cli/render';
import { result } from '../../../sim/check/report';

// The report's stories: the first lost write's, and as for it the first duplicated and the first lost effect's.
describe('renderStories', () => {
  it('tells the first story of each kind, titled, one indented line per step', () => {
    const out = renderStories({
      'lost-write': result(1, [], { values: ['p:1'], stories: [['p sent p:1 at 1.000s.', 'Broker 1 acknowledged it at 1.005s (acks=1).']] }),
      'output-duplicates': result(2, [], { values: ['shop:3', 'shop:4'], stories: [['Input shop:3 (orders-0@3) has 2 outputs in the committed output: out-0@3, out-0@9.'], ['second']] }),
      'output-lost': result(0),
    });
    expect(out).toBe(
      '\nThe story of the first lost write:\n  p sent p:1 at 1.000s.\n  Broker 1 acknowledged it at 1.005s (acks=1).\n' +
        '\nThe story of the first duplicated effect (output-duplicates):\n  Input shop:3 (orders-0@3) has 2 outputs in the committed output: out-0@3, out-0@9.\n',
    );
  });

  it('nothing when no check has a story', () => {
    expect(renderStories({ 'lost-write': result(0), 'output-not-once': result(0) })).toBe('');
  });
});
