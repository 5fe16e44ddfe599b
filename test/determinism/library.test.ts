import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { librarySpecs } from '../scenarios/libraryHarness';

/*
 * Every library scenario, twice in this process with the trace hashed (the library tests run them with hashing
 * off): the same scenario and seed give the same trace, byte for byte, and the same report.
 */
describe('every library scenario gives one trace hash, twice over', () => {
  for (const spec of librarySpecs()) {
    it(spec.id, () => {
      const s = validateScenario(spec);
      const a = runScenario(s, { keepEvents: false });
      const b = runScenario(s, { keepEvents: false });
      expect(a.traceHash).toMatch(/^[0-9a-f]{16}$/);
      expect(b.traceHash).toBe(a.traceHash);
      expect(b.events).toBe(a.events);
      expect(b.engineEvents).toBe(a.engineEvents);
      expect(JSON.stringify(b.checks)).toBe(JSON.stringify(a.checks));
    });
  }
});
