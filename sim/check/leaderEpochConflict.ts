/**
 * leader-epoch-conflict: at most one broker leads a partition in a given leader epoch — the epoch is the
 * fencing token of leadership [PartitionChangeBuilder bumps it with every new leader; Partition.makeLeader takes
 * it]. A broker claims an epoch when it takes the leader role (replica.role), the controller when it commits an
 * election or a partition change naming a leader (controller.election, controller.partition). Two different
 * brokers under one (partition, epoch) is a violation. Only a simulator can see this: it reads every broker's
 * own view.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { result } from './report';

interface Claim {
  readonly broker: number;
  readonly t: number;
  readonly source: string;
}

export const leaderEpochConflict: CheckDefinition = {
  id: 'leaderEpochConflict',
  source: SIMULATOR_ONLY,
  make: (h) => {
    /** "topic-partition epoch N" -> the brokers that claimed it, first claim each. */
    const claims = new Map<string, Claim[]>();
    const claim = (topic: string, partition: number, epoch: number, c: Claim) => {
      if (c.broker < 0 || epoch < 0) return;
      const key = `${h.where(h.tps.id(topic, partition))} epoch ${epoch}`;
      let list = claims.get(key);
      if (!list) claims.set(key, (list = []));
      if (!list.some((x) => x.broker === c.broker)) list.push(c);
    };
    return {
      handlers: {
        'replica.role': (e) => {
          if (e.role === 'leader') claim(e.topic, e.partition, e.leaderEpoch, { broker: e.broker, t: e.t, source: `took the leader role (${e.node})` });
        },
        'controller.election': (e) => claim(e.topic, e.partition, e.leaderEpoch, { broker: e.leader, t: e.t, source: `elected by ${e.node}` }),
        'controller.partition': (e) => claim(e.topic, e.partition, e.leaderEpoch, { broker: e.leader, t: e.t, source: `named leader by ${e.node}` }),
      },
      report: (out) => {
        let count = 0;
        const examples: string[] = [];
        for (const [key, list] of claims) {
          if (list.length < 2) continue;
          count++;
          examples.push(`${key} had ${list.length} leaders: ${list.map((c) => `broker ${c.broker} ${c.source} at ${h.at(c.t)}`).join('; ')}`);
        }
        out['leader-epoch-conflict'] = result(count, examples);
      },
    };
  },
};
