import { leaderEpochConflicts } from '../../check/leadership';
import { futureCheck, verdict, type RunProperty, type RunOutcome, type Verdict } from './property';

/** Two brokers leading one partition in one leader epoch (the check leader-epoch-conflict, sim/check/leadership.ts). */
export function singleLeaderViolations(run: RunOutcome): Verdict {
  const r = leaderEpochConflicts(run.trace);
  return verdict(r.count, r.examples);
}

export const singleLeaderPerEpoch: RunProperty = {
  name: 'single-leader-per-epoch',
  description: 'no two brokers lead one partition in the same leader epoch',
  expectation: () => futureCheck('leader-epoch-conflict', '=', 0, 'single-leader-per-epoch: leader-epoch-conflict = 0'),
  evaluate: singleLeaderViolations,
};
