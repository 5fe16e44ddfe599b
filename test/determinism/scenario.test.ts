import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cutToDuration } from '../../sim/scenario/cutDuration';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';

const spec = JSON.parse(readFileSync('scenarios/acks1-leader-crash.json', 'utf8'));

describe('determinism of a whole Kafka run', () => {
  it('gives one trace hash per seed, twice over, and a different one for another seed', () => {
    const s = validateScenario({ ...cutToDuration(spec, '15s').spec, quiet: '10s' });
    const a = runScenario(s, { seed: 7 });
    const b = runScenario(s, { seed: 7 });
    const c = runScenario(s, { seed: 8 });
    expect(a.events).toBeGreaterThan(1000);
    expect(b.traceHash).toBe(a.traceHash);
    expect(b.events).toBe(a.events);
    expect(JSON.stringify(b.checks)).toBe(JSON.stringify(a.checks));
    expect(c.traceHash).not.toBe(a.traceHash);
  });

  it('is unaffected by what ran before it in the same process', () => {
    const s = validateScenario({ ...cutToDuration(spec, '10s').spec, quiet: '5s' });
    const first = runScenario(s, { seed: 3 }).traceHash;
    runScenario(validateScenario({ ...cutToDuration(spec, '12s').spec, id: 'other', quiet: '3s' }), { seed: 99 });
    expect(runScenario(s, { seed: 3 }).traceHash).toBe(first);
  });
});
