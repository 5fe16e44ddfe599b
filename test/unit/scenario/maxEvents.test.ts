import { describe, expect, it } from 'vitest';
import { RunawayRunError, runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';

const spec = validateScenario({
  id: 'max-events',
  duration: '2s',
  quiet: '0s',
  cluster: { controllers: 1, brokers: 1 },
  topics: [{ name: 't', partitions: 1, replicationFactor: 1 }],
  producers: [{ id: 'p', workload: { topic: 't', rate: 100 } }],
});

describe('RunOptions.maxEvents', () => {
  it('lets a run that fits finish exactly as without the limit, and stops one that does not', () => {
    const full = runScenario(spec, { hash: true });
    const fits = runScenario(spec, { hash: true, maxEvents: full.engineEvents });
    expect(fits.traceHash).toBe(full.traceHash);
    expect(fits.engineEvents).toBe(full.engineEvents);

    let caught: unknown;
    try {
      runScenario(spec, { maxEvents: full.engineEvents - 100 });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RunawayRunError);
    const err = caught as RunawayRunError;
    expect(err.maxEvents).toBe(full.engineEvents - 100);
    expect(err.simulatedMs).toBeLessThan(2000);
    expect(err.simulatedMs).toBeGreaterThan(1000);
  });
});
