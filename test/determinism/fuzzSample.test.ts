import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../sim/core/validate';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario, type Scenario } from '../../sim/scenario/validate';
import { FIXED_SEED } from '../support/fastCheckSeed';
import { drawCases } from '../fuzz/campaign';

/*
 * A sample of the fuzz cases that run (scenario documents the validator accepts, mutated configs and all),
 * each twice in this process with the trace hashed: odd settings must not make a run depend on anything but
 * the scenario and the seed.
 */
const SAMPLE = 8;

function runnable(): { label: string; scenario: Scenario }[] {
  const out: { label: string; scenario: Scenario }[] = [];
  for (const c of drawCases(400, FIXED_SEED)) {
    if (c.kind !== 'document' || out.length >= SAMPLE) continue;
    let doc: unknown;
    try {
      doc = JSON.parse(c.text.replace(/^\ufeff/, ''));
      out.push({ label: `${c.base} with ${c.label}`, scenario: validateScenario(doc) });
    } catch (e) {
      if (!(e instanceof ValidationError) && !(e instanceof SyntaxError)) throw e;
    }
  }
  return out;
}

describe('fuzzed scenarios that run give one trace hash, twice over', () => {
  const cases = runnable();
  it('the sample is full', () => expect(cases).toHaveLength(SAMPLE));
  for (const { label, scenario } of cases) {
    it(label, () => {
      let a;
      try {
        a = runScenario(scenario, { keepEvents: false });
      } catch (e) {
        // A cluster these configs cannot boot is refused, the same way each time.
        expect(e).toBeInstanceOf(ValidationError);
        expect(() => runScenario(scenario, { keepEvents: false })).toThrow((e as Error).message);
        return;
      }
      const b = runScenario(scenario, { keepEvents: false });
      expect(b.traceHash).toBe(a.traceHash);
      expect(b.events).toBe(a.events);
      expect(JSON.stringify(b.checks)).toBe(JSON.stringify(a.checks));
    });
  }
});
