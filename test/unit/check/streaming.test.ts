import { describe, expect, it } from 'vitest';
import { runCheckers } from '../../../sim/check/checkers';
import { numberAt, numberOf, numbersOf, prefixAt } from '../../../sim/core/numberedText';
import type { TraceEvent } from '../../../sim/core/trace';
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
      // The numbers the emitters hand along (hidden, not in the trace) say what the text says, and the checkers
      // judge a loaded trace, which has none and parses the text, the same way.
      let numbered = 0;
      for (const e of kept.trace) {
        const one = numberOf(e);
        if (one !== undefined && 'value' in e) {
          expect(e.value).toBe(one.prefix + one.n);
          numbered++;
        }
        for (const list of e.kind === 'consumer.poll' ? e.records.map((r) => r.values) : 'values' in e && Array.isArray(e.values) ? [e.values] : []) {
          const numbers = numbersOf(list);
          if (numbers === undefined) continue;
          list.forEach((text, i) => {
            if (numberAt(numbers, i) >= 0) {
              expect(text).toBe(prefixAt(numbers, i) + numbers.n[i]);
              numbered++;
            }
          });
        }
      }
      expect(numbered).toBeGreaterThan(kept.trace.length / 10);
      const loaded = kept.trace.map((e) => JSON.parse(JSON.stringify(e)) as TraceEvent);
      expect(numbersOf((loaded.find((e) => e.kind === 'send.ok') as { values: string[] }).values)).toBeUndefined();
      expect(runCheckers(loaded)).toEqual(kept.checks);

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
