import { formatTime } from '../../core/time';
import { futureCheck, verdict, type RunProperty, type RunOutcome, type Verdict } from './property';

interface Claim {
  readonly broker: number;
  readonly t: number;
  readonly source: string;
}

/**
 * At most one broker leads a partition in a given leader epoch: the epoch is the fencing token of
 * leadership [PartitionChangeBuilder bumps it with every new leader; Partition.makeLeader takes it]. A
 * broker claims an epoch when it takes the leader role (replica.role), the controller when it commits an
 * election or a partition change naming a leader (controller.election, controller.partition). Two
 * different brokers under one (partition, epoch) is a violation.
 */
export function singleLeaderViolations(run: RunOutcome): Verdict {
  const claims = new Map<string, Claim[]>();
  let startUs = 0;
  const claim = (topic: string, partition: number, epoch: number, c: Claim) => {
    if (c.broker < 0 || epoch < 0) return;
    const key = `${topic}-${partition} epoch ${epoch}`;
    let list = claims.get(key);
    if (!list) claims.set(key, (list = []));
    if (!list.some((x) => x.broker === c.broker)) list.push(c);
  };
  for (const e of run.trace) {
    switch (e.kind) {
      case 'scenario.start':
        startUs = e.t;
        break;
      case 'replica.role':
        if (e.role === 'leader') claim(e.topic as string, e.partition as number, e.leaderEpoch as number, { broker: e.broker as number, t: e.t, source: `took the leader role (${e.node})` });
        break;
      case 'controller.election':
        claim(e.topic as string, e.partition as number, e.leaderEpoch as number, { broker: e.leader as number, t: e.t, source: `elected by ${e.node}` });
        break;
      case 'controller.partition':
        claim(e.topic as string, e.partition as number, e.leaderEpoch as number, { broker: e.leader as number, t: e.t, source: `named leader by ${e.node}` });
        break;
    }
  }
  const examples: string[] = [];
  let count = 0;
  for (const [key, list] of claims) {
    if (list.length < 2) continue;
    count++;
    examples.push(`${key} had ${list.length} leaders: ${list.map((c) => `broker ${c.broker} ${c.source} at ${formatTime(c.t - startUs)}`).join('; ')}`);
  }
  return verdict(count, examples);
}

export const singleLeaderPerEpoch: RunProperty = {
  name: 'single-leader-per-epoch',
  description: 'no two brokers lead one partition in the same leader epoch',
  expectation: () => futureCheck('leader-epoch-conflict', '=', 0, 'single-leader-per-epoch: leader-epoch-conflict = 0'),
  evaluate: singleLeaderViolations,
};
