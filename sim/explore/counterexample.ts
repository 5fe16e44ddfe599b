import type { CaptionSpec, ExpectationSpec, ScenarioSpec } from '../scenario/spec';
import type { FaultEntry } from '../world/nemesis';
import type { PropertyOptions, RunProperty, Verdict } from './properties/index';

const seconds = (ms: number | string | undefined) => (typeof ms === 'number' ? `${Number((ms / 1000).toFixed(3))}s` : String(ms ?? ''));

/** A fault entry in plain words: "power-loss of leader:orders/0 at 3.2s for 1.5s". */
export function describeFault(f: FaultEntry): string {
  let what: string;
  if (f.groups) what = `${f.fault} ${f.groups.map((g) => `[${g.join(', ')}]`).join(' | ')}`;
  else if (f.from && f.to) what = `${f.fault} [${f.from.join(', ')}] -/-> [${f.to.join(', ')}]`;
  else what = `${f.fault} of ${(f.targets ?? []).join(', ')}`;
  if (f.factor !== undefined && f.fault === 'slow-disk') what += ` (x${f.factor})`;
  return `${what} at ${seconds(f.at)}${f.duration !== undefined ? ` for ${seconds(f.duration)}` : ''}`;
}

export interface CounterexampleInfo {
  readonly property: RunProperty;
  readonly opts: PropertyOptions;
  readonly verdict: Verdict;
  /** The sweep's seed and the run that first failed. */
  readonly seed: number | string;
  readonly run: number;
  readonly shrinks: number;
}

/**
 * The smallest failing scenario as a scenario file that `kafkasim run` and the UI open as they are: the
 * property's expectation in `expect` (so the run exits 1 when the violation reproduces), a caption at each
 * fault, and a summary of how it was found.
 */
export function counterexampleDocument(spec: ScenarioSpec, info: CounterexampleInfo): ScenarioSpec {
  const faults = spec.faults ?? [];
  const expectation: ExpectationSpec | null = info.property.expectation(info.opts);
  const captions: CaptionSpec[] = faults.map((f) => ({ at: f.at, text: describeFault(f) }));
  const found = `Found by kafkasim explore --property ${info.property.name} --seed ${info.seed} (run ${info.run}), shrunk ${info.shrinks} time${info.shrinks === 1 ? '' : 's'}`;
  // The base's lesson speaks of its own schedule; the summary says what this one shows.
  const { lesson: _lesson, ...rest } = spec;
  return {
    ...rest,
    id: `counterexample-${info.property.name}`,
    title: `Counterexample to ${info.property.name}: ${faults.length} fault${faults.length === 1 ? '' : 's'}`,
    summary: `${found}. ${faults.length === 0 ? 'No fault is needed.' : `Faults: ${faults.map(describeFault).join('; ')}.`} ${info.verdict.examples[0] ?? ''}`.trim(),
    tags: ['counterexample', `property:${info.property.name}`],
    captions,
    expect: expectation ? [expectation] : [],
  };
}
