import { highWatermarkRegressions } from '../../check/leadership';
import { futureCheck, verdict, type RunProperty, type RunOutcome, type Verdict } from './property';

/** A leader's high watermark going down within its epoch (the check high-watermark-regression, sim/check/leadership.ts). */
export function hwRegressions(run: RunOutcome): Verdict {
  const r = highWatermarkRegressions(run.trace);
  return verdict(r.count, r.examples);
}

export const hwMonotonic: RunProperty = {
  name: 'hw-monotonic',
  description: "a leader's high watermark never goes down within a leader epoch",
  expectation: () => futureCheck('high-watermark-regression', '=', 0, 'hw-monotonic: high-watermark-regression = 0'),
  evaluate: hwRegressions,
};
