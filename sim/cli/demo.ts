import { runScenario } from '../scenario/runner';
import { validateScenario } from '../scenario/validate';
import type { CliIo } from './commands';
import { librarySpecs } from './library';
import { style, table } from './render';

/** The tour: one scenario per big idea, fast enough to run in well under a minute. */
export const DEMO_IDS = [
  'acks1-leader-crash',
  'acks-all-min-isr-2-survives-one',
  'acks-all-min-isr-2-two-down-rejects',
  'unclean-election-loss',
  'correlated-power-loss-no-fsync',
  'elr-last-replica-standing',
  'kip101-legacy-truncation-loss',
  'retries-without-idempotence-reorder',
  'idempotent-producer-dedup',
  'consumer-lag-restart',
  'group-parallelism-6-of-7',
  'auto-commit-async-at-most-once',
];

/** Runs the tour (or the whole library) and prints what each scenario shows and whether it held. */
export function demo(io: CliIo, all: boolean): number {
  const st = style(io.color);
  const specs = librarySpecs();
  const chosen = all ? specs : DEMO_IDS.map((id) => specs.find((s) => s.id === id)).filter((s) => s !== undefined);
  if (chosen.length === 0) {
    io.out('The scenario library is empty.\n');
    return 1;
  }
  io.out(`Running ${chosen.length} scenario(s) of the library on seed 1 ...\n\n`);
  const rows: string[][] = [];
  let allOk = true;
  for (const spec of chosen) {
    const s = validateScenario(spec);
    const r = runScenario(s, { hash: false, keepEvents: false });
    allOk &&= r.ok;
    // One row per expectation; the scenario and what it shows on its first row.
    r.expectations.forEach((e, i) => {
      rows.push([
        i === 0 ? s.id : '',
        i === 0 ? (s.title.length > 72 ? s.title.slice(0, 69) + '...' : s.title) : '',
        `${e.check} ${e.op} ${e.expected}`,
        String(e.actual),
        e.ok ? st.ok('ok') : st.bad('FAILED'),
      ]);
    });
  }
  io.out(table(['SCENARIO', 'WHAT IT SHOWS', 'EXPECTED', 'OBSERVED', 'OK'], rows));
  io.out(`\n${allOk ? 'Every scenario met its expectations.' : 'Some scenarios did not meet their expectations.'} Details: npx kafkasim run <scenario>\n`);
  return allOk ? 0 : 1;
}
