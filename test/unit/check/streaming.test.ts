import { describe, expect, it } from 'vitest';
import { Checkers, runCheckers } from '../../../sim/check/checkers';
import { numberAt, numberOfText, numbersOfList, numbersOfLists, prefixAt } from '../../../sim/core/numberedText';
import type { TraceEvent, TraceSink } from '../../../sim/core/trace';
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
      // The numbers the emitters hand along (beside the events, not in them) say what the text says, and the
      // checkers judge a kept or loaded trace, which has none and parses the text, the same way.
      let numbered = 0;
      let keysNumbered = 0;
      const checkNumbers: TraceSink = {
        event(e, _line, numbers) {
          const one = numberOfText(numbers);
          if (one !== undefined && 'value' in e) {
            expect(e.value).toBe(one.prefix + one.n);
            numbered++;
            if (one.keyPrefix !== undefined && one.keyN! >= 0 && 'key' in e) {
              expect(e.key).toBe(one.keyPrefix + one.keyN);
              keysNumbered++;
            }
          }
          const lists = e.kind === 'consumer.poll' ? e.records.map((r, k) => [r.values, numbersOfLists(numbers, k)] as const) : 'values' in e && Array.isArray(e.values) ? [[e.values, numbersOfList(numbers)] as const] : [];
          for (const [list, of] of lists) {
            if (of === undefined) continue;
            expect(of.n.length).toBe(list.length);
            list.forEach((text, i) => {
              if (numberAt(of, i) >= 0) {
                expect(text).toBe(prefixAt(of, i) + of.n[i]);
                numbered++;
              }
            });
          }
        },
      };
      runScenario(scenario(id), { keepEvents: false, sinks: [checkNumbers] });
      expect(numbered).toBeGreaterThan(kept.trace.length / 10);
      expect(keysNumbered).toBeGreaterThan(0);
      const loaded = kept.trace.map((e) => JSON.parse(JSON.stringify(e)) as TraceEvent);
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

describe('figures folded as sends are answered', () => {
  // Reordered sends (nonmonotonic-send), a key that moved partitions, long unavailability with sends open at the end,
  // acknowledged records nobody read (unseen and lost-write-jepsen look from the first unread send on).
  for (const id of ['retries-without-idempotence-reorder', 'partition-count-change-breaks-key-order', 'acks-all-min-isr-2-two-down-rejects', 'lag-exceeds-retention-skips']) {
    it(`${id}: the same report as from the final history`, { timeout: 60_000 }, () => {
      const run = runScenario(scenario(id));
      const folded = new Checkers();
      const fromFinal = new Checkers({ fromFinalHistory: true });
      for (const e of run.trace) {
        folded.event(e);
        fromFinal.event(e);
      }
      const report = folded.report();
      expect(report).toEqual(fromFinal.report());
      expect(report).toEqual(run.checks);
    });
  }
});
