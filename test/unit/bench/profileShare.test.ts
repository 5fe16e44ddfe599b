import { describe, expect, it } from 'vitest';
import { profileShare, type CpuProfile } from '../../bench/profileShare';

const frame = (functionName: string, url = '') => ({ functionName, url });

/**
 * (root) ─┬─ (idle)
 *         ├─ (garbage collector)
 *         ├─ run (runner.ts) ─┬─ route (sim/check/checkers.ts) ── get (Map, no url)
 *         │                   └─ deliver (broker.ts)
 *         └─ (program)
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 8] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('(garbage collector)') },
    { id: 4, callFrame: frame('run', 'file:///x/sim/scenario/runner.ts'), children: [5, 7] },
    { id: 5, callFrame: frame('route', 'file:///x/sim/check/checkers.ts'), children: [6] },
    { id: 6, callFrame: frame('get') },
    { id: 7, callFrame: frame('deliver', 'file:///x/sim/kafka/broker.ts') },
    { id: 8, callFrame: frame('(program)') },
  ],
  // idle x3, GC x2, run x1, route x1, get (under route) x2, deliver x1, program x1
  samples: [2, 2, 2, 3, 3, 4, 5, 6, 6, 7, 8],
};

describe('profileShare', () => {
  it('counts the busy samples with a frame of the code anywhere on their stack, with and without the collector', () => {
    const s = profileShare(profile, ['/sim/check/']);
    expect(s).toEqual({ samples: 11, busy: 8, gc: 2, matched: 3, share: 0.375, shareWithoutGc: 0.5 });
  });

  it('counts nothing for code the profile never ran, and a sample once however many frames match', () => {
    expect(profileShare(profile, ['/sim/ui/']).matched).toBe(0);
    // runner.ts and checkers.ts both match the stacks under route: still 3 + run's own 1 + deliver's 1.
    expect(profileShare(profile, ['/sim/scenario/', '/sim/check/']).matched).toBe(5);
  });
});
