import { describe, expect, it } from 'vitest';
import { runCheckers } from '../../../sim/check/checkers';
import { librarySpecs } from '../../../sim/cli/library';
import { runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';

const scenario = (id: string) => validateScenario(librarySpecs().find((s) => s.id === id)!);

describe('checkers folding the trace as the run emits it', () => {
  // One scenario with lost writes (their stories read the events), one with consumer groups and rebalances.
  for (const id of ['unclean-election-loss', 'eager-vs-cooperative-pause']) {
    it(`${id}: the same report as the checkers over the kept trace, and without keeping it`, { timeout: 60_000 }, () => {
      const kept = runScenario(scenario(id));
      expect(kept.trace.length).toBeGreaterThan(1000);
      expect(runCheckers(kept.trace)).toEqual(kept.checks);

      const unkept = runScenario(scenario(id), { keepEvents: false });
      expect(unkept.trace).toEqual([]);
      expect(unkept.traceHash).toBe(kept.traceHash);
      expect(unkept.checks).toEqual(kept.checks);
    });
  }

  it('tells a lost write\'s story from what it kept of the per-batch events', () => {
    const r = runScenario(scenario('unclean-election-loss'), { keepEvents: false });
    const lost = r.checks['lost-write']!;
    expect(lost.count).toBeGreaterThan(0);
    const story = lost.stories![0]!;
    expect(story.some((line) => /appended it at offset \d+/.test(line))).toBe(true);
    expect(story.some((line) => /elected broker \d+ leader/.test(line))).toBe(true);
  });
});
